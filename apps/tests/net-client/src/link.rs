//! The client's end of the network connection, over the region the
//! manifest shares with the driver, and the test's buffers in its data
//! area: 2 KiB slots, the frame 64 bytes into its slot (the protocol's
//! headroom, where the driver puts the device's header, fits before it).
#![allow(unsafe_code)]

use crate::config::caps;
use conflux_net_protocol::{Client, Status};
use conflux_queue::Descriptor;
use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::sys::{rdtsc, yield_now};

pub const SLOT: u64 = 2048;
pub const FRAME_OFF: u64 = 64;
/// Receive buffers (ids and slots 0..RX).
pub const RX: u32 = 8;
/// The first transmit slot (tx id `i` uses slot `TX_SLOT + i`).
const TX_SLOT: u64 = 16;

pub struct Link {
    pub client: Client,
    data: u64,
    doorbell: Notification,
}

impl Link {
    pub fn open() -> Self {
        let region = Region(caps::NET0).premapped(caps::NET0_ADDR, caps::NET0_SIZE);
        // Safety: the manifest mapped the region, page aligned, for the
        // task's life; the driver attaches only after the doorbell below.
        let client =
            unsafe { Client::format(region.base() as *mut u8, region.size() as usize, rdtsc()) }
                .expect("the manifest's region fits a network connection");
        let link = Self {
            client,
            data: region.base() + conflux_net_protocol::DATA as u64,
            doorbell: Notification(caps::NET0_DOORBELL),
        };
        // Tell the driver the rings are ready, and wait for it to attach.
        let _ = link.doorbell.signal();
        let done = Notification(caps::NET0_DONE);
        while link.client.mac().is_none() {
            let _ = done.wait();
        }
        link
    }

    pub fn ring(&self) {
        let _ = self.doorbell.signal();
    }

    pub fn tx_offset(id: u32) -> u64 {
        (TX_SLOT + u64::from(id % 8)) * SLOT + FRAME_OFF
    }

    pub fn rx_offset(id: u32) -> u64 {
        u64::from(id) * SLOT + FRAME_OFF
    }

    /// The bytes at data offset `offset`.
    fn bytes(&self, offset: u64, len: usize) -> &'static mut [u8] {
        assert!(offset + len as u64 <= self.client.data_len());
        // Safety: inside the data area (checked above), which stays mapped
        // for the task's life; the test touches a buffer only while it is
        // not with the driver.
        unsafe { core::slice::from_raw_parts_mut((self.data + offset) as *mut u8, len) }
    }

    /// Sends `frame` from tx slot `id`; the status comes back through
    /// [`Link::wait_sent`].
    pub fn send(&mut self, id: u32, frame: &[u8]) {
        let off = Self::tx_offset(id);
        self.bytes(off, frame.len()).copy_from_slice(frame);
        self.send_raw(id, off, frame.len() as u32);
    }

    /// Sends `frame` from each tx slot in `ids`, all on the ring before one
    /// doorbell, so an idle driver finds them together.
    pub fn send_burst(&mut self, ids: core::ops::Range<u32>, frame: &[u8]) {
        let mut ring = false;
        for id in ids {
            let off = Self::tx_offset(id);
            self.bytes(off, frame.len()).copy_from_slice(frame);
            ring |= self
                .client
                .send(id, off, frame.len() as u32)
                .expect("the rings are intact");
        }
        if ring {
            self.ring();
        }
    }

    pub fn send_raw(&mut self, id: u32, offset: u64, len: u32) {
        if self
            .client
            .send(id, offset, len)
            .expect("the rings are intact")
        {
            self.ring();
        }
    }

    pub fn offer(&mut self, id: u32, offset: u64, len: u32) {
        if self
            .client
            .offer(id, offset, len)
            .expect("the rings are intact")
        {
            self.ring();
        }
    }

    /// Offers receive buffer `id` (one of the RX slots) again.
    pub fn offer_slot(&mut self, id: u32) {
        self.offer(id, Self::rx_offset(id), (SLOT - FRAME_OFF) as u32);
    }

    /// The next tx answer, or `None` after `ticks` of the TSC.
    pub fn wait_sent(&mut self, ticks: u64) -> Option<(u32, Status)> {
        let end = rdtsc() + ticks;
        while rdtsc() < end {
            if let Some(done) = self.client.sent().expect("the rings are intact") {
                return Some(done);
            }
            yield_now();
        }
        None
    }

    /// The next rx answer, or `None` after `ticks`.
    pub fn wait_received(&mut self, ticks: u64) -> Option<(Descriptor, Status)> {
        let end = rdtsc() + ticks;
        while rdtsc() < end {
            if let Some(got) = self.client.received().expect("the rings are intact") {
                return Some(got);
            }
            yield_now();
        }
        None
    }

    /// A received frame's bytes.
    pub fn frame(&self, d: &Descriptor) -> &'static [u8] {
        self.bytes(d.offset, d.len as usize)
    }

    /// Detaches and waits for the driver to confirm.
    pub fn detach(&mut self, ticks: u64) -> bool {
        self.client.detach();
        self.ring();
        let end = rdtsc() + ticks;
        while rdtsc() < end {
            if self.client.detached() {
                return true;
            }
            yield_now();
        }
        false
    }
}
