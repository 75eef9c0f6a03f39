//! AES-CBC and AES-CTR of one flow buffer (RustCrypto `aes`, `cbc`,
//! `ctr`; no_std, no allocation).
//!
//! Every buffer is ciphered on its own with the spec's IV (CBC) or
//! initial counter block (CTR), so buffers stay independent and any
//! replica, device or software, can take any of them. CTR is what QEMU's
//! virtio-crypto builtin backend does: the IV is the whole counter block,
//! incremented as one 128-bit big-endian number. CBC takes whole 16-byte
//! blocks only; CTR any length.

use aes::cipher::consts::U16;
use aes::cipher::{
    BlockCipher, BlockDecryptMut, BlockEncryptMut, BlockSizeUser, KeyInit, KeyIvInit, StreamCipher,
};
use aes::{Aes128, Aes192, Aes256};
use conflux_flow_protocol::stage::{Cipher, Direction, Mode};
use core::fmt;

/// AES's block.
pub const BLOCK: usize = 16;

/// Why a buffer was not ciphered (the stage gives the buffer up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipherError {
    /// CBC of a length that is not whole blocks.
    NotBlockMultiple { len: usize },
    /// The output buffer is smaller than the input.
    NoRoom { len: usize, room: usize },
}

impl fmt::Display for CipherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NotBlockMultiple { len } => write!(
                f,
                "AES-CBC of a {len}-byte buffer: CBC takes whole 16-byte blocks; give the flow a buffer size that is a multiple of 16"
            ),
            Self::NoRoom { len, room } => write!(
                f,
                "a {len}-byte buffer does not fit the {room}-byte output buffer: the output edge's buffers are too small"
            ),
        }
    }
}

/// Ciphers `src` into `dst` as `spec` says; the length written (that of
/// `src`).
pub fn apply(spec: &Cipher, src: &[u8], dst: &mut [u8]) -> Result<usize, CipherError> {
    let len = src.len();
    if spec.mode == Mode::Cbc && !len.is_multiple_of(BLOCK) {
        return Err(CipherError::NotBlockMultiple { len });
    }
    let room = dst.len();
    let out = dst
        .get_mut(..len)
        .ok_or(CipherError::NoRoom { len, room })?;
    out.copy_from_slice(src);
    in_place(spec, out);
    Ok(len)
}

/// Ciphers `buf` in place; CBC's length was checked by the caller.
fn in_place(spec: &Cipher, buf: &mut [u8]) {
    let key = spec.key.as_bytes();
    // `Key` holds 16, 24 or 32 bytes, nothing else.
    match key.len() {
        16 => with::<Aes128>(spec, key, buf),
        24 => with::<Aes192>(spec, key, buf),
        _ => with::<Aes256>(spec, key, buf),
    }
}

fn with<C>(spec: &Cipher, key: &[u8], buf: &mut [u8])
where
    C: BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncryptMut + BlockDecryptMut + KeyInit,
{
    let iv = &spec.iv[..];
    // The key's length is `C`'s by the match in `in_place`, and the IV is
    // one block, so the constructors below cannot refuse them.
    match (spec.mode, spec.direction) {
        (Mode::Ctr, _) => {
            if let Ok(mut c) = ctr::Ctr128BE::<C>::new_from_slices(key, iv) {
                c.apply_keystream(buf);
            }
        }
        (Mode::Cbc, Direction::Encrypt) => {
            if let Ok(mut c) = cbc::Encryptor::<C>::new_from_slices(key, iv) {
                for block in buf.chunks_exact_mut(BLOCK) {
                    c.encrypt_block_mut(block.into());
                }
            }
        }
        (Mode::Cbc, Direction::Decrypt) => {
            if let Ok(mut c) = cbc::Decryptor::<C>::new_from_slices(key, iv) {
                for block in buf.chunks_exact_mut(BLOCK) {
                    c.decrypt_block_mut(block.into());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
