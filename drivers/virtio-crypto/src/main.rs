//! virtio-crypto driver task, first increment: a self-test.
//!
//! Brings up the virtio-crypto PCI function the manifest gave it
//! (`[devices.NAME] kind = "virtio-crypto", driver = <this task>`) and
//! checks the device's AES against published known answers (NIST SP
//! 800-38A F.2.1/F.2.2, CBC-AES128) and against the software AES of
//! `conflux-virtio-crypto` (`soft`), CBC and CTR, 16 B to 64 KiB, plus
//! requests the driver must refuse with their named errors. It prints one
//! `ok:`/`CHECK FAILED:` line per check and exits with the failure count.
//!
//! There is no client protocol yet: no other task can ask this driver to
//! encrypt anything. That is the next increment.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

mod device;
mod shared;

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use conflux_userlib::testing::Checks;
use conflux_virtio_crypto::{soft, Algorithm, Direction, Error, IV_LEN};

conflux_userlib::entry!(main);

/// NIST SP 800-38A appendix F: the AES-128 key and the plaintext.
const KEY: [u8; 16] = [
    0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
];
const PLAIN: [u8; 64] = [
    0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
    0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c, 0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
    0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11, 0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
    0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17, 0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10,
];
/// F.2.1 CBC-AES128.Encrypt: IV and ciphertext.
const CBC_IV: [u8; 16] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
];
const CBC_CIPHER: [u8; 64] = [
    0x76, 0x49, 0xab, 0xac, 0x81, 0x19, 0xb2, 0x46, 0xce, 0xe9, 0x8e, 0x9b, 0x12, 0xe9, 0x19, 0x7d,
    0x50, 0x86, 0xcb, 0x9b, 0x50, 0x72, 0x19, 0xee, 0x95, 0xdb, 0x11, 0x3a, 0x91, 0x76, 0x78, 0xb2,
    0x73, 0xbe, 0xd6, 0xb8, 0xe3, 0xc1, 0x74, 0x3b, 0x71, 0x16, 0xe6, 0x9e, 0x22, 0x22, 0x95, 0x16,
    0x3f, 0xf1, 0xca, 0xa1, 0x68, 0x1f, 0xac, 0x09, 0x12, 0x0e, 0xca, 0x30, 0x75, 0x86, 0xe1, 0xa7,
];

/// The sizes compared with the software AES.
const SIZES: [usize; 5] = [16, 64, 1024, 16 * 1024, 64 * 1024];

fn main() {
    let mut dev = match device::open() {
        Ok(dev) => dev,
        Err(e) => {
            conflux_userlib::println!(
                "cannot start the virtio-crypto device: {e}; the driver stops"
            );
            conflux_userlib::sys::exit(1);
        }
    };
    let c = *dev.config();
    conflux_userlib::println!(
        "virtio-crypto at {}: {} data queues, services {:#x}, cipher algorithms {:#x}, key up to {} bytes, max_size {:#x}",
        device::bdf(),
        c.max_dataqueues,
        c.crypto_services,
        c.cipher_algo_l,
        c.max_cipher_key_len,
        c.max_size
    );
    let mut checks = Checks::new();
    known_answers(&mut dev, &mut checks);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for algo in [Algorithm::Cbc, Algorithm::Ctr] {
        for &size in &SIZES {
            against_soft(&mut dev, &mut checks, algo, size, &mut seed);
        }
    }
    refusals(&mut dev, &mut checks);
    // Dropping the driver unsets its queues and (the transport's drop)
    // resets the device before the task ends.
    drop(dev);
    checks.finish();
}

/// NIST SP 800-38A F.2.1 (encrypt) and F.2.2 (decrypt) on the device.
fn known_answers(dev: &mut device::Crypto, checks: &mut Checks) {
    let mut out = [0u8; 64];
    let enc = one_shot(
        dev,
        Algorithm::Cbc,
        &KEY,
        Direction::Encrypt,
        &CBC_IV,
        &PLAIN,
        &mut out,
    );
    checks.that(
        "SP 800-38A F.2.1 CBC-AES128 encrypt on the device",
        enc.is_ok() && out == CBC_CIPHER,
        (enc, out),
    );
    let mut back = [0u8; 64];
    let dec = one_shot(
        dev,
        Algorithm::Cbc,
        &KEY,
        Direction::Decrypt,
        &CBC_IV,
        &CBC_CIPHER,
        &mut back,
    );
    checks.that(
        "SP 800-38A F.2.2 CBC-AES128 decrypt on the device",
        dec.is_ok() && back == PLAIN,
        (dec, back),
    );
}

