//! The IPC anchors (bench `ipc`): a `getpid` (the cheapest system call),
//! and a one-byte pipe round trip and an eventfd round trip between two
//! processes on the one CPU, each timed per round trip with the TSC like
//! Conflux's `apps/bench/ipcbench` times `call_reply_roundtrip`: warm-up rounds
//! first, then one sample per round. Through plain system calls
//! (`linux-syscall`) and through io_uring (`linux-io_uring`: each side
//! submits its write and its read as one batch and waits for both, one
//! `io_uring_enter` per side per round trip); io_uring has no getpid.

use io_uring::{opcode, squeue, types};

use crate::report::{rdtsc, Checks, Samples};
use crate::ring::Ring;

/// Unrecorded rounds before the recorded ones (Conflux's `WARMUP`).
const WARMUP: usize = 2_000;

/// Which channel a round trip goes through.
#[derive(Clone, Copy)]
enum Channel {
    Pipe,
    Eventfd,
}

impl Channel {
    fn metric(self) -> &'static str {
        match self {
            Channel::Pipe => "pipe_roundtrip",
            Channel::Eventfd => "eventfd_roundtrip",
        }
    }

    /// The bytes one message is (eventfd takes exactly 8).
    fn len(self) -> usize {
        match self {
            Channel::Pipe => 1,
            Channel::Eventfd => 8,
        }
    }

    /// Two one-way channels `(there, back)`, each `(read end, write end)`.
    fn open(self) -> std::io::Result<[(i32, i32); 2]> {
        let one = || -> std::io::Result<(i32, i32)> {
            match self {
                Channel::Pipe => {
                    let mut fds = [0i32; 2];
                    // Safety: `fds` has room for the two descriptors pipe writes.
                    check(unsafe { libc::pipe(fds.as_mut_ptr()) })?;
                    Ok((fds[0], fds[1]))
                }
                Channel::Eventfd => {
                    // Safety: eventfd takes no pointers.
                    let fd = check(unsafe { libc::eventfd(0, 0) })?;
                    Ok((fd, fd))
                }
            }
        };
        Ok([one()?, one()?])
    }
}

