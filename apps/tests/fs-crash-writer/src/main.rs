//! Crash-test writer (`qemu/tests/fs-crash.toml`). Each boot:
//!
//! 1. For every log file `/crash/logN`, finds how many records at its
//!    start are intact (`record::valid_prefix`), cuts off anything after
//!    them (a record torn by the crash), and prints `FOUND N count`
//!    (`conflux_abi::durable`). The runner, which saw the previous boot's
//!    `DURABLE` lines before it killed QEMU, fails the test if a file holds
//!    fewer records than were reported durable.
//! 2. Prints `writing` (the runner's cue to start the kill timer), then
//!    appends records in small batches, each followed by an fsync, and
//!    prints `DURABLE N seq` once the fsync has returned. Log 0 grows by
//!    its writes (each goes through the file system at once); logs 1 and
//!    2 are first extended with `ftruncate` in steps of [`PREALLOC`]
//!    bytes, so their records overwrite zeros inside the file: they wait
//!    dirty in the server's page cache until the fsync writes them back,
//!    which is what a crash must not lose.
//! 3. If not killed: shuts the file server down (clean unmount) and ends.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod record;

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use conflux_abi::durable::DurableLine;
use conflux_fs_client::{Error, Fd, Fs};
use conflux_fs_protocol::ops::{O_CREAT, O_RDWR};
use conflux_fs_protocol::FsError;
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Log files written in turn.
const FILES: u32 = 3;
/// Bytes logs 1 and 2 are extended by when a record would pass their end.
const PREALLOC: u64 = 16 * 1024;
/// Fsynced batches per boot: longer than the runner's largest kill delay,
/// and enough to take the 4 MiB journal round its ring.
const BATCHES: u32 = 500;

fn main() {
    let mut fs = match Fs::connect(conflux_fs_client::manifest_caps!()) {
        Ok(fs) => fs,
        Err(e) => fail("connect to the file server", e),
    };
    match fs.mkdir("/crash", 0o755) {
        Ok(()) | Err(Error::Fs(FsError::Exists)) => {}
        Err(e) => fail("mkdir /crash", e),
    }
    let mut logs = Vec::new();
    for file in 0..FILES {
        logs.push(open_log(&mut fs, file));
    }
    println!("writing {BATCHES} batches of records, each fsynced");
    let mut written = 0;
    for batch in 0..BATCHES {
        let file = batch % FILES;
        let (fd, next, end) = &mut logs[file as usize];
        let count = 1 + u64::from(batch % 3);
        for _ in 0..count {
            let at = (*next - 1) * record::SIZE as u64;
            if file != 0 && at + record::SIZE as u64 > *end {
                *end += PREALLOC;
                if let Err(e) = fs.ftruncate(*fd, *end) {
                    fail("extend a log file with zeros", e);
                }
            }
            if let Err(e) = fs.pwrite(*fd, &record::encode(file, *next), at) {
                fail("append a record", e);
            }
            *next += 1;
        }
        if let Err(e) = fs.fsync(*fd) {
            fail("fsync a log file", e);
        }
        written += count;
        println!(
            "{}",
            DurableLine::Durable {
                file,
                seq: *next - 1
            }
        );
    }
    println!("wrote {written} records in this boot; shutting the file server down");
    for (fd, _, _) in logs {
        if let Err(e) = fs.close(fd) {
            fail("close a log file", e);
        }
    }
    if let Err(e) = fs.shutdown() {
        fail("shut the file server down (unmount)", e);
    }
    println!("done");
}

/// Opens log `file`, keeps its intact records, reports them; returns the
/// handle, the next record's number and the file's size.
fn open_log(fs: &mut Fs, file: u32) -> (Fd, u64, u64) {
    let path = format!("/crash/log{file}");
    let fd = fs
        .open(&path, O_RDWR | O_CREAT, 0o644)
        .unwrap_or_else(|e| fail(&path, e));
    let size = fs
        .fstat(fd)
        .map(|s| s.size)
        .unwrap_or_else(|e| fail(&path, e));
    let mut bytes = vec![0u8; size as usize];
    let read = fs
        .pread(fd, &mut bytes, 0)
        .unwrap_or_else(|e| fail(&path, e));
    let intact = record::valid_prefix(file, &bytes[..read]);
    let keep = intact * record::SIZE as u64;
    if size > keep {
        println!(
            "{path}: {} bytes after record {intact} are not intact records \
             (zeros it was extended with, or a record the crash tore); cut off",
            size - keep
        );
        if let Err(e) = fs.ftruncate(fd, keep) {
            fail(&path, e);
        }
    }
    println!("{}", DurableLine::Found { file, seq: intact });
    (fd, intact + 1, keep)
}

fn fail(what: &str, e: Error) -> ! {
    println!("CHECK FAILED: {what}: {e}; the writer stops");
    conflux_userlib::sys::exit(1)
}
