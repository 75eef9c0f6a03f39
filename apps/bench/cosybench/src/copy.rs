//! File copy (the HotOS paper's example): read a file in 4 KiB chunks
//! and write each chunk to a new file, `do { n = read(); write(n) }
//! while n == 4096`. VAN makes two IPCs per chunk and moves each chunk
//! through the app's own buffer; COSY and COSY-FAST run the loop as one
//! compound, COSY copying each chunk into the app's buffer and back out
//! (in the control region), COSY-FAST reading it into and writing it
//! from the app's buffer in the data region.
//!
//! Before it is timed, each configuration's copy is compared with its
//! source byte for byte (VAN reads, untimed).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{self, O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY};
use cosy_abi::BuildError;
use cosy_macro::cosy;

use crate::measure::{self, Config};
use crate::plan::Step;
use crate::Bench;
use cosybench_core::layout::{put_path, APP, CHUNK, CHUNK_LEN, PATH_A, PATH_B, PATH_LEN};

/// Where each copy goes (replaced every run).
const TARGET: &str = "/cosy/copy.out";
const CREATE: u64 = O_WRONLY | O_CREAT | O_TRUNC;

/// The copy loop as one compound, written with `cosy!` from the loop in
/// the module docs: COSY's (`fast` = `None`: in the control region, each
/// chunk read copied into the app's buffer and copied back out of it
/// for the write, as Cosy's `read` and `write` into a user buffer did)
/// or COSY-FAST's (the chunk read into and written from the app's
/// buffer in data region `fast`). Exit value: the bytes written.
pub fn compound(fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    let len = u64::from(CHUNK_LEN);
    match fast {
        Some(region) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let source = buf(region, PATH_A, PATH_LEN);
            let target = buf(region, PATH_B, PATH_LEN);
            let chunk = buf(region, CHUNK, CHUNK_LEN);
            let from = open(source, O_RDONLY, 0);
            let to = open(target, CREATE, 0o644);
            let mut total = 0;
            loop {
                let n = read(from, chunk, len);
                total += write(to, chunk, n);
                if n != len {
                    break;
                }
            }
            close(from);
            close(to);
            total
        })
        .build(),
        None => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let source = buf(0, PATH_A, PATH_LEN);
            let target = buf(0, PATH_B, PATH_LEN);
            let chunk = buf(0, CHUNK, CHUNK_LEN);
            let app = buf(0, APP, CHUNK_LEN);
            let from = open(source, O_RDONLY, 0);
            let to = open(target, CREATE, 0o644);
            let mut total = 0;
            loop {
                let n = read(from, chunk, len);
                copy(app, chunk, n);
                copy(chunk, app, n);
                total += write(to, chunk, n);
                if n != len {
                    break;
                }
            }
            close(from);
            close(to);
            total
        })
        .build(),
    }
}

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let configs = [Config::Van, Config::Cosy, Config::CosyFast];
    let Some((cosy, fast)) = b.compounds("copy", compound) else {
        return;
    };
    for source in &step.params {
        let size = match b.fs.stat(source) {
            Ok(st) => st.size,
            Err(e) => return b.checks.that(&format!("copy: stat {source}"), false, e),
        };
        let mut one = |b: &mut Bench, config| match config {
            Config::Van => van(&mut b.fs, source),
            Config::Cosy => in_compound(b, 0, &cosy, source),
            Config::CosyFast => {
                let data = b.data;
                in_compound(b, data, &fast, source)
            }
        };
        for config in configs {
            let copied = one(b, config);
            let same = copied
                .map_err(|e| format!("{e}"))
                .and_then(|_| same(&mut b.fs, source));
            b.checks.eq(
                &format!("copy {source} {config:?}: the copy equals its source"),
                same,
                Ok(size),
            );
        }
        let param = size_name(size);
        measure::rounds(b, "copy", &param, step.rounds, &configs, &mut one);
    }
}

/// Two IPCs per chunk, the chunk in the app's buffer; the bytes written.
fn van(fs: &mut Fs, source: &str) -> Result<u64, Error> {
    let from = fs.open(source, O_RDONLY, 0)?;
    let to = fs.open(TARGET, CREATE, 0o644)?;
    let mut chunk = vec![0u8; CHUNK_LEN as usize];
    let mut total = 0;
    loop {
        let n = fs.read(from, &mut chunk)?;
        total += fs.write(to, &chunk[..n])? as u64;
        if n != chunk.len() {
            break;
        }
    }
    fs.close(from)?;
    fs.close(to)?;
    Ok(total)
}

/// The compound over `region` (0: control), paths put in first; one IPC.
fn in_compound(b: &mut Bench, region: u8, compound: &[u8], source: &str) -> Result<u64, Error> {
    b.run_compound(region, compound, |m| {
        put_path(m, PATH_A, source) && put_path(m, PATH_B, TARGET)
    })
}

/// Whether the copy holds its source's bytes: its length if so.
fn same(fs: &mut Fs, source: &str) -> Result<u64, String> {
    let fail = |e: Error| format!("{e}");
    let (a, z) = (
        fs.open(source, O_RDONLY, 0).map_err(fail)?,
        fs.open(TARGET, O_RDONLY, 0).map_err(fail)?,
    );
    let (mut x, mut y) = (vec![0u8; 65536], vec![0u8; 65536]);
    let mut at = 0u64;
    let result = loop {
        let n = fs.read(a, &mut x).map_err(fail)?;
        let m = fs.read(z, &mut y).map_err(fail)?;
        if n != m || x[..n] != y[..m] {
            break Err(format!(
                "the copy differs from its source in the 64 KiB from byte {at}"
            ));
        }
        at += n as u64;
        if n < x.len() {
            break Ok(at);
        }
    };
    fs.close(a).map_err(fail)?;
    fs.close(z).map_err(fail)?;
    result
}

/// A size as a parameter: `16MiB`, `128KiB`, or bytes.
pub fn size_name(size: u64) -> String {
    match size {
        s if s >= 1 << 20 && s % (1 << 20) == 0 => format!("{}MiB", s >> 20),
        s if s >= 1 << 10 && s % (1 << 10) == 0 => format!("{}KiB", s >> 10),
        s => format!("{s}B"),
    }
}
