//! fs-ops' directory listings, the figure per entry: `readdir` (each
//! entry's name) and `readdirplus` (each name with the entry's status
//! before it: `ls -l`'s listing in one operation, NFSv3's READDIRPLUS).
//! Both list in batches of [`BATCH`] entries, VAN's batch too. COSY
//! copies each batch into the app's buffer, as a system call copies to
//! user memory; COSY-FAST lists into the app's buffer in the data region.
//!
//! A listing's answer packs the entries listed and the size of the last
//! batch (`entries * PACK + last`), so that the last batch's bytes can be
//! compared in every configuration.

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fd, Fs};
use conflux_fs_protocol::ops::{self, O_DIRECTORY};
use conflux_fs_protocol::record::{Dirent, DirentPlus};
use conflux_userlib::sys::rdtsc;
use cosy_abi::BuildError;
use cosy_macro::cosy;
use cosybench_core::fs_ops::layout::{
    APP_DATA, APP_PATH, BATCH, DATA, DIRENT, DIRENT_PLUS, PATH, PATH_LEN,
};
use cosybench_core::fs_ops::Op;

use super::Work;

/// What a listing's answer multiplies the entries by (above any batch).
pub const PACK: u64 = 256;
const _: () = assert!(
    (BATCH as u64) < PACK,
    "a batch of entries must stay below PACK"
);

/// A listing's compound by operation `$op` (`readdir` or `readdirplus`)
/// over entries of `$entry` bytes: COSY's (`$fast` = `None`, in the
/// control region) or COSY-FAST's (over data region `$fast`). `cosy!`
/// names an operation by its bare name, so the name is this macro's
/// parameter: the two listings share one loop instead of two copies.
macro_rules! listing {
    ($op:ident, $fast:expr, $path_bytes:expr, $entry:expr) => {{
        let path_bytes: u64 = $path_bytes;
        let entry = u64::from($entry);
        let batch: u32 = BATCH * $entry;
        let batch_bytes = u64::from(batch);
        match $fast {
            Some(region) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH, PATH_LEN);
                let out = buf(region, DATA, batch);
                let fd = open(path, O_DIRECTORY, 0);
                let mut total = 0;
                let mut last = 0;
                loop {
                    let got = $op(fd, out, batch_bytes);
                    if got == 0 {
                        break;
                    }
                    total += got;
                    last = got;
                }
                close(fd);
                total * PACK + last
            })
            .build(),
            None => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(0, PATH, PATH_LEN);
                let app_path = buf(0, APP_PATH, PATH_LEN);
                let out = buf(0, DATA, batch);
                let app = buf(0, APP_DATA, batch);
                copy(path, app_path, path_bytes);
                let fd = open(path, O_DIRECTORY, 0);
                let mut total = 0;
                let mut last = 0;
                loop {
                    let got = $op(fd, out, batch_bytes);
                    if got == 0 {
                        break;
                    }
                    copy(app, out, got * entry);
                    total += got;
                    last = got;
                }
                close(fd);
                total * PACK + last
            })
            .build(),
        }
    }};
}

/// The run as one compound (`fast` as [`listing!`] takes it); exit
/// value: the packed answer.
pub fn compound(work: &Work<'_>, fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    let path_bytes = work.spec.path.len() as u64 + 1;
    match work.spec.op {
        Op::Readdirplus => listing!(readdirplus, fast, path_bytes, DIRENT_PLUS),
        _ => listing!(readdir, fast, path_bytes, DIRENT),
    }
}

/// One IPC per batch through the client library's typed calls
/// (`Fs::readdir`, `Fs::readdir_plus`); the packed answer and the TSC
/// the run took. The last batch is written into the app's buffer `app`
/// as the compounds leave it, after the clock stops.
pub fn van(fs: &mut Fs, work: &Work<'_>, app: &mut [u8]) -> Result<(u64, u64), Error> {
    match work.spec.op {
        Op::Readdirplus => list::<DirentPlus>(fs, work.spec.path, app),
        _ => list::<Dirent>(fs, work.spec.path, app),
    }
}

/// Lists `path` in batches of `E`, one IPC each, and encodes the last
/// batch into `app`, one entry of `E::SIZE` bytes after another.
fn list<E: Listed>(fs: &mut Fs, path: &str, app: &mut [u8]) -> Result<(u64, u64), Error> {
    let start = rdtsc();
    let fd = fs.open(path, O_DIRECTORY, 0)?;
    let mut total = 0;
    let mut last = Vec::new();
    loop {
        let entries = E::next(fs, fd)?;
        if entries.is_empty() {
            break;
        }
        total += entries.len() as u64;
        last = entries;
    }
    fs.close(fd)?;
    let took = rdtsc() - start;
    for (entry, out) in last.iter().zip(app.chunks_mut(E::SIZE)) {
        entry.put(out);
    }
    Ok((total * PACK + last.len() as u64, took))
}

/// An entry a listing returns: how VAN asks for a batch of them and
/// writes one back as the server wrote it.
trait Listed: Sized {
    /// Its bytes on the wire.
    const SIZE: usize;
    /// The next batch of the directory open as `fd` (empty at its end).
    fn next(fs: &mut Fs, fd: Fd) -> Result<Vec<Self>, Error>;
    /// Writes it into `out[..SIZE]`; `out` is a whole entry's room (a
    /// batch fits the app's buffer: the layout asserts it), so the
    /// encoder's "too short" cannot happen.
    fn put(&self, out: &mut [u8]);
}

impl Listed for Dirent {
    const SIZE: usize = Dirent::SIZE;
    fn next(fs: &mut Fs, fd: Fd) -> Result<Vec<Self>, Error> {
        fs.readdir(fd)
    }
    fn put(&self, out: &mut [u8]) {
        self.encode(out);
    }
}

impl Listed for DirentPlus {
    const SIZE: usize = DirentPlus::SIZE;
    fn next(fs: &mut Fs, fd: Fd) -> Result<Vec<Self>, Error> {
        fs.readdir_plus(fd)
    }
    fn put(&self, out: &mut [u8]) {
        self.encode(out);
    }
}
