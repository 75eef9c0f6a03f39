//! A task's end of a block connection (`conflux-blk-protocol`), over the
//! capabilities the manifest gives a device's client (`[devices.NAME]
//! clients = [...]`): the shared region `NAME` (mapped), the completion
//! notification `NAME_done` and the doorbell `NAME_doorbell`.
//!
//! The data area is handed out as 4 KiB buffers by index; a request names
//! the buffer, and the driver's device reads or writes it in place.
#![no_std]

use conflux_blk_protocol::{Client, LinkError, Op, Status, DATA};
use conflux_userlib::ipc::{Notification, Region};

/// Size of one buffer of the data area.
pub const BUF: u64 = 4096;

/// The capabilities of a connection, from the task's `config::caps`.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub region: usize,
    pub addr: u64,
    pub size: usize,
    pub done: usize,
    pub doorbell: usize,
}

/// An open connection.
pub struct Connection {
    client: Client,
    data: u64,
    buffers: u32,
    done: Notification,
    doorbell: Notification,
}

impl Connection {
    /// Begins a new session on the shared region (formats its rings, see
    /// `conflux_blk_protocol::session`), rings the driver and waits until
    /// it serves the session. After a restart of this task the driver may
    /// first have to let the device finish what the previous instance left
    /// in flight; its answers never reach this session.
    pub fn open(caps: Caps) -> Result<Self, LinkError> {
        let region = Region(caps.region).premapped(caps.addr, caps.size);
        #[allow(unsafe_code)]
        // Safety: the manifest mapped the region, page aligned, for the
        // task's life (`Mapped` guarantees a live mapping of that length),
        // and the driver touches it only through the block protocol.
        let client = unsafe {
            Client::format(
                region.base() as *mut u8,
                region.size() as usize,
                conflux_userlib::sys::rdtsc(),
            )
        }?;
        let conn = Self {
            buffers: (client.data_len() / BUF) as u32,
            client,
            data: region.base() + DATA as u64,
            done: Notification(caps.done),
            doorbell: Notification(caps.doorbell),
        };
        let _ = conn.doorbell.signal();
        // The notification may hold a stale signal from an earlier
        // session: wait for the driver's word, not for one signal.
        while !conn.client.attached() {
            let _ = conn.done.wait();
        }
        Ok(conn)
    }

    /// Whether an earlier instance of this task used the region (a
    /// session was there before this one): this task was restarted.
    pub fn restarted(&self) -> bool {
        self.client.previous_session() != 0
    }

    /// How many 4 KiB buffers the data area holds.
    pub fn buffers(&self) -> u32 {
        self.buffers
    }

    /// Buffer `index` (`index < buffers()`), to fill before a write or read
    /// after a read. The caller must not touch a buffer while a request
    /// using it is in flight (the device may be writing it).
    pub fn buffer(&mut self, index: u32) -> &mut [u8] {
        assert!(
            index < self.buffers,
            "buffer {index} is past the data area ({} buffers)",
            self.buffers
        );
        let start = self.data + u64::from(index) * BUF;
        #[allow(unsafe_code)]
        // Safety: buffer `index` lies inside the data area of the mapped
        // region (checked above); `&mut self` keeps this the only slice the
        // task makes of it at a time.
        unsafe {
            core::slice::from_raw_parts_mut(start as *mut u8, BUF as usize)
        }
    }

    /// Sends `op` as request `id` on buffer `index`, starting at sector
    /// `block` (flush and detach use no buffer).
    pub fn submit(&mut self, id: u32, op: Op, block: u64, index: u32) -> Result<(), LinkError> {
        let len = if matches!(op, Op::Flush | Op::Detach) {
            0
        } else {
            BUF as u32
        };
        self.send(id, op as u32, block, u64::from(index) * BUF, len)
    }

    /// Sends a request with every field chosen by the caller (tests use it
    /// to send what a hostile client would).
    pub fn send(
        &mut self,
        id: u32,
        op: u32,
        block: u64,
        offset: u64,
        len: u32,
    ) -> Result<(), LinkError> {
        if self.client.submit(id, op, block, offset, len)? {
            let _ = self.doorbell.signal();
        }
        Ok(())
    }

    /// The next finished request: its id and status.
    pub fn wait(&mut self) -> Result<(u32, Status), LinkError> {
        loop {
            if let Some(done) = self.client.complete()? {
                return Ok(done);
            }
            if self.client.prepare_to_wait()? {
                let _ = self.done.wait();
            }
        }
    }
}
