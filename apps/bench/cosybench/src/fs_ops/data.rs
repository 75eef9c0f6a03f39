//! fs-ops' data operations on one cached file: 4 KiB `pread`s and
//! `pwrite`s at block after block of it (block `i % blocks` for the
//! `i`-th, so a run of more operations than the file has blocks goes
//! round it again), and sequential 64 KiB `read`s from its start. The
//! file is opened and closed once per run, a cost the N operations
//! share. COSY copies each block read from the operation's buffer into
//! the app's, and each block to write from the app's buffer into the
//! operation's first; COSY-FAST reads into and writes from the app's
//! buffer in the data region.

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{self, O_RDONLY, O_WRONLY};
use conflux_userlib::sys::rdtsc;
use cosy_abi::BuildError;
use cosy_macro::cosy;
use cosybench_core::fs_ops::layout::{APP_DATA, APP_PATH, BLOCK, DATA, DATA_LEN, PATH, PATH_LEN};
use cosybench_core::fs_ops::Op;

use super::Work;

/// The run as one compound, written with `cosy!` from [`van`]'s loops:
/// COSY's (`fast` = `None`, in the control region) or COSY-FAST's (over
/// data region `fast`). Exit value: the bytes read or written.
pub fn compound(work: &Work<'_>, fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    let (n, blocks) = (work.spec.n, work.blocks);
    let path_bytes = work.spec.path.len() as u64 + 1;
    let (block, chunk) = (u64::from(BLOCK), u64::from(DATA_LEN));
    match (work.spec.op, fast) {
        (Op::Pread, Some(region)) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(region, PATH, PATH_LEN);
            let data = buf(region, DATA, BLOCK);
            let fd = open(path, O_RDONLY, 0);
            let mut total = 0;
            for i in 0..n {
                total += pread(fd, data, block, i % blocks * block);
            }
            close(fd);
            total
        })
        .build(),
        (Op::Pread, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let app_path = buf(0, APP_PATH, PATH_LEN);
            let data = buf(0, DATA, BLOCK);
            let app = buf(0, APP_DATA, BLOCK);
            copy(path, app_path, path_bytes);
            let fd = open(path, O_RDONLY, 0);
            let mut total = 0;
            for i in 0..n {
                let got = pread(fd, data, block, i % blocks * block);
                copy(app, data, got);
                total += got;
            }
            close(fd);
            total
        })
        .build(),
        (Op::Pwrite, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH, PATH_LEN);
                let data = buf(region, DATA, BLOCK);
                let fd = open(path, O_WRONLY, 0);
                let mut total = 0;
                for i in 0..n {
                    total += pwrite(fd, data, block, i % blocks * block);
                }
                close(fd);
                total
            })
            .build()
        }
        (Op::Pwrite, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let app_path = buf(0, APP_PATH, PATH_LEN);
            let data = buf(0, DATA, BLOCK);
            let app = buf(0, APP_DATA, BLOCK);
            copy(path, app_path, path_bytes);
            let fd = open(path, O_WRONLY, 0);
            let mut total = 0;
            for i in 0..n {
                copy(data, app, block);
                total += pwrite(fd, data, block, i % blocks * block);
            }
            close(fd);
            total
        })
        .build(),
        (_, Some(region)) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(region, PATH, PATH_LEN);
            let data = buf(region, DATA, DATA_LEN);
            let fd = open(path, O_RDONLY, 0);
            let mut total = 0;
            for _ in 0..n {
                total += read(fd, data, chunk);
            }
            close(fd);
            total
        })
        .build(),
        (_, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let app_path = buf(0, APP_PATH, PATH_LEN);
            let data = buf(0, DATA, DATA_LEN);
            let app = buf(0, APP_DATA, DATA_LEN);
            copy(path, app_path, path_bytes);
            let fd = open(path, O_RDONLY, 0);
            let mut total = 0;
            for _ in 0..n {
                let got = read(fd, data, chunk);
                copy(app, data, got);
                total += got;
            }
            close(fd);
            total
        })
        .build(),
    }
}

/// One IPC per operation through the client library's typed calls, the
/// data in the app's buffer at `data` of `mine` (which the client library
/// copies to or from the control region); the bytes moved and the TSC
/// the run took.
pub fn van(
    fs: &mut Fs,
    work: &Work<'_>,
    mine: &mut [u8],
    data: usize,
) -> Result<(u64, u64), Error> {
    let (n, blocks, path) = (work.spec.n, work.blocks, work.spec.path);
    let block = u64::from(BLOCK);
    let mut total = 0;
    let start = rdtsc();
    match work.spec.op {
        Op::Pread => {
            let fd = fs.open(path, O_RDONLY, 0)?;
            let app = &mut mine[data..data + BLOCK as usize];
            for i in 0..n {
                total += fs.pread(fd, app, i % blocks * block)? as u64;
            }
            fs.close(fd)?;
        }
        Op::Pwrite => {
            let fd = fs.open(path, O_WRONLY, 0)?;
            let app = &mine[data..data + BLOCK as usize];
            for i in 0..n {
                total += fs.pwrite(fd, app, i % blocks * block)? as u64;
            }
            fs.close(fd)?;
        }
        _ => {
            let fd = fs.open(path, O_RDONLY, 0)?;
            let app = &mut mine[data..data + DATA_LEN as usize];
            for _ in 0..n {
                total += fs.read(fd, app)? as u64;
            }
            fs.close(fd)?;
        }
    }
    Ok((total, rdtsc() - start))
}
