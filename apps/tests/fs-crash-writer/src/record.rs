//! One 64-byte log record: `CFXR`, the file's number (u32), the record's
//! sequence number (u64, from 1), 44 bytes that depend on both, and a
//! CRC-32C of the 60 bytes before it. Record `n` of a file lies at byte
//! `(n - 1) * 64`, so a file's valid records are a prefix of it.

/// Bytes per record.
pub const SIZE: usize = 64;
const MAGIC: &[u8; 4] = b"CFXR";
const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// Record `seq` of file `file`.
pub fn encode(file: u32, seq: u64) -> [u8; SIZE] {
    let mut r = [0u8; SIZE];
    r[..4].copy_from_slice(MAGIC);
    r[4..8].copy_from_slice(&file.to_le_bytes());
    r[8..16].copy_from_slice(&seq.to_le_bytes());
    let mut x = (seq << 8 | u64::from(file)).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for b in &mut r[16..60] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let crc = CRC.checksum(&r[..60]);
    r[60..].copy_from_slice(&crc.to_le_bytes());
    r
}

/// How many records at the start of `bytes` are records 1, 2, ... of
/// file `file`, each intact.
pub fn valid_prefix(file: u32, bytes: &[u8]) -> u64 {
    let mut n = 0;
    for chunk in bytes.chunks_exact(SIZE) {
        if chunk != encode(file, n + 1) {
            break;
        }
        n += 1;
    }
    n
}
