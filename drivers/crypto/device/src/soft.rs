//! Software AES-CBC and AES-CTR (RustCrypto `aes`, `cbc`, `ctr`), to check
//! what the device returns: the in-guest test encrypts with the device
//! and compares with this, so a device that answers OK with wrong bytes
//! is caught. no_std, no allocation; behind the `soft` feature.
//!
//! CTR here is what QEMU's builtin backend does: the IV is the whole
//! initial counter block, incremented as one 128-bit big-endian number.

use aes::cipher::consts::U16;
use aes::cipher::{
    BlockCipher, BlockDecryptMut, BlockEncryptMut, BlockSizeUser, KeyInit, KeyIvInit, StreamCipher,
};
use aes::{Aes128, Aes192, Aes256};

use crate::error::Error;
use crate::protocol::{Algorithm, Direction, BLOCK_LEN, IV_LEN};

/// Encrypts or decrypts `buf` in place with `algo`, as a device session
/// of direction `dir` with `key` and `iv` would. CTR is its own inverse;
/// CBC takes whole blocks only.
pub fn apply(
    algo: Algorithm,
    dir: Direction,
    key: &[u8],
    iv: &[u8; IV_LEN],
    buf: &mut [u8],
) -> Result<(), Error> {
    if algo == Algorithm::Cbc && !buf.len().is_multiple_of(BLOCK_LEN) {
        return Err(Error::NotBlockMultiple { len: buf.len() });
    }
    match key.len() {
        16 => with_cipher::<Aes128>(algo, dir, key, iv, buf),
        24 => with_cipher::<Aes192>(algo, dir, key, iv, buf),
        32 => with_cipher::<Aes256>(algo, dir, key, iv, buf),
        len => Err(Error::BadKeyLength { len }),
    }
}

fn with_cipher<C>(
    algo: Algorithm,
    dir: Direction,
    key: &[u8],
    iv: &[u8; IV_LEN],
    buf: &mut [u8],
) -> Result<(), Error>
where
    C: BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncryptMut + BlockDecryptMut + KeyInit,
{
    let bad_key = |_| Error::BadKeyLength { len: key.len() };
    match (algo, dir) {
        (Algorithm::Ctr, _) => {
            let mut c = ctr::Ctr128BE::<C>::new_from_slices(key, iv).map_err(bad_key)?;
            c.apply_keystream(buf);
        }
        (Algorithm::Cbc, Direction::Encrypt) => {
            let mut c = cbc::Encryptor::<C>::new_from_slices(key, iv).map_err(bad_key)?;
            for block in buf.chunks_exact_mut(BLOCK_LEN) {
                c.encrypt_block_mut(block.into());
            }
        }
        (Algorithm::Cbc, Direction::Decrypt) => {
            let mut c = cbc::Decryptor::<C>::new_from_slices(key, iv).map_err(bad_key)?;
            for block in buf.chunks_exact_mut(BLOCK_LEN) {
                c.decrypt_block_mut(block.into());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses hex, for the test vectors.
    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let s: alloc::vec::Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        assert_eq!(s.len(), 2 * N);
        let mut out = [0u8; N];
        for (o, pair) in out.iter_mut().zip(s.chunks(2)) {
            *o = u8::from_str_radix(core::str::from_utf8(pair).unwrap(), 16).unwrap();
        }
        out
    }

    // NIST SP 800-38A, appendix F: the AES-128 key and the plaintext
    // shared by every example.
    const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";
    const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
                         30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710";

    #[test]
    fn sp800_38a_f21_cbc_aes128_encrypt() {
        let key: [u8; 16] = hex(KEY);
        let iv: [u8; 16] = hex("000102030405060708090a0b0c0d0e0f");
        let want: [u8; 64] = hex(
            "7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
             73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7",
        );
        let mut buf: [u8; 64] = hex(PLAIN);
        apply(Algorithm::Cbc, Direction::Encrypt, &key, &iv, &mut buf).unwrap();
        assert_eq!(buf, want);
        // F.2.2 is the same vector decrypted
        apply(Algorithm::Cbc, Direction::Decrypt, &key, &iv, &mut buf).unwrap();
        assert_eq!(buf, hex::<64>(PLAIN));
    }

    #[test]
    fn sp800_38a_f51_ctr_aes128_encrypt() {
        let key: [u8; 16] = hex(KEY);
        let counter: [u8; 16] = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
        let want: [u8; 64] = hex(
            "874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff
             5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee",
        );
        let mut buf: [u8; 64] = hex(PLAIN);
        apply(Algorithm::Ctr, Direction::Encrypt, &key, &counter, &mut buf).unwrap();
        assert_eq!(buf, want);
        // a partial last block is the keystream's prefix
        let mut part: [u8; 64] = hex(PLAIN);
        apply(
            Algorithm::Ctr,
            Direction::Encrypt,
            &key,
            &counter,
            &mut part[..20],
        )
        .unwrap();
        assert_eq!(part[..20], want[..20]);
    }

    #[test]
    fn refuses_what_the_device_would() {
        let mut buf = [0u8; 20];
        let iv = [0u8; 16];
        assert_eq!(
            apply(Algorithm::Cbc, Direction::Encrypt, &[0; 16], &iv, &mut buf),
            Err(Error::NotBlockMultiple { len: 20 })
        );
        assert_eq!(
            apply(Algorithm::Ctr, Direction::Encrypt, &[0; 17], &iv, &mut buf),
            Err(Error::BadKeyLength { len: 17 })
        );
        for key_len in [24, 32] {
            let key = [1u8; 32];
            let mut b = [5u8; 32];
            apply(
                Algorithm::Cbc,
                Direction::Encrypt,
                &key[..key_len],
                &iv,
                &mut b,
            )
            .unwrap();
            apply(
                Algorithm::Cbc,
                Direction::Decrypt,
                &key[..key_len],
                &iv,
                &mut b,
            )
            .unwrap();
            assert_eq!(b, [5u8; 32]);
        }
    }
}
