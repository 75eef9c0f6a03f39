//! fs-ops' operations that move no file data: the null request (`nop`),
//! `stat` of one file and `open` + `close` of one file, N of them per
//! run. COSY copies the path from the app's buffer into the operation's
//! before each call (only its bytes and the NUL, as a system call's
//! `strncpy_from_user` does) and the stat record back out after each
//! `stat`; COSY-FAST's calls use the app's path and record in the data
//! region. The null request has no COSY-FAST (no data), as the null loop
//! has none.

use conflux_fs_protocol::ops::{self, O_RDONLY};
use conflux_fs_protocol::record::Stat;
use conflux_userlib::sys::rdtsc;
use cosy_abi::BuildError;
use cosy_macro::cosy;
use cosybench_core::fs_ops::layout::{APP_PATH, APP_RECORD, PATH, PATH_LEN, RECORD, RECORD_LEN};
use cosybench_core::fs_ops::Op;

use alloc::vec::Vec;
use conflux_fs_client::{Error, Fs};

use super::Work;

/// The run as one compound, written with `cosy!`: COSY's (`fast` =
/// `None`, in the control region) or COSY-FAST's (over data region
/// `fast`). Exit value: N, reached only if every call succeeded
/// (`#[fail_fast]`).
pub fn compound(work: &Work<'_>, fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    let n = work.spec.n;
    let path_bytes = work.spec.path.len() as u64 + 1;
    let record_bytes = u64::from(RECORD_LEN);
    match (work.spec.op, fast) {
        (Op::Stat, Some(region)) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(region, PATH, PATH_LEN);
            let record = buf(region, RECORD, RECORD_LEN);
            for _ in 0..n {
                stat(path, record);
            }
            n
        })
        .build(),
        (Op::Stat, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let app_path = buf(0, APP_PATH, PATH_LEN);
            let record = buf(0, RECORD, RECORD_LEN);
            let app_record = buf(0, APP_RECORD, RECORD_LEN);
            for _ in 0..n {
                copy(path, app_path, path_bytes);
                stat(path, record);
                copy(app_record, record, record_bytes);
            }
            n
        })
        .build(),
        (Op::OpenClose, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH, PATH_LEN);
                for _ in 0..n {
                    let fd = open(path, O_RDONLY, 0);
                    close(fd);
                }
                n
            })
            .build()
        }
        (Op::OpenClose, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let app_path = buf(0, APP_PATH, PATH_LEN);
            for _ in 0..n {
                copy(path, app_path, path_bytes);
                let fd = open(path, O_RDONLY, 0);
                close(fd);
            }
            n
        })
        .build(),
        // The null request, in either configuration: nothing to copy.
        _ => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            for _ in 0..n {
                nop();
            }
            n
        })
        .build(),
    }
}

/// N IPCs through the client library's typed calls; the calls that
/// succeeded (a `nop` must return 0) and the TSC they took. `stat`'s last
/// record goes into the app's record buffer in `mine` (after the clock
/// stops), where the compounds' lands.
pub fn van(
    fs: &mut Fs,
    work: &Work<'_>,
    mine: &mut [u8],
    record: usize,
) -> Result<(u64, u64), Error> {
    let (n, path) = (work.spec.n, work.spec.path);
    let mut done = 0;
    let mut last = None;
    let start = rdtsc();
    match work.spec.op {
        Op::Stat => {
            for _ in 0..n {
                last = Some(fs.stat(path)?);
                done += 1;
            }
        }
        Op::OpenClose => {
            for _ in 0..n {
                let fd = fs.open(path, O_RDONLY, 0)?;
                fs.close(fd)?;
                done += 1;
            }
        }
        _ => {
            for _ in 0..n {
                if fs.call(ops::NOP, &[])? == 0 {
                    done += 1;
                }
            }
        }
    }
    let took = rdtsc() - start;
    if let Some(st) = last {
        Stat::encode(&st, &mut mine[record..]);
    }
    Ok((done, took))
}
