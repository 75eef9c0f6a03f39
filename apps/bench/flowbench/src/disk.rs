//! Storing records on the disk, packed, through the block driver, and
//! reading them back to check.
//!
//! Records are packed densely into 4 KiB block buffers (both sizes the
//! benchmark uses divide 4 KiB, so no record spans two buffers); a full
//! buffer is written at the next sectors while the following ones fill,
//! up to [`DEPTH`] writes in flight. What was stored is then read back
//! and every record checked, so a run's figure counts only data that
//! reached the disk whole.

use crate::fail;
use conflux_blk_client::{Caps, Connection, BUF};
use conflux_blk_protocol::{Op, Status};
use conflux_flow_protocol::record::{Checker, Tally};

/// Writes in flight at once.
const DEPTH: u32 = 8;
const SECTOR: u64 = 512;
const SECTORS_PER_BUF: u64 = BUF / SECTOR;

/// A packed writer from sector `first`.
pub struct Writer<'a> {
    blk: &'a mut Connection,
    first: u64,
    next: u64,
    /// Bytes in the buffer being filled.
    fill: usize,
    /// The buffer being filled (of `DEPTH`).
    current: u32,
    /// Which buffers have a write in flight.
    busy: [bool; DEPTH as usize],
}

/// The block connection from the task's capabilities.
pub fn open() -> Connection {
    let c = Connection::open(Caps {
        region: crate::config::caps::DISK0,
        addr: crate::config::caps::DISK0_ADDR,
        size: crate::config::caps::DISK0_SIZE,
        done: crate::config::caps::DISK0_DONE,
        doorbell: crate::config::caps::DISK0_DOORBELL,
    })
    .unwrap_or_else(|e| fail(&alloc::format!("cannot open the block connection: {e}")));
    if c.buffers() < 2 * DEPTH {
        fail("the block connection's data area holds fewer than 16 buffers: enlarge client_region");
    }
    c
}

impl<'a> Writer<'a> {
    pub fn new(blk: &'a mut Connection, first: u64) -> Self {
        Self {
            blk,
            first,
            next: first,
            fill: 0,
            current: 0,
            busy: [false; DEPTH as usize],
        }
    }

    /// Waits for one write to finish and marks its buffer free.
    fn reap(&mut self) {
        match self.blk.wait() {
            Ok((id, Status::Ok)) if id < DEPTH => self.busy[id as usize] = false,
            Ok((id, status)) => fail(&alloc::format!("block write {id} answered {status:?}")),
            Err(e) => fail(&alloc::format!("block connection broke: {e}")),
        }
    }

    /// Appends one record.
    pub fn push(&mut self, record: &[u8]) {
        while self.busy[self.current as usize] {
            self.reap();
        }
        let at = self.fill;
        self.blk.buffer(self.current)[at..at + record.len()].copy_from_slice(record);
        self.fill += record.len();
        if self.fill + record.len() > BUF as usize {
            self.write_current();
        }
    }

    fn write_current(&mut self) {
        if self.fill == 0 {
            return;
        }
        let buf = self.blk.buffer(self.current);
        buf[self.fill..].fill(0);
        if let Err(e) = self
            .blk
            .submit(self.current, Op::Write, self.next, self.current)
        {
            fail(&alloc::format!("cannot submit a block write: {e}"));
        }
        self.busy[self.current as usize] = true;
        self.next += SECTORS_PER_BUF;
        self.fill = 0;
        self.current = (self.current + 1) % DEPTH;
    }

    /// Writes what is buffered and waits for every write.
    pub fn flush(&mut self) {
        self.write_current();
        while self.busy.iter().any(|b| *b) {
            self.reap();
        }
    }

    /// Sectors written so far, from `first`.
    pub fn span(&self) -> (u64, u64) {
        (self.first, self.next)
    }
}

/// Reads sectors `first..end` back and checks `records` records of `size`
/// bytes packed in them.
pub fn check(blk: &mut Connection, first: u64, end: u64, size: usize, records: u64) -> Tally {
    let mut checker = Checker::new(crate::SEED);
    let mut left = records;
    let mut sector = first;
    while sector < end && left > 0 {
        if let Err(e) = blk.submit(0, Op::Read, sector, 0) {
            fail(&alloc::format!("cannot submit a block read: {e}"));
        }
        match blk.wait() {
            Ok((0, Status::Ok)) => {}
            Ok((id, status)) => fail(&alloc::format!("block read {id} answered {status:?}")),
            Err(e) => fail(&alloc::format!("block connection broke: {e}")),
        }
        for rec in blk.buffer(0).chunks_exact(size) {
            if left == 0 {
                break;
            }
            checker.check(rec);
            left -= 1;
        }
        sector += SECTORS_PER_BUF;
    }
    checker.tally
}
