//! A well-behaved client of the file server's rings (tests fs-ring and
//! fs-ring-2cpu): NOPs in batches through the submission ring, a file
//! written and read back by single ring operations (checked by CRC), a
//! compound entry (open, pread, close) with its results area, the depth
//! at and past its limit (`Full` for the 33rd entry in flight), a
//! compound over the ring's step limit stopped by its budget, and one
//! moving more bytes than an entry may stopped by its work. Then it
//! waits until the hostile client is done and checks it is still served,
//! and shuts the server down.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs, Operand, Reaped};
use conflux_fs_protocol::ops::{self, O_CREAT, O_RDWR};
use conflux_userlib::ipc::Notification;
use conflux_userlib::testing::{pattern, Checks};
use cosy_abi::ring::{RingError, DEPTH};
use cosy_abi::{code, Builder, Cmp, Compound};

conflux_userlib::entry!(main);

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
/// NOPs pushed through the ring, in batches of the depth.
const NOPS: u32 = 1000;
/// Where the path and the file's bytes sit in the control region.
const PATH: u32 = 0;
const BYTES: u32 = 4096;
const LEN: u32 = 8192;

fn buf(offset: u32, len: u32) -> Operand {
    Operand::Buf {
        region: 0,
        offset,
        len,
    }
}

/// Submits one operation and waits for its answer.
fn one(fs: &mut Fs, op: u16, operands: &[Operand]) -> Result<Reaped, Error> {
    let t = fs.ring_submit(op, operands)?;
    fs.ring_flush()?;
    let r = fs.ring_wait()?;
    if r.ticket != t {
        conflux_userlib::println!("CHECK FAILED: answer for {:?}, expected {t:?}", r.ticket);
    }
    Ok(r)
}

/// NOPs in batches of the depth: every answer OK, each ticket once.
fn nops(fs: &mut Fs, count: u32) -> Result<u32, Error> {
    let mut ok = 0;
    let mut left = count;
    while left > 0 {
        let batch = left.min(DEPTH);
        let mut tickets = Vec::new();
        for _ in 0..batch {
            tickets.push(fs.ring_submit(ops::NOP, &[])?);
        }
        fs.ring_flush()?;
        for _ in 0..batch {
            let r = fs.ring_wait()?;
            if r.completion.is_ok() && tickets.contains(&r.ticket) {
                tickets.retain(|t| *t != r.ticket);
                ok += 1;
            }
        }
        left -= batch;
    }
    Ok(ok)
}

fn file_through_the_ring(fs: &mut Fs, c: &mut Checks) -> Result<(), Error> {
    let data = pattern(5, LEN as usize);
    let path = b"/ring-file\0";
    fs.control()[..path.len()].copy_from_slice(path);
    fs.control()[BYTES as usize..(BYTES + LEN) as usize].copy_from_slice(&data);
    let p = buf(PATH, path.len() as u32);
    let open = one(
        fs,
        ops::OPEN,
        &[p, Operand::Value(O_RDWR | O_CREAT), Operand::Value(0o644)],
    )?;
    c.eq("open through the ring", open.completion.status, code::OK);
    let fd = Operand::Value(open.completion.value);
    let wrote = one(
        fs,
        ops::PWRITE,
        &[
            fd,
            buf(BYTES, LEN),
            Operand::Value(u64::from(LEN)),
            Operand::Value(0),
        ],
    )?;
    c.eq(
        "pwrite through the ring",
        (wrote.completion.status, wrote.completion.value),
        (code::OK, u64::from(LEN)),
    );
    fs.control()[BYTES as usize..(BYTES + LEN) as usize].fill(0);
    let read = one(
        fs,
        ops::PREAD,
        &[
            fd,
            buf(BYTES, LEN),
            Operand::Value(u64::from(LEN)),
            Operand::Value(0),
        ],
    )?;
    let back = CRC.checksum(&fs.control()[BYTES as usize..(BYTES + LEN) as usize]);
    c.eq(
        "pread through the ring: the bytes' CRC",
        (read.completion.value, back),
        (u64::from(LEN), CRC.checksum(&data)),
    );
    let bad = one(
        fs,
        ops::PREAD,
        &[
            Operand::Value(999),
            buf(BYTES, 16),
            Operand::Value(16),
            Operand::Value(0),
        ],
    )?;
    c.eq(
        "a bad handle through the ring",
        bad.completion.status,
        code::service(conflux_fs_protocol::FsError::BadHandle.code()),
    );
    let closed = one(fs, ops::CLOSE, &[fd])?;
    c.eq("close through the ring", closed.completion.status, code::OK);
    Ok(())
}

