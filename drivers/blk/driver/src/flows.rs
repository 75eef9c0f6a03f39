//! The driver as a flow stage: the `blocks` source and sink.
//!
//! The **source** reads its sector range into the output edge's buffers
//! in order, each buffer a whole number of sectors (the last one may be
//! shorter), and finishes at the end of the range. The **sink** packs the
//! incoming buffers' bytes densely into a staging buffer in the driver's
//! DMA pool and writes whole chunks in order; when its input runs dry (the
//! source finished, or is slow) and at STOP it writes the tail too, the
//! last sector padded with zeros and kept staged, so bytes that arrive
//! later complete it and it is written again. Bytes past the range are
//! dropped and counted.
//!
//! Flows share the device with the driver's clients without a second
//! virtqueue: a flow's request runs to completion, the driver sleeping
//! until the device's interrupt (`sleep`), and only while no client
//! request is on the device, so the used ring never holds another
//! request's completion when the flow waits for its own. The pool is
//! registered with the HAL as DMA memory, so reads land in the flow's
//! buffers directly.

mod sleep;
mod staging;

use crate::device::Blk;
use crate::serve::Serving;
use alloc::boxed::Box;
use alloc::vec::Vec;
use conflux_abi::SysError;
use conflux_flow_protocol::stage::{StageSpec, StageStatus, Start};
use conflux_flow_stage::driver::FlowSide;
use conflux_flow_stage::{
    edges_match, Arrived, Failure, FlowIo, Os, Role, StageEndpoint, Step, System, Work,
};
use conflux_userlib::ipc::Region;
use conflux_userlib::println;
use conflux_virtio_hal::{register_shared, unregister_shared, Window};
use staging::Staging;

const SECTOR: usize = 512;

/// Where a flow is in its range: the next sector to read or write.
struct Cursor {
    next: u64,
    end: u64,
}

/// A sink's staged bytes: `fill` bytes belonging from sector `next` on.
struct Sink {
    staging: Staging,
    fill: usize,
    /// Staged bytes not yet on the disk.
    dirty: bool,
}

/// One flow of the block device.
pub struct Flow {
    at: Cursor,
    window: Window,
    sink: Option<Sink>,
    /// Bytes taken (sink) or sent (source).
    bytes: u64,
}

/// What the flows keep between turns.
pub struct Blocks {
    capacity: u64,
    /// Sinks stopped since the last turn: their tail is written then
    /// (`stop` has no device to hand).
    stopped: Vec<Flow>,
}

impl Work for Blocks {
    type Flow = Flow;

    fn start(&mut self, _flow: u32, start: &Start, io: &mut FlowIo) -> Result<Flow, StageStatus> {
        let StageSpec::Blocks { first, count } = start.spec else {
            return Err(StageStatus::Unsupported);
        };
        if !edges_match(start) {
            return Err(StageStatus::BadEdge);
        }
        let end = first.checked_add(count).filter(|&e| e <= self.capacity);
        let Some(end) = end else {
            return Err(StageStatus::DeviceRefused); // past the disk's end
        };
        // A source's buffers hold at least a sector; a sink's fit the
        // staging buffer beside a partial sector.
        let fits = match (start.output, start.input) {
            (Some(o), _) => o.size as usize >= SECTOR,
            (None, Some(i)) => i.size as usize + SECTOR <= staging::BYTES,
            (None, None) => false,
        };
        if !fits {
            return Err(StageStatus::BadEdge);
        }
        let sink = match start.input {
            Some(_) => Some(Sink {
                staging: Staging::new().ok_or(StageStatus::DeviceRefused)?,
                fill: 0,
                dirty: false,
            }),
            None => None,
        };
        let pool = io.pool();
        let phys = Region(pool.slot())
            .phys(0)
            .map_err(|_| StageStatus::BadCapability)?;
        let window = Window {
            virt: pool.bytes().as_mut_ptr() as u64,
            phys,
            len: pool.len() as u64,
        };
        if !register_shared(window) {
            return Err(StageStatus::DeviceRefused);
        }
        // A rewired source goes on at buffer `position`: each of its
        // buffers is whole sectors of the output's size.
        let per = start
            .output
            .map_or(0, |o| u64::from(o.size) / SECTOR as u64);
        let next = first
            .saturating_add(per.saturating_mul(start.position))
            .min(end);
        Ok(Flow {
            at: Cursor { next, end },
            window,
            sink,
            bytes: 0,
        })
    }

    fn stop(&mut self, _flow: u32, f: Flow) {
        unregister_shared(f.window);
        if f.sink.is_some() {
            self.stopped.push(f);
        }
    }

    fn info(&self) -> [u64; 2] {
        let blocks = 2; // StageSpec::Blocks's kind
        [1 << blocks, 0]
    }

    /// The next sector to read or write (a sink's earlier sectors are on
    /// the disk, the tail's too once its input ran dry), and bytes.
    fn figures(&self, f: &Flow) -> [u64; 2] {
        [f.at.next, f.bytes]
    }
}

