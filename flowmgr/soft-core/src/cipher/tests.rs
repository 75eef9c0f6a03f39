//! Known answers from NIST SP 800-38A appendix F (every key size, CBC and
//! CTR), round trips, and the refusals.

use super::*;
use conflux_flow_protocol::stage::{Engine, Key};

/// Parses hex (whitespace ignored), for the test vectors.
fn hex(s: &str) -> Vec<u8> {
    let s: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    s.chunks(2)
        .map(|p| u8::from_str_radix(core::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

fn spec(mode: Mode, direction: Direction, key: &str, iv: &str) -> Cipher {
    Cipher {
        mode,
        direction,
        engine: Engine::Software,
        key: Key::new(&hex(key)).unwrap(),
        iv: hex(iv).try_into().unwrap(),
    }
}

// The plaintext every example of appendix F shares.
const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
                     30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710";
const KEY128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const KEY192: &str = "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b";
const KEY256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const CBC_IV: &str = "000102030405060708090a0b0c0d0e0f";
const CTR_IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// Encrypts PLAIN, checks the known answer, decrypts it back.
fn known_answer(mode: Mode, key: &str, iv: &str, cipher_text: &str) {
    let plain = hex(PLAIN);
    let want = hex(cipher_text);
    let mut out = vec![0u8; 80];
    let n = apply(&spec(mode, Direction::Encrypt, key, iv), &plain, &mut out).unwrap();
    assert_eq!(n, 64);
    assert_eq!(out[..64], want[..], "{mode:?} encrypt");
    assert_eq!(out[64..], [0; 16], "nothing written past the length");
    let mut back = vec![0u8; 64];
    apply(
        &spec(mode, Direction::Decrypt, key, iv),
        &out[..64],
        &mut back,
    )
    .unwrap();
    assert_eq!(back, plain, "{mode:?} decrypt");
}

#[test]
fn f21_f22_cbc_aes128() {
    known_answer(
        Mode::Cbc,
        KEY128,
        CBC_IV,
        "7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
         73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7",
    );
}

#[test]
fn f23_f24_cbc_aes192() {
    known_answer(
        Mode::Cbc,
        KEY192,
        CBC_IV,
        "4f021db243bc633d7178183a9fa071e8 b4d9ada9ad7dedf4e5e738763f69145a
         571b242012fb7ae07fa9baac3df102e0 08b0e27988598881d920a9e64f5615cd",
    );
}

#[test]
fn f25_f26_cbc_aes256() {
    known_answer(
        Mode::Cbc,
        KEY256,
        CBC_IV,
        "f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d
         39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b",
    );
}

#[test]
fn f51_f52_ctr_aes128() {
    known_answer(
        Mode::Ctr,
        KEY128,
        CTR_IV,
        "874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff
         5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee",
    );
}

#[test]
fn f53_f54_ctr_aes192() {
    known_answer(
        Mode::Ctr,
        KEY192,
        CTR_IV,
        "1abc932417521ca24f2b0459fe7e6e0b 090339ec0aa6faefd5ccc2c6f4ce8e94
         1e36b26bd1ebc670d1bd1d665620abf7 4f78a7f6d29809585a97daec58c6b050",
    );
}

#[test]
fn f55_f56_ctr_aes256() {
    known_answer(
        Mode::Ctr,
        KEY256,
        CTR_IV,
        "601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5
         2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6",
    );
}

#[test]
fn each_buffer_starts_from_the_iv() {
    // Two buffers ciphered one after the other give the same bytes for
    // the same input: no chaining state survives a buffer.
    let s = spec(Mode::Cbc, Direction::Encrypt, KEY256, CBC_IV);
    let plain = hex(PLAIN);
    let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
    apply(&s, &plain, &mut a).unwrap();
    apply(&s, &plain, &mut b).unwrap();
    assert_eq!(a, b);
}

#[test]
fn round_trips_of_many_lengths() {
    for mode in [Mode::Cbc, Mode::Ctr] {
        for key in [KEY128, KEY192, KEY256] {
            for len in [16, 32, 512, 1024, 4096] {
                let plain: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                let mut ct = vec![0u8; len];
                let mut back = vec![0u8; len];
                apply(
                    &spec(mode, Direction::Encrypt, key, CBC_IV),
                    &plain,
                    &mut ct,
                )
                .unwrap();
                assert_ne!(ct, plain);
                apply(&spec(mode, Direction::Decrypt, key, CBC_IV), &ct, &mut back).unwrap();
                assert_eq!(back, plain, "{mode:?} {len}");
            }
        }
    }
}

#[test]
fn ctr_takes_any_length_cbc_whole_blocks() {
    let plain = hex(PLAIN);
    let mut out = [0u8; 64];
    let ctr = spec(Mode::Ctr, Direction::Encrypt, KEY128, CTR_IV);
    assert_eq!(apply(&ctr, &plain[..20], &mut out), Ok(20));
    let want = hex("874d6191b620e3261bef6864990db6ce 9806f66b");
    assert_eq!(out[..20], want[..]);
    let cbc = spec(Mode::Cbc, Direction::Encrypt, KEY128, CBC_IV);
    assert_eq!(
        apply(&cbc, &plain[..20], &mut out),
        Err(CipherError::NotBlockMultiple { len: 20 })
    );
}

#[test]
fn refuses_an_output_smaller_than_the_input() {
    let plain = hex(PLAIN);
    let mut out = [0u8; 48];
    let s = spec(Mode::Ctr, Direction::Encrypt, KEY128, CTR_IV);
    assert_eq!(
        apply(&s, &plain, &mut out),
        Err(CipherError::NoRoom { len: 64, room: 48 })
    );
    assert_eq!(out, [0; 48], "nothing written when refused");
}
