//! The workload's files, `/frr/fNN`: 8 KiB of a pattern that depends on
//! the file's number, written through the ring (single entries, or one
//! compound entry) and read back through it, checked by CRC. Paths and
//! bytes are staged in the control region.

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs, Operand, Ticket};
use conflux_fs_protocol::ops::{self, O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY};
use conflux_userlib::println;
use cosy_abi::{Builder, Compound};

use crate::ring::{control, one, value};

/// Bytes of each file.
pub const LEN: u32 = 8192;
/// Where a file's path sits in the control region.
const PATH: u32 = 0;
/// `/frr/fNN` and its NUL.
const PATH_LEN: u32 = 9;
/// Where a file's bytes sit in the control region.
const BYTES: u32 = 4096;
/// NOPs queued behind the fsync that kills the server.
const BEHIND: usize = 8;

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// File `n`'s contents.
fn contents(n: u32) -> Vec<u8> {
    conflux_userlib::testing::pattern(n + 1, LEN as usize)
}

/// Puts file `n`'s path in the control region, and its contents after
/// it if `with_bytes`.
fn stage(fs: &mut Fs, n: u32, with_bytes: bool) {
    let path = [
        b'/',
        b'f',
        b'r',
        b'r',
        b'/',
        b'f',
        b'0' + (n / 10 % 10) as u8,
        b'0' + (n % 10) as u8,
        0,
    ];
    let at = PATH as usize;
    fs.control()[at..at + path.len()].copy_from_slice(&path);
    if with_bytes {
        let at = BYTES as usize;
        fs.control()[at..at + LEN as usize].copy_from_slice(&contents(n));
    }
}

fn open_for_writing(fs: &mut Fs) -> Result<u64, Error> {
    one(
        fs,
        ops::OPEN,
        &[
            control(PATH, PATH_LEN),
            Operand::Value(O_WRONLY | O_CREAT | O_TRUNC),
            Operand::Value(0o644),
        ],
    )
}

/// A pwrite of the file's bytes `from..to` (staged at [`BYTES`]).
fn pwrite(fd: u64, from: u32, to: u32) -> [Operand; 4] {
    [
        Operand::Value(fd),
        control(BYTES + from, to - from),
        Operand::Value(u64::from(to - from)),
        Operand::Value(u64::from(from)),
    ]
}

/// Writes file `n` by single ring entries (open, pwrite, fsync, close),
/// each waited for.
pub fn write(fs: &mut Fs, n: u32) -> Result<(), Error> {
    stage(fs, n, true);
    let fd = open_for_writing(fs)?;
    let wrote = one(fs, ops::PWRITE, &pwrite(fd, 0, LEN))?;
    one(fs, ops::FSYNC, &[Operand::Value(fd)])?;
    one(fs, ops::CLOSE, &[Operand::Value(fd)])?;
    if wrote != u64::from(LEN) {
        println!("file {n}: pwrite through the ring took {wrote} of {LEN} bytes");
        return Err(Error::TooLarge);
    }
    Ok(())
}

/// What became of the batch the server died in.
pub struct Doomed {
    /// Entries submitted in the batch.
    pub submitted: usize,
    /// Their tickets that were never answered.
    pub lost: Vec<Ticket>,
    /// What ended the wait for them (`None`: every one was answered, so
    /// the server never died).
    pub ended: Option<Error>,
}

/// File `n` written as one batch, flushed once: a pwrite of each half,
/// the fsync (in which this system's server dies), and [`BEHIND`] NOPs
/// queued after it; then waits for the answers until one wait fails.
pub fn doomed_batch(fs: &mut Fs, n: u32) -> Result<Doomed, Error> {
    stage(fs, n, true);
    let fd = open_for_writing(fs)?;
    let half = LEN / 2;
    let mut waiting = alloc::vec![
        fs.ring_submit(ops::PWRITE, &pwrite(fd, 0, half))?,
        fs.ring_submit(ops::PWRITE, &pwrite(fd, half, LEN))?,
        fs.ring_submit(ops::FSYNC, &[Operand::Value(fd)])?,
    ];
    for _ in 0..BEHIND {
        waiting.push(fs.ring_submit(ops::NOP, &[])?);
    }
    let submitted = waiting.len();
    let flushed = fs.ring_flush().err();
    let mut ended = flushed;
    while ended.is_none() && !waiting.is_empty() {
        match fs.ring_wait() {
            Ok(r) => waiting.retain(|t| *t != r.ticket),
            Err(e) => ended = Some(e),
        }
    }
    Ok(Doomed {
        submitted,
        lost: waiting,
        ended,
    })
}

/// File `n` written again by one compound entry: open, pwrite, fsync,
/// close, exiting with the bytes written; its results area must say
/// clean.
pub fn write_by_compound(fs: &mut Fs, n: u32) -> Result<u64, Error> {
    stage(fs, n, true);
    let mut b = Builder::new();
    let (fd, wrote) = (b.reg(), b.reg());
    let path = b.buf(0, PATH, PATH_LEN);
    let bytes = b.buf(0, BYTES, LEN);
    b.call(
        fd,
        ops::OPEN,
        (path, O_WRONLY | O_CREAT | O_TRUNC, 0o644u64),
    );
    b.call(wrote, ops::PWRITE, (fd, bytes, u64::from(LEN), 0u64));
    b.call_void(ops::FSYNC, (fd,));
    b.call_void(ops::CLOSE, (fd,));
    b.exit(wrote);
    let compound = b.build().map_err(|_| Error::TooLarge)?;
    let t = fs.ring_submit_compound(&compound, &[])?;
    fs.ring_flush()?;
    let r = fs.ring_wait()?;
    let report = fs
        .ring_entry(&r)
        .and_then(|e| Compound::new_checked(e).ok())
        .map(|v| v.report());
    if r.ticket != t || !report.is_some_and(|r| r.is_clean()) {
        println!(
            "the compound entry's answer: ticket {:#x} (submitted {:#x}), {:?}, report {report:?}",
            r.ticket.tag(),
            t.tag(),
            r.completion
        );
        return Err(Error::Request(r.completion.status));
    }
    value(r.completion.status, r.completion.value)
}

/// Whether file `n` holds exactly its contents, read through the ring.
pub fn check(fs: &mut Fs, n: u32) -> bool {
    stage(fs, n, false);
    let got = one(
        fs,
        ops::OPEN,
        &[
            control(PATH, PATH_LEN),
            Operand::Value(O_RDONLY),
            Operand::Value(0),
        ],
    )
    .and_then(|fd| {
        // One byte more than the file should hold: a longer file shows.
        let read = one(
            fs,
            ops::PREAD,
            &[
                Operand::Value(fd),
                control(BYTES, LEN + 1),
                Operand::Value(u64::from(LEN + 1)),
                Operand::Value(0),
            ],
        );
        one(fs, ops::CLOSE, &[Operand::Value(fd)])?;
        read
    });
    let want = CRC.checksum(&contents(n));
    match got {
        Ok(len) => {
            let at = BYTES as usize;
            let len = (len as usize).min(LEN as usize + 1);
            let crc = CRC.checksum(&fs.control()[at..at + len]);
            if len == LEN as usize && crc == want {
                return true;
            }
            println!(
                "/frr/f{n:02}: {len} bytes with CRC {crc:#010x}, expected {LEN} with CRC {want:#010x}"
            );
            false
        }
        Err(e) => {
            println!("/frr/f{n:02}: cannot read it back through the ring: {e}");
            false
        }
    }
}
