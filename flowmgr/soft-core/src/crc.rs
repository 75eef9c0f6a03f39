//! The crc32c transformer: the input's bytes, then their CRC-32C
//! (Castagnoli), 4 bytes little-endian, so the buffer grows by 4.
//! `flowmgr` gives the output edge buffers 4 bytes larger than the input's.

use conflux_flow_protocol::record::crc32c;

/// Bytes the transformer adds.
pub const TRAILER: usize = 4;

/// Writes `src` and its CRC-32C into `dst`; the length written, or `None`
/// if `dst` has no room for both.
pub fn append(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let n = src.len();
    let out = dst.get_mut(..n.checked_add(TRAILER)?)?;
    out[..n].copy_from_slice(src);
    out[n..].copy_from_slice(&crc32c(src).to_le_bytes());
    Some(n + TRAILER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_the_castagnoli_check_value() {
        let mut dst = [0u8; 16];
        assert_eq!(append(b"123456789", &mut dst), Some(13));
        assert_eq!(&dst[..9], b"123456789");
        // CRC-32C's check value 0xe3069283, little-endian.
        assert_eq!(dst[9..13], [0x83, 0x92, 0x06, 0xe3]);
    }

    #[test]
    fn refuses_a_destination_without_room_for_the_trailer() {
        let mut dst = [0u8; 12];
        assert_eq!(append(b"123456789", &mut dst), None);
        assert_eq!(dst, [0; 12], "nothing written when refused");
        assert_eq!(append(b"", &mut [0u8; 4]), Some(4));
    }
}