/// One request in a session of its own, destroyed afterwards.
fn one_shot(
    dev: &mut device::Crypto,
    algo: Algorithm,
    key: &[u8],
    dir: Direction,
    iv: &[u8; IV_LEN],
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), Error> {
    let session = dev.create_session(algo, key, dir)?;
    let result = match dir {
        Direction::Encrypt => dev.encrypt(session, iv, src, dst),
        Direction::Decrypt => dev.decrypt(session, iv, src, dst),
    };
    dev.destroy_session(session)?;
    result
}

fn next(seed: &mut u64) -> u64 {
    // xorshift64*
    *seed ^= *seed >> 12;
    *seed ^= *seed << 25;
    *seed ^= *seed >> 27;
    seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

fn fill(buf: &mut [u8], seed: &mut u64) {
    for chunk in buf.chunks_mut(8) {
        let v = next(seed).to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

/// Encrypts `size` pseudo-random bytes on the device, compares with the
/// software AES, and decrypts back.
fn against_soft(
    dev: &mut device::Crypto,
    checks: &mut Checks,
    algo: Algorithm,
    size: usize,
    seed: &mut u64,
) {
    // IV, source and destination together must fit the device's
    // `max_size`: past it the driver refuses, and the largest size that
    // fits is tested instead.
    let max = dev.limits().max_size;
    let needed = (IV_LEN + 2 * size) as u64;
    let size = if needed > max {
        let src = vec![0u8; size];
        let mut dst = vec![0u8; size];
        let refused = one_shot(dev, algo, &KEY, Direction::Encrypt, &CBC_IV, &src, &mut dst);
        checks.eq(
            &format!("{algo:?} of {size} bytes is over max_size and refused"),
            refused.err(),
            Some(Error::TooLarge { needed, max }),
        );
        (max.saturating_sub(IV_LEN as u64) / 2) as usize / 16 * 16
    } else {
        size
    };
    let mut key = [0u8; 16];
    let mut iv = [0u8; IV_LEN];
    fill(&mut key, seed);
    fill(&mut iv, seed);
    let mut plain = vec![0u8; size];
    fill(&mut plain, seed);
    let mut cipher = vec![0u8; size];
    let enc = one_shot(
        dev,
        algo,
        &key,
        Direction::Encrypt,
        &iv,
        &plain,
        &mut cipher,
    );
    let mut want = plain.clone();
    let soft_r = soft::apply(algo, Direction::Encrypt, &key, &iv, &mut want);
    checks.that(
        &format!("{algo:?} encrypt of {size} bytes matches the software AES"),
        enc.is_ok() && soft_r.is_ok() && cipher == want,
        (enc, soft_r, first_difference(&cipher, &want)),
    );
    let mut back: Vec<u8> = vec![0u8; size];
    let dec = one_shot(dev, algo, &key, Direction::Decrypt, &iv, &cipher, &mut back);
    checks.that(
        &format!("{algo:?} decrypt of {size} bytes gives the plaintext back"),
        dec.is_ok() && back == plain,
        (dec, first_difference(&back, &plain)),
    );
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// Requests the driver refuses before they reach the device, each with
/// its own error; the device still answers a good request afterwards.
fn refusals(dev: &mut device::Crypto, checks: &mut Checks) {
    checks.eq(
        "a 17-byte key is refused",
        dev.create_session(Algorithm::Cbc, &[0u8; 17], Direction::Encrypt)
            .err(),
        Some(Error::BadKeyLength { len: 17 }),
    );
    let session = match dev.create_session(Algorithm::Cbc, &KEY, Direction::Encrypt) {
        Ok(s) => s,
        Err(e) => {
            checks.that("a session for the refusals", false, e);
            return;
        }
    };
    let src = [0u8; 40];
    let mut dst = [0u8; 40];
    checks.eq(
        "CBC of 40 bytes (not whole blocks) is refused",
        dev.encrypt(session, &CBC_IV, &src, &mut dst).err(),
        Some(Error::NotBlockMultiple { len: 40 }),
    );
    checks.eq(
        "source and destination of different lengths are refused",
        dev.encrypt(session, &CBC_IV, &src[..32], &mut dst[..16])
            .err(),
        Some(Error::LengthMismatch { src: 32, dst: 16 }),
    );
    checks.eq(
        "decrypting on an encrypt session is refused",
        dev.decrypt(session, &CBC_IV, &src[..32], &mut dst[..32])
            .err(),
        Some(Error::WrongDirection),
    );
    let mut out = [0u8; 64];
    let again = dev.encrypt(session, &CBC_IV, &PLAIN, &mut out);
    checks.that(
        "a good request after the refused ones",
        again.is_ok() && out == CBC_CIPHER,
        again,
    );
    checks.eq(
        "destroying the session",
        dev.destroy_session(session),
        Ok(()),
    );
    checks.eq(
        "a destroyed session is refused",
        dev.encrypt(session, &CBC_IV, &PLAIN, &mut out).err(),
        Some(Error::UnknownSession),
    );
}
