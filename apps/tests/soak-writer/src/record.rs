//! One 32-byte soak record: `SOAK`, the file's number (u32), the record's
//! sequence number (u64, from 1), 12 bytes that depend on both, and a
//! CRC-32C of the 28 bytes before it. Record `n` of a file lies at byte
//! `(n - 1) * 32`, so the records a file holds intact are a prefix of it
//! and one number says how much of it survived.

/// Bytes per record.
pub const SIZE: usize = 32;
const MAGIC: &[u8; 4] = b"SOAK";
const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// Record `seq` of file `file`.
pub fn encode(file: u32, seq: u64) -> [u8; SIZE] {
    let mut r = [0u8; SIZE];
    r[..4].copy_from_slice(MAGIC);
    r[4..8].copy_from_slice(&file.to_le_bytes());
    r[8..16].copy_from_slice(&seq.to_le_bytes());
    let mix = (seq ^ u64::from(file) << 48).wrapping_mul(0xd6e8_feb8_6659_fd93);
    r[16..24].copy_from_slice(&mix.to_le_bytes());
    r[24..28].copy_from_slice(&(mix >> 17).to_le_bytes()[..4]);
    let crc = CRC.checksum(&r[..28]);
    r[28..].copy_from_slice(&crc.to_le_bytes());
    r
}

/// How many records of `bytes`, which starts at record `first`, are
/// records `first`, `first + 1`, ... of file `file`, each intact.
pub fn intact_run(file: u32, first: u64, bytes: &[u8]) -> u64 {
    bytes
        .chunks_exact(SIZE)
        .zip(first..)
        .take_while(|(chunk, seq)| *chunk == encode(file, *seq))
        .count() as u64
}
