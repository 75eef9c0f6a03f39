//! grep (FSL-02-01 §4.3): count a fixed string in a file read in 4 KiB
//! chunks. VAN reads every chunk into the app (one IPC each) and searches
//! it there; COSY and COSY-FAST run the read loop as one compound whose
//! search is the server's builtin `SEARCH` data op (cosy-abi: Cosy's
//! user-supplied function, FSL-02-01 §2.6, as a fixed builtin): COSY
//! copies each chunk into the app's buffer and searches it there (in the
//! control region), COSY-FAST reads each chunk into the app's buffer in
//! the data region. Matches across a
//! chunk boundary are not counted, in any configuration.
//!
//! The string is two bytes, so the seeded random files hold a few dozen
//! (about one in 64 KiB): each configuration's count must equal VAN's.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::Error;
use conflux_fs_protocol::ops::{self, O_RDONLY};
use cosy_abi::BuildError;
use cosy_macro::cosy;

use crate::copy::size_name;
use crate::measure::{self, Config};
use crate::plan::Step;
use crate::Bench;
use cosybench_core::layout::{put_path, APP, CHUNK, CHUNK_LEN, NEEDLE, PATH_A, PATH_LEN};

/// What is searched for.
pub const STRING: &[u8] = b"cf";

/// The search loop as one compound, written with `cosy!` from the loop
/// in the module docs: COSY's (`fast` = `None`: in the control region,
/// each chunk copied into the app's buffer and searched there) or
/// COSY-FAST's (each chunk read into the app's buffer in data region
/// `fast`). Exit value: the matches.
pub fn compound(fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    let (len, needle_len) = (u64::from(CHUNK_LEN), STRING.len() as u32);
    match fast {
        Some(region) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(region, PATH_A, PATH_LEN);
            let chunk = buf(region, CHUNK, CHUNK_LEN);
            let needle = buf(region, NEEDLE, needle_len);
            let fd = open(path, O_RDONLY, 0);
            let mut total = 0;
            loop {
                let n = read(fd, chunk, len);
                total += search(chunk, needle, n);
                if n != len {
                    break;
                }
            }
            close(fd);
            total
        })
        .build(),
        None => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH_A, PATH_LEN);
            let chunk = buf(0, CHUNK, CHUNK_LEN);
            let app = buf(0, APP, CHUNK_LEN);
            let needle = buf(0, NEEDLE, needle_len);
            let fd = open(path, O_RDONLY, 0);
            let mut total = 0;
            loop {
                let n = read(fd, chunk, len);
                copy(app, chunk, n);
                total += search(app, needle, n);
                if n != len {
                    break;
                }
            }
            close(fd);
            total
        })
        .build(),
    }
}

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let configs = [Config::Van, Config::Cosy, Config::CosyFast];
    let Some((cosy, fast)) = b.compounds("grep", compound) else {
        return;
    };
    for file in &step.params {
        let size = match b.fs.stat(file) {
            Ok(st) => st.size,
            Err(e) => return b.checks.that(&format!("grep: stat {file}"), false, e),
        };
        let param = size_name(size);
        measure::rounds(
            b,
            "grep",
            &param,
            step.rounds,
            &configs,
            |b, config| match config {
                Config::Van => van(b, file),
                Config::Cosy => in_compound(b, 0, &cosy, file),
                Config::CosyFast => {
                    let data = b.data;
                    in_compound(b, data, &fast, file)
                }
            },
        );
    }
}

/// One IPC per chunk, each chunk copied into the app and searched there.
fn van(b: &mut Bench, file: &str) -> Result<u64, Error> {
    let fd = b.fs.open(file, O_RDONLY, 0)?;
    let mut chunk = vec![0u8; CHUNK_LEN as usize];
    let mut total = 0;
    loop {
        let n = b.fs.read(fd, &mut chunk)?;
        total += count(&chunk[..n], STRING);
        if n != chunk.len() {
            break;
        }
    }
    b.fs.close(fd)?;
    Ok(total)
}

/// Occurrences of `needle` in `hay` that do not overlap, each found
/// leftmost after the one before (as `SEARCH` counts them).
pub fn count(hay: &[u8], needle: &[u8]) -> u64 {
    if needle.is_empty() {
        return 0;
    }
    let (mut at, mut n) = (0, 0);
    while let Some(i) = hay[at..].windows(needle.len()).position(|w| w == needle) {
        n += 1;
        at += i + needle.len();
    }
    n
}

/// The compound over `region` (0: control), path and string put in
/// first; one IPC.
fn in_compound(b: &mut Bench, region: u8, compound: &[u8], file: &str) -> Result<u64, Error> {
    b.run_compound(region, compound, |m| {
        let at = NEEDLE as usize..NEEDLE as usize + STRING.len();
        put_path(m, PATH_A, file) && m.get_mut(at).map(|s| s.copy_from_slice(STRING)).is_some()
    })
}