fn compounds(fs: &mut Fs, c: &mut Checks) -> Result<(), Error> {
    // open, pread, close as one ring entry; exit with the bytes read.
    let mut b = Builder::new();
    let (fd, n) = (b.reg(), b.reg());
    let path = b.buf(0, PATH, 11);
    let into = b.buf(0, BYTES, LEN);
    b.call(fd, ops::OPEN, (path, ops::O_RDONLY, 0u64));
    b.call(n, ops::PREAD, (fd, into, u64::from(LEN), 0u64));
    b.call_void(ops::CLOSE, (fd,));
    b.exit(n);
    let compound = b.build().map_err(|_| Error::TooLarge)?;
    let t = fs.ring_submit_compound(&compound, &[])?;
    fs.ring_flush()?;
    let r = fs.ring_wait()?;
    c.eq(
        "a compound through the ring: its exit value",
        (r.ticket == t, r.completion.status, r.completion.value),
        (true, code::OK, u64::from(LEN)),
    );
    let report = fs
        .ring_entry(&r)
        .and_then(|e| Compound::new_checked(e).ok())
        .map(|v| v.report());
    c.that(
        "its results area says clean",
        report.is_some_and(|r| r.is_clean()),
        report,
    );

    // A loop far over the ring's step limit stops at it.
    let mut b = Builder::new();
    let i = b.reg();
    let top = b.label();
    b.bind(top);
    b.add(i, i, 1u64);
    b.jump(top);
    b.step_budget(u32::MAX);
    let runaway = b.build().map_err(|_| Error::TooLarge)?;
    fs.ring_submit_compound(&runaway, &[])?;
    fs.ring_flush()?;
    let r = fs.ring_wait()?;
    c.eq(
        "a runaway compound stops at the ring's step limit",
        r.completion.status,
        code::BUDGET_EXHAUSTED,
    );

    // 1000 preads of 8 KiB: well inside the step limit, but 8 MiB moved,
    // more than one entry may move; it stops at the op after the read
    // that took it past, with its own code, and the session goes on.
    let open = one(
        fs,
        ops::OPEN,
        &[
            buf(PATH, 11),
            Operand::Value(ops::O_RDONLY),
            Operand::Value(0),
        ],
    )?;
    let fd = open.completion.value;
    let mut b = Builder::new();
    let (i, n) = (b.reg(), b.reg());
    let into = b.buf(0, BYTES, LEN);
    b.for_loop(i, 0u64, Cmp::LtU, 1000u64, 1u64, |b| {
        b.call(n, ops::PREAD, (fd, into, u64::from(LEN), 0u64));
    });
    b.exit(i);
    let heavy = b.build().map_err(|_| Error::TooLarge)?;
    fs.ring_submit_compound(&heavy, &[])?;
    fs.ring_flush()?;
    let r = fs.ring_wait()?;
    let report = fs
        .ring_entry(&r)
        .and_then(|e| Compound::new_checked(e).ok())
        .map(|v| v.report());
    c.that(
        "a compound moving more than an entry may stops: ENTRY_WORK_EXHAUSTED, in its results area too",
        r.completion.status == code::ENTRY_WORK_EXHAUSTED
            && report.is_some_and(|r| {
                r.stop.map(|f| f.code) == Some(code::ENTRY_WORK_EXHAUSTED)
                    && r.steps < 2 * 1000
            }),
        (r.completion, report),
    );
    let closed = one(fs, ops::CLOSE, &[Operand::Value(fd)])?;
    c.eq(
        "and its session goes on: the file closes",
        closed.completion.status,
        code::OK,
    );
    Ok(())
}

fn depth(fs: &mut Fs, c: &mut Checks) -> Result<(), Error> {
    for _ in 0..DEPTH {
        fs.ring_submit(ops::NOP, &[])?;
    }
    let past = fs.ring_submit(ops::NOP, &[]);
    c.that(
        "the 33rd entry in flight is refused: Full",
        matches!(past, Err(Error::Ring(RingError::Full { depth: DEPTH }))),
        past,
    );
    fs.ring_flush()?;
    let mut answered = 0;
    for _ in 0..DEPTH {
        answered += u32::from(fs.ring_wait()?.completion.is_ok());
    }
    c.eq("and the 32 in flight are answered", answered, DEPTH);
    let after = fs.ring_wait();
    c.that(
        "waiting with nothing in flight is an error, not a hang",
        matches!(after, Err(Error::NothingInFlight)),
        after,
    );
    Ok(())
}

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let opened = fs.ring_open(config::caps::RING, config::caps::RING_ADDR);
    c.that(
        "the ring region is attached and named",
        opened.is_ok(),
        opened,
    );
    c.eq("1000 NOPs through the ring", nops(&mut fs, NOPS), Ok(NOPS));
    if let Err(e) = file_through_the_ring(&mut fs, &mut c) {
        c.that("file operations through the ring", false, e);
    }
    if let Err(e) = compounds(&mut fs, &mut c) {
        c.that("compounds through the ring", false, e);
    }
    if let Err(e) = depth(&mut fs, &mut c) {
        c.that("the depth", false, e);
    }
    // The hostile client has done its worst by now; still served.
    let _ = Notification(config::caps::DONE).wait();
    c.eq(
        "still served through the ring after the hostile client",
        nops(&mut fs, 100),
        Ok(100),
    );
    c.eq("and by IPC", fs.call(ops::NOP, &[]), Ok(0));
    c.eq("shutdown", fs.shutdown(), Ok(()));
    c.finish()
}
