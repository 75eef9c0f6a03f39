//! CRC-32C (Castagnoli), the checksum of the `CRC32C` op.
//!
//! The `crc` crate computes it (`CRC_32_ISCSI`, no_std, no unsafe), slicing
//! by 16 bytes: on the host that measured 0.18 ns per byte against 1.9 for
//! the byte-at-a-time table this replaced, for a 16 KiB table built at
//! compile time. What this module adds is the op's contract: continuing
//! from the CRC of the bytes before.

use crc::{Crc, Table, CRC_32_ISCSI};

const CASTAGNOLI: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);

/// Continues a CRC-32C: `seed` is the CRC of the bytes before `data` (0
/// for none), so `crc32c(crc32c(0, a), b) == crc32c(0, a ++ b)`.
pub fn crc32c(seed: u32, data: &[u8]) -> u32 {
    // The finished CRC is the register inverted (the algorithm's xorout);
    // undo that to resume, and reflect it because `digest_with_initial`
    // reflects its argument for a reflected algorithm like this one.
    let mut digest = CASTAGNOLI.digest_with_initial((!seed).reverse_bits());
    digest.update(data);
    digest.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        // The check value from the CRC catalogue, and RFC 3720 B.4.
        assert_eq!(crc32c(0, b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(0, &[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(0, &[0xFFu8; 32]), 0x62A8_AB43);
        assert_eq!(crc32c(0, b""), 0);
    }

    #[test]
    fn continues_across_chunks() {
        assert_eq!(crc32c(crc32c(0, b"1234"), b"56789"), 0xE306_9283);
        // Across the 16-byte stride of the table, at every split point.
        let data: [u8; 100] = core::array::from_fn(|i| (i * 37 + 11) as u8);
        let whole = crc32c(0, &data);
        for split in 0..=data.len() {
            let (a, b) = data.split_at(split);
            assert_eq!(crc32c(crc32c(0, a), b), whole, "split at {split}");
        }
    }

    #[test]
    fn an_empty_continuation_keeps_the_seed() {
        assert_eq!(crc32c(0xE306_9283, b""), 0xE306_9283);
    }
}