/// One step of flow `f`, run only when no client request is on the device.
fn step(blk: &mut Blk, os: &mut impl Os, io: &mut FlowIo, f: &mut Flow) -> Step {
    let Flow {
        at, sink, bytes, ..
    } = f;
    let Some(s) = sink else {
        return io.source(os, |dst| {
            let left = at.end - at.next;
            if left == 0 {
                return Err(Failure::Permanent); // the whole range is read
            }
            let sectors = (dst.len() / SECTOR).min(left as usize);
            let buf = &mut dst[..sectors * SECTOR];
            sleep::read(blk, at.next, buf).map_err(|_| Failure::Transient)?;
            at.next += sectors as u64;
            *bytes += buf.len() as u64;
            Ok(Some(buf.len()))
        });
    };
    let mut dropped = false;
    let step = io.sink(os, |src, _seq| {
        if s.fill + src.len() > staging::BYTES {
            // Whole sectors out first, so the buffer fits.
            write_whole(blk, at, s).map_err(|_| Failure::Transient)?;
        }
        // Room left in the range, past what is staged.
        let room = ((at.end - at.next) as usize * SECTOR).saturating_sub(s.fill);
        let n = src.len().min(room);
        dropped = n < src.len();
        s.staging.bytes()[s.fill..s.fill + n].copy_from_slice(&src[..n]);
        s.fill += n;
        s.dirty |= n > 0;
        *bytes += src.len() as u64;
        Ok(())
    });
    if dropped {
        io.count_drop();
    }
    if step == Step::WaitInput && flush(blk, at, s).is_err() {
        // The tail stays dirty; tried again on the next turn.
        return Step::WaitOther;
    }
    step
}

/// Writes the staged whole sectors and keeps the partial one staged.
fn write_whole(blk: &mut Blk, at: &mut Cursor, s: &mut Sink) -> Result<(), ()> {
    let sectors = s.fill / SECTOR;
    if sectors == 0 {
        return Ok(());
    }
    let n = sectors * SECTOR;
    let bytes = s.staging.bytes();
    sleep::write(blk, at.next, &bytes[..n]).map_err(|_| ())?;
    bytes.copy_within(n..s.fill, 0);
    at.next += sectors as u64;
    s.fill -= n;
    s.dirty = s.fill > 0;
    Ok(())
}

/// Writes everything staged in one request; a partial last sector goes
/// out padded with zeros and stays staged for the bytes that complete it
/// (one request, not one for the whole sectors and one for the tail: at
/// 16,000 small buffers a second the input runs dry every few buffers).
fn flush(blk: &mut Blk, at: &mut Cursor, s: &mut Sink) -> Result<(), ()> {
    let whole = s.fill / SECTOR * SECTOR;
    let end = s.fill.next_multiple_of(SECTOR);
    if !s.dirty || end == 0 {
        s.dirty = false;
        return Ok(());
    }
    let bytes = s.staging.bytes();
    bytes[s.fill..end].fill(0);
    sleep::write(blk, at.next, &bytes[..end]).map_err(|_| ())?;
    bytes.copy_within(whole..s.fill, 0);
    at.next += (whole / SECTOR) as u64;
    s.fill -= whole;
    s.dirty = false;
    Ok(())
}

/// The driver's flow side: `flowmgr`'s endpoint, with the device's
/// notification bound to it so one wait covers the device, the clients'
/// doorbells, the flows' doorbells and `flowmgr`.
pub struct Stage {
    flows: StageEndpoint<Blocks>,
}

impl Stage {
    /// The stage side if this task's configuration makes it a flow stage.
    pub fn from_config(capacity: u64) -> Result<Option<Box<Self>>, SysError> {
        conflux_flow_stage::flow_role()
            .map(|role| Self::new(role, capacity))
            .transpose()
    }

    /// Built only for a stage, and boxed: the flow tables are large, and a
    /// driver that is no stage keeps its stack.
    #[inline(never)]
    fn new(role: Role, capacity: u64) -> Result<Box<Self>, SysError> {
        let flows = StageEndpoint::new(
            role.flow,
            crate::config::device::IRQ_NOTIFY,
            role.first_free,
            Blocks {
                capacity,
                stopped: Vec::new(),
            },
        )?;
        Ok(Box::new(Self { flows }))
    }

    /// Moves a buffer for every flow that has one, if no client request
    /// is on the device (`device_free`); whether any moved.
    pub fn turn(&mut self, blk: &mut Blk, device_free: bool) -> bool {
        if !device_free {
            return false;
        }
        for mut f in self.flows.work.stopped.drain(..) {
            if let Some(s) = f.sink.as_mut() {
                if flush(blk, &mut f.at, s).is_err() {
                    println!("a stopped block sink's last bytes could not be written (sector {}): they are lost", f.at.next);
                }
            }
        }
        self.flows
            .stages
            .run(|_, io, f| step(blk, &mut System, io, f))
    }

    /// Takes one message or doorbell, waiting for it if `block` and every
    /// flow is idle; the notification bits if the bound notification rang.
    pub fn receive(&mut self, block: bool) -> Option<u64> {
        match self.flows.receive(block)? {
            Arrived::Rang(bits) => Some(bits),
            Arrived::Answered => None,
        }
    }
}

impl FlowSide<Serving<'_>> for Box<Stage> {
    fn work(&mut self, s: &mut Serving<'_>) -> bool {
        let free = s.device_free();
        self.turn(s.dev, free)
    }

    fn receive(&mut self, _: &mut Serving<'_>, block: bool) -> Option<u64> {
        Stage::receive(self, block)
    }
}
