//! fs-ops' open + read + close of each file of a directory (1 KiB files
//! `f00000`, `f00001`, ... as the manifest generates them; the read asks
//! for 4 KiB, as a program reading a whole small file does). COSY copies
//! each path from the app's table of paths into the operation's buffer
//! and each file's bytes into the app's buffer; COSY-FAST's operations
//! use the app's table and buffer in the data region. (The directory
//! listings are in `lists`.)

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{self, O_RDONLY};
use conflux_userlib::sys::rdtsc;
use cosy_abi::BuildError;
use cosy_macro::cosy;
use cosybench_core::fs_ops::layout::{APP_DATA, BLOCK, DATA, NAMES, NAME_LEN, PATH, PATH_LEN};

use super::Work;

/// The run as one compound, written with `cosy!` from [`van`]'s loops:
/// COSY's (`fast` = `None`, in the control region) or COSY-FAST's (over
/// data region `fast`). Exit value: the bytes read.
pub fn compound(work: &Work<'_>, fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    let n = work.spec.n;
    let name_bytes = work.names.first().map_or(0, |p| p.len() as u64 + 1);
    let (stride, block) = (u64::from(NAME_LEN), u64::from(BLOCK));
    match fast {
        Some(region) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let data = buf(region, DATA, BLOCK);
            let mut at = 0;
            // The i-th file's path in the app's table.
            let name = buf_at(region, at, NAMES, NAME_LEN);
            let mut total = 0;
            for i in 0..n {
                at = i * stride;
                let fd = open(name, O_RDONLY, 0);
                total += read(fd, data, block);
                close(fd);
            }
            total
        })
        .build(),
        None => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let data = buf(0, DATA, BLOCK);
            let app = buf(0, APP_DATA, BLOCK);
            let mut at = 0;
            let name = buf_at(0, at, NAMES, NAME_LEN);
            let mut total = 0;
            for i in 0..n {
                at = i * stride;
                copy(path, name, name_bytes);
                let fd = open(path, O_RDONLY, 0);
                let got = read(fd, data, block);
                copy(app, data, got);
                close(fd);
                total += got;
            }
            total
        })
        .build(),
    }
}

/// One IPC per operation through the client library's typed calls, each
/// file read into the app's buffer `app`; the answer (as the compounds
/// give it) and the TSC the run took.
pub fn van(fs: &mut Fs, work: &Work<'_>, app: &mut [u8]) -> Result<(u64, u64), Error> {
    let mut total = 0;
    let start = rdtsc();
    for name in &work.names {
        let fd = fs.open(name, O_RDONLY, 0)?;
        total += fs.read(fd, app)? as u64;
        fs.close(fd)?;
    }
    Ok((total, rdtsc() - start))
}
