//! The client's end of the block connection, over the region the manifest
//! shares with the driver, and the test's buffers in its data area (one
//! 4 KiB buffer per request slot).
#![allow(unsafe_code)]

use crate::config::caps;
use conflux_blk_protocol::{Client, Op, Status};
use conflux_userlib::hostile::Rng;
use conflux_userlib::ipc::{Notification, Region};

const BUF: u64 = 4096;

pub struct Link {
    client: Client,
    data: u64,
    done: Notification,
    doorbell: Notification,
}

impl Link {
    pub fn open() -> Self {
        let region = Region(caps::DISK0).premapped(caps::DISK0_ADDR, caps::DISK0_SIZE);
        // Safety: the manifest mapped the region, page aligned, for the
        // task's life; the driver attaches only after the doorbell below.
        let client = unsafe { Client::format(region.base() as *mut u8, region.size() as usize) }
            .expect("the manifest's region fits a block connection");
        let link = Self {
            client,
            data: region.base() + conflux_blk_protocol::DATA as u64,
            done: Notification(caps::DISK0_DONE),
            doorbell: Notification(caps::DISK0_DOORBELL),
        };
        // Tell the driver the rings are ready, and wait for it to attach.
        let _ = link.doorbell.signal();
        let _ = link.done.wait();
        link
    }

    fn buf(&self, slot: u32) -> *mut u8 {
        (self.data + u64::from(slot) * BUF) as *mut u8
    }

    /// The bytes of buffer `slot`.
    pub fn bytes(&self, slot: u32) -> &[u8] {
        // Safety: slot buffers lie in the data area (slots < DEPTH, 4 KiB
        // each, well inside the region), and no request uses the buffer
        // while the test reads it (it waited for the answer).
        unsafe { core::slice::from_raw_parts(self.buf(slot), BUF as usize) }
    }

    /// Fills buffer `slot` from `seed`; returns its CRC-32C.
    pub fn fill(&mut self, slot: u32, seed: u64) -> u32 {
        let mut rng = Rng(seed | 1);
        // Safety: as in `bytes`; no request in flight uses this slot.
        let buf = unsafe { core::slice::from_raw_parts_mut(self.buf(slot), BUF as usize) };
        for chunk in buf.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        crate::CRC.checksum(buf)
    }

    /// Sends `op` on buffer `slot`, starting at sector `block`, as request `id`.
    pub fn submit(&mut self, id: u32, op: Op, block: u64, slot: u32) {
        let len = if matches!(op, Op::Flush | Op::Detach) {
            0
        } else {
            BUF as u32
        };
        self.send(id, op as u32, block, u64::from(slot) * BUF, len);
    }

    fn send(&mut self, id: u32, op: u32, block: u64, offset: u64, len: u32) {
        let signal = self
            .client
            .submit(id, op, block, offset, len)
            .expect("the rings are intact");
        if signal {
            let _ = self.doorbell.signal();
        }
    }

    /// Waits for the next answer.
    pub fn wait(&mut self) -> (u32, Status) {
        loop {
            if let Some(done) = self.client.complete().expect("the rings are intact") {
                return done;
            }
            if self.client.prepare_to_wait().expect("the rings are intact") {
                let _ = self.done.wait();
            }
        }
    }

    /// Sends a hand-made request and returns its status.
    pub fn raw(&mut self, id: u32, op: u32, block: u64, offset: u64, len: u32) -> Status {
        self.send(id, op, block, offset, len);
        self.wait().1
    }
}
