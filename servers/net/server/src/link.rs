//! The virtio-net driver's connection as a `smoltcp::phy::Device`.
//!
//! The server formats the region the manifest shares with the driver
//! (`NET0`), rings the doorbell and waits for the driver to publish the
//! MAC. The data area is cut into 2 KiB slots: the first [`RX`] are
//! receive buffers, always offered to the driver except while smoltcp
//! reads one; the next [`TX`] are transmit slots, free until sent and
//! free again when tx-done returns them. Both directions are zero copy:
//! smoltcp parses a received frame where the device wrote it and builds a
//! frame to send where the device will read it. Each slot keeps the
//! protocol's headroom (the device header) before its frame.
//!
//! A buffer the driver refuses or fails (any status but `Ok`) is counted
//! by status and logged, and the buffer is offered (rx) or freed (tx)
//! again, so a fault costs a frame, never a slot. `Restarted` (the driver
//! was restarted with the buffer) is counted apart and not logged one by
//! one: an rx buffer comes back unused and is offered again, a tx frame
//! may not have gone out and counts as a dropped packet (TCP sends it
//! again).
//!
//! Formatting the region begins a new session with the driver
//! (`conflux-net-protocol`); if the region held one before, this server
//! was restarted, and the driver lets go of the old instance's buffers
//! before it serves the new session.
#![allow(unsafe_code)]

use conflux_net_protocol::{Client, LinkError, Status, DATA, MAX_FRAME};
use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;

use crate::fault::Injection;
use smoltcp::phy::{Device, DeviceCapabilities, Medium};
use smoltcp::time::Instant;

/// Bytes of one buffer slot.
const SLOT: u64 = 2048;
/// Where the frame starts in its slot: after the headroom, aligned.
const FRAME_OFF: u64 = 64;
/// Receive buffers (ids and slots `0..RX`).
pub const RX: u32 = 16;
/// Transmit slots (ids `0..TX`, slots `RX + id`).
pub const TX: u32 = 16;

/// Refused or failed descriptors, by direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct Refusals {
    pub tx: u32,
    pub rx: u32,
}

/// The driver connection and its buffers.
pub struct Link {
    client: Client,
    /// Address of the data area.
    data: u64,
    doorbell: Notification,
    /// Transmit slots not with the driver (bit `id`).
    tx_free: u32,
    /// The receive buffer smoltcp last read, offered again next time.
    held: Option<u32>,
    pub refused: Refusals,
    /// Buffers the driver answered `Restarted` (it was restarted with them).
    pub restarted: Refusals,
    /// This server was restarted: the region held a session before.
    pub server_restarted: bool,
    fault: Injection,
}

impl Link {
    /// Formats the region in `region` (mapped at `addr`, `size` bytes),
    /// rings `doorbell` and waits on `done` until the driver attached.
    pub fn open(
        region: Region,
        addr: u64,
        size: usize,
        doorbell: Notification,
        done: Notification,
    ) -> Result<Link, LinkError> {
        let region = region.premapped(addr, size);
        let need = DATA as u64 + u64::from(RX + TX) * SLOT;
        if region.size() < need {
            return Err(LinkError::TooSmall);
        }
        // Safety: the manifest mapped the region, page aligned, for the
        // task's life; a driver serving an earlier session of it (this
        // server's previous instance) keeps off it once `format` cleared
        // the session word.
        let client =
            unsafe { Client::format(region.base() as *mut u8, region.size() as usize, rdtsc()) }?;
        let server_restarted = client.previous_session() != 0;
        let mut link = Link {
            server_restarted,
            fault: Injection::new(server_restarted),
            restarted: Refusals::default(),
            client,
            data: region.base() + DATA as u64,
            doorbell,
            tx_free: (1u64 << TX).wrapping_sub(1) as u32,
            held: None,
            refused: Refusals::default(),
        };
        // Tell the driver the rings are ready, and hand it nothing before
        // it serves this session (it may first have to let go of the
        // previous instance's).
        let _ = link.doorbell.signal();
        while !link.client.attached() || link.client.mac().is_none() {
            let _ = done.wait();
        }
        for id in 0..RX {
            link.offer(id)?;
        }
        Ok(link)
    }

    /// The MAC the driver published.
    pub fn mac(&self) -> [u8; 6] {
        self.client.mac().unwrap_or_default()
    }

    fn rx_offset(id: u32) -> u64 {
        u64::from(id) * SLOT + FRAME_OFF
    }

    fn tx_offset(id: u32) -> u64 {
        u64::from(RX + id) * SLOT + FRAME_OFF
    }

    /// `len` bytes at data offset `offset`.
    ///
    /// # Safety
    /// The buffer must not be with the driver, and no other slice of it
    /// may live (the caller holds the buffer's descriptor).
    unsafe fn bytes(&mut self, offset: u64, len: usize) -> &mut [u8] {
        // Safety: every offset is one of the slots `open` checked lie in
        // the data area (at most a slot's room); the caller's promise
        // makes the access exclusive.
        unsafe { core::slice::from_raw_parts_mut((self.data + offset) as *mut u8, len) }
    }

    fn ring(&self, asked: bool) {
        if asked {
            let _ = self.doorbell.signal();
        }
    }

    /// Offers receive buffer `id` to the driver.
    fn offer(&mut self, id: u32) -> Result<(), LinkError> {
        let asked = self
            .client
            .offer(id, Self::rx_offset(id), (SLOT - FRAME_OFF) as u32)?;
        self.ring(asked);
        Ok(())
    }