/// A negative libc return as the errno it means.
pub fn check(r: i32) -> std::io::Result<i32> {
    if r < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Runs every IPC workload with `rounds` recorded rounds each.
pub fn run(checks: &mut Checks, rounds: usize) {
    let mut getpid = Samples::new("ipc", "linux-syscall", "getpid", rounds);
    let mut pid = 0;
    for i in 0..WARMUP + rounds {
        let t0 = rdtsc();
        // Safety: getpid has no preconditions.
        pid = unsafe { libc::getpid() };
        let dt = rdtsc() - t0;
        if i >= WARMUP {
            getpid.push(dt);
        }
    }
    checks.that("getpid answers a pid", pid > 0, pid);
    getpid.report();
    for channel in [Channel::Pipe, Channel::Eventfd] {
        for uring in [false, true] {
            let config = if uring {
                "linux-io_uring"
            } else {
                "linux-syscall"
            };
            let what = format!("ipc {} {config}", channel.metric());
            match roundtrips(channel, uring, rounds) {
                Ok(samples) => {
                    checks.that(&what, true, "");
                    samples.report();
                }
                Err(e) => checks.that(&what, false, e),
            }
        }
    }
}

/// Forks a peer that echoes every message back and times `rounds` round
/// trips to it (after the warm-up ones).
fn roundtrips(channel: Channel, uring: bool, rounds: usize) -> std::io::Result<Samples> {
    let [there, back] = channel.open()?;
    let total = WARMUP + rounds;
    // Safety: this program is single-threaded, so the child may do anything.
    let child = check(unsafe { libc::fork() })?;
    if child == 0 {
        let ok = echo(channel, uring, there.0, back.1, total).is_ok();
        // Safety: leaves the child at once, without the parent's atexit work.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let config = if uring {
        "linux-io_uring"
    } else {
        "linux-syscall"
    };
    let mut samples = Samples::new("ipc", config, channel.metric(), rounds);
    let mut side = Side::new(channel, uring, back.0, there.1)?;
    for i in 0..total {
        let t0 = rdtsc();
        side.send_then_receive()?;
        let dt = rdtsc() - t0;
        if i >= WARMUP {
            samples.push(dt);
        }
    }
    let mut status = 0;
    // Safety: `status` is a valid place for the child's exit status.
    check(unsafe { libc::waitpid(child, &mut status, 0) })?;
    for fd in [there.0, there.1, back.0, back.1] {
        // Safety: closing descriptors this function opened (eventfd's two
        // ends are one descriptor; its second close fails harmlessly).
        unsafe { libc::close(fd) };
    }
    if status != 0 {
        return Err(std::io::Error::other(format!(
            "the echoing child failed (status {status})"
        )));
    }
    Ok(samples)
}

/// The child: `total` times, receive a message and send it back.
fn echo(channel: Channel, uring: bool, rx: i32, tx: i32, total: usize) -> std::io::Result<()> {
    let mut side = Side::new(channel, uring, rx, tx)?;
    for _ in 0..total {
        side.receive_then_send()?;
    }
    Ok(())
}

/// One end of the round trip: where it reads, where it writes, its
/// buffer and (for io_uring) its ring.
struct Side {
    channel: Channel,
    rx: i32,
    tx: i32,
    buf: [u8; 8],
    out: [u8; 8],
    ring: Option<Ring>,
}

impl Side {
    fn new(channel: Channel, uring: bool, rx: i32, tx: i32) -> std::io::Result<Side> {
        let ring = if uring { Some(Ring::new(0)?) } else { None };
        Ok(Side {
            channel,
            rx,
            tx,
            buf: [0; 8],
            out: 1u64.to_ne_bytes(),
            ring,
        })
    }

    fn read_entry(&mut self) -> squeue::Entry {
        let len = self.channel.len() as u32;
        opcode::Read::new(types::Fd(self.rx), self.buf.as_mut_ptr(), len)
            .offset(u64::MAX)
            .build()
    }

    fn write_entry(&self) -> squeue::Entry {
        let len = self.channel.len() as u32;
        opcode::Write::new(types::Fd(self.tx), self.out.as_ptr(), len)
            .offset(u64::MAX)
            .build()
    }

    fn send_then_receive(&mut self) -> std::io::Result<()> {
        match self.ring.is_some() {
            false => {
                self.write()?;
                self.read()
            }
            true => {
                let entries = [self.write_entry(), self.read_entry()];
                self.batch(&entries)
            }
        }
    }

    fn receive_then_send(&mut self) -> std::io::Result<()> {
        match self.ring.is_some() {
            false => {
                self.read()?;
                self.write()
            }
            true => {
                let read = self.read_entry().flags(squeue::Flags::IO_LINK);
                let entries = [read, self.write_entry()];
                self.batch(&entries)
            }
        }
    }

    fn batch(&mut self, entries: &[squeue::Entry]) -> std::io::Result<()> {
        let mut results = [0i32; 2];
        let ring = self.ring.as_mut().expect("io_uring side has a ring");
        // Safety: the entries point at `self.buf` and `self.out`, which
        // live until `run` returns after both completions.
        unsafe { ring.run(entries, &mut results) }?;
        let want = self.channel.len() as i32;
        match results {
            [a, b] if a == want && b == want => Ok(()),
            other => Err(std::io::Error::other(format!(
                "io_uring round trip answered {other:?}, not {want} bytes each"
            ))),
        }
    }

    fn read(&mut self) -> std::io::Result<()> {
        let len = self.channel.len();
        // Safety: `buf` has room for `len` (≤ 8) bytes.
        let n = unsafe { libc::read(self.rx, self.buf.as_mut_ptr().cast(), len) };
        expect_len(n, len)
    }

    fn write(&self) -> std::io::Result<()> {
        let len = self.channel.len();
        // Safety: `out` holds `len` (≤ 8) bytes.
        let n = unsafe { libc::write(self.tx, self.out.as_ptr().cast(), len) };
        expect_len(n, len)
    }
}

/// A read or write that moved exactly `len` bytes, or why not.
fn expect_len(n: isize, len: usize) -> std::io::Result<()> {
    if n < 0 {
        Err(std::io::Error::last_os_error())
    } else if n as usize != len {
        Err(std::io::Error::other(format!("moved {n} of {len} bytes")))
    } else {
        Ok(())
    }
}