    /// Takes back every sent frame's slot; counts and logs refusals.
    pub fn reclaim(&mut self) {
        loop {
            match self.client.sent() {
                Ok(Some((id, Status::Restarted))) => {
                    // The driver died with the frame: it may not have gone
                    // out, and TCP sends it again if it matters.
                    self.restarted.tx += 1;
                    if id < TX {
                        self.tx_free |= 1 << id;
                    }
                }
                Ok(Some((id, status))) => {
                    if status != Status::Ok {
                        self.refused.tx += 1;
                        println!(
                            "tx descriptor {id} answered {status:?} ({} refused so far)",
                            self.refused.tx
                        );
                    }
                    if id < TX {
                        self.tx_free |= 1 << id;
                    }
                }
                Ok(None) => return,
                Err(e) => {
                    println!("the tx-done ring is broken: {e:?}");
                    return;
                }
            }
        }
    }

    /// The next received frame's (id, length); refused buffers are
    /// counted, logged and offered again.
    fn next_frame(&mut self) -> Option<(u32, usize)> {
        loop {
            let (d, status) = match self.client.received() {
                Ok(Some(got)) => got,
                Ok(None) => return None,
                Err(e) => {
                    println!("the rx ring is broken: {e:?}");
                    return None;
                }
            };
            if status == Status::Ok && d.id < RX && d.len <= MAX_FRAME {
                return Some((d.id, d.len as usize));
            }
            if status == Status::Restarted && d.id < RX {
                // The driver was restarted with it: unused, offered again.
                self.restarted.rx += 1;
                let _ = self.offer(d.id);
                continue;
            }
            self.refused.rx += 1;
            println!(
                "rx descriptor {} answered {status:?} ({} refused so far)",
                d.id, self.refused.rx
            );
            if d.id < RX {
                let _ = self.offer(d.id);
            }
        }
    }

    /// A free transmit slot, taken.
    fn take_tx(&mut self) -> Option<u32> {
        if self.tx_free == 0 {
            self.reclaim();
        }
        let id = self.tx_free.trailing_zeros();
        (id < TX).then(|| {
            self.tx_free &= !(1 << id);
            id
        })
    }

    /// Logs, once per batch, the buffers the driver answered `Restarted`
    /// since the last report (a driver restart under the server).
    pub fn report_restart(&mut self) {
        let r = core::mem::take(&mut self.restarted);
        if r.tx + r.rx > 0 {
            println!(
                "the driver was restarted: {} rx buffers came back unused and were offered again, {} tx frames counted as dropped (TCP sends them again)",
                r.rx, r.tx
            );
        }
    }

    /// Before sleeping: asks the driver to signal when it answers.
    pub fn prepare_to_wait(&mut self) -> bool {
        self.client.prepare_to_wait().unwrap_or(true)
    }
}

/// A received frame, read in place. Its buffer is the server's until
/// the next `receive`, which offers it to the driver again (the token
/// borrows the link, so it is gone by then).
pub struct RxToken<'a> {
    frame: &'a [u8],
}

/// A transmit slot, written in place and sent. smoltcp drops the one
/// paired with a received frame unused when the frame needs no answer:
/// the slot is then free again.
pub struct TxToken<'a> {
    link: &'a mut Link,
    /// The slot, until it is sent.
    id: Option<u32>,
}

impl Drop for TxToken<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.link.tx_free |= 1 << id;
        }
    }
}

impl smoltcp::phy::RxToken for RxToken<'_> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(self.frame)
    }
}

impl smoltcp::phy::TxToken for TxToken<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(mut self, len: usize, f: F) -> R {
        let len = len.min(MAX_FRAME as usize);
        // Every token is made with a slot, taken only here.
        let id = self.id.take().unwrap_or(0);
        let offset = Link::tx_offset(id);
        // Safety: slot `id` was free (not with the driver) and is this
        // token's alone until sent below.
        let r = f(unsafe { self.link.bytes(offset, len) });
        self.link.fault.sent(len);
        match self.link.client.send(id, offset, len as u32) {
            Ok(asked) => self.link.ring(asked),
            Err(e) => {
                println!("cannot queue a frame to send: {e:?}");
                self.link.tx_free |= 1 << id;
            }
        }
        r
    }
}

impl Device for Link {
    type RxToken<'a> = RxToken<'a>;
    type TxToken<'a> = TxToken<'a>;

    fn receive(&mut self, _now: Instant) -> Option<(RxToken<'_>, TxToken<'_>)> {
        if let Some(id) = self.held.take() {
            let _ = self.offer(id);
        }
        // A reply needs a slot: without one, the frame waits on the ring.
        let tx = self.take_tx()?;
        let Some((id, len)) = self.next_frame() else {
            self.tx_free |= 1 << tx;
            return None;
        };
        self.held = Some(id);
        // Safety: the driver answered buffer `id`, so it is the server's
        // until the next `receive` offers it again; the slice is made
        // from the data area's address, not through `self`, and the
        // token cannot outlive this borrow of the link.
        let frame = unsafe {
            core::slice::from_raw_parts((self.data + Link::rx_offset(id)) as *const u8, len)
        };
        Some((
            RxToken { frame },
            TxToken {
                link: self,
                id: Some(tx),
            },
        ))
    }

    fn transmit(&mut self, _now: Instant) -> Option<TxToken<'_>> {
        let id = self.take_tx()?;
        Some(TxToken {
            link: self,
            id: Some(id),
        })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = MAX_FRAME as usize;
        caps.max_burst_size = Some(TX as usize);
        caps
    }
}
