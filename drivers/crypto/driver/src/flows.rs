//! The driver as a flow stage: the `cipher` transformer on the device.
//!
//! `flowmgr` attaches a flow's pool (a region with the DMA right) and
//! edges; at START the pool is registered with the HAL as DMA-capable
//! memory, so each buffer goes to the device by physical address, source
//! and destination both in the pool, no copy. Each flow has its own
//! device session (key, direction), made on first use and made again
//! after a device reset (the device forgets sessions then). A failure
//! that a reset or a later try cures (the device needing a reset, no
//! free session) is *transient*: the buffer is kept and retried; any
//! other (a length the device refuses, an error status) is *permanent*:
//! the buffer is dropped and counted, for `flowmgr`'s exception ladder.

use crate::device::Crypto;
use crate::serve::Serving;
use alloc::boxed::Box;
use alloc::vec::Vec;
use conflux_abi::SysError;
use conflux_flow_protocol::stage::info;
use conflux_flow_protocol::stage::{Cipher, Direction, Mode, StageSpec, StageStatus, Start};
use conflux_flow_stage::driver::FlowSide;
use conflux_flow_stage::{
    edges_match, Arrived, Failure, FlowIo, Os, Role, StageEndpoint, Step, System, Work,
};
use conflux_userlib::ipc::Region;
use conflux_virtio_crypto as device;
use conflux_virtio_crypto::{Error, Job, SessionId};
use conflux_virtio_hal::{register_shared, unregister_shared, Window};

/// One flow's cipher on the device.
pub struct Flow {
    spec: Cipher,
    /// The device session and the device generation it was made in.
    session: Option<(SessionId, u32)>,
    window: Window,
}

/// What the flows need between turns: the pools registered with the HAL
/// (again after a reset) and sessions of stopped flows, destroyed on the
/// device on the next turn (`stop` has no device to hand).
#[derive(Default)]
pub struct Ciphers {
    pub windows: Vec<Window>,
    retired: Vec<(SessionId, u32)>,
}

impl Work for Ciphers {
    type Flow = Flow;

    fn start(&mut self, _flow: u32, start: &Start, io: &mut FlowIo) -> Result<Flow, StageStatus> {
        let StageSpec::Cipher(spec) = start.spec else {
            return Err(StageStatus::Unsupported);
        };
        if !edges_match(start) {
            return Err(StageStatus::BadEdge);
        }
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
        self.windows.push(window);
        Ok(Flow {
            spec,
            session: None,
            window,
        })
    }

    fn stop(&mut self, _flow: u32, f: Flow) {
        unregister_shared(f.window);
        self.windows.retain(|w| *w != f.window);
        if let Some(s) = f.session {
            self.retired.push(s);
        }
    }

    fn info(&self) -> [u64; 2] {
        let cipher = 3; // StageSpec::Cipher's kind
        [1 << cipher, info::DEVICE]
    }
}

impl Ciphers {
    /// Destroys the sessions of flows stopped since the last turn (those
    /// of the current device generation; older ones died with a reset).
    pub fn retire(&mut self, c: &mut Crypto) {
        let generation = c.generation();
        for (id, g) in self.retired.drain(..) {
            if let (Some(dev), true) = (c.device.as_mut(), g == generation) {
                let _ = dev.destroy_session(id);
            }
        }
    }
}

/// What a step learned about the device.
pub enum Device {
    Fine,
    /// The device must be reset (sessions are then lost everywhere).
    NeedsReset,
}

/// One step of flow `f`: cipher the buffers waiting (up to
/// [`conflux_flow_stage::BATCH`]) on the device, handed to it together.
pub fn step(c: &mut Crypto, os: &mut impl Os, io: &mut FlowIo, f: &mut Flow) -> (Step, Device) {
    let generation = c.generation();
    let mut needs_reset = false;
    let mut ciphered = 0;
    let step = io.transform_batch(os, |pairs, results| {
        let Some(dev) = c.device.as_mut() else {
            // The device did not come back from a reset.
            results.fill(Err(Failure::Permanent));
            return;
        };
        let session = match f.session {
            Some((id, g)) if g == generation => id,
            _ => match dev.create_session(
                algorithm(f.spec.mode),
                f.spec.key.as_bytes(),
                direction(f.spec.direction),
            ) {
                Ok(id) => {
                    f.session = Some((id, generation));
                    id
                }
                Err(e) => {
                    results.fill(Err(failure(e, &mut needs_reset)));
                    return;
                }
            },
        };
        let mut jobs: Vec<Job<'_>> = Vec::with_capacity(pairs.len());
        for (src, dst) in pairs.iter_mut() {
            let src: &[u8] = src;
            // A destination shorter than the source is refused by the
            // device layer's length check (a permanent failure).
            let len = src.len().min(dst.len());
            jobs.push(Job {
                session,
                dir: direction(f.spec.direction),
                iv: &f.spec.iv,
                src,
                dst: &mut dst[..len],
            });
        }
        let mut done = [Ok(()); conflux_flow_stage::BATCH];
        let done = &mut done[..jobs.len()];
        dev.cipher_batch(&mut jobs, done);
        for ((r, d), job) in results.iter_mut().zip(done.iter()).zip(&jobs) {
            *r = match d {
                Ok(()) => {
                    ciphered += 1;
                    Ok(job.src.len())
                }
                Err(e) => Err(failure(*e, &mut needs_reset)),
            };
        }
    });
    dies_on_purpose(ciphered);
    slow_on_purpose(ciphered);
    let device = if needs_reset {
        Device::NeedsReset
    } else {
        Device::Fine
    };
    (step, device)
}

/// Test systems only: in the system named `flow-device-dies`, the driver
/// faults on purpose once its flows have ciphered 300 buffers, and the
/// manifest does not restart it, so the in-guest test sees the exception
/// ladder lose the only crypto device for good and fall back to software.
/// Every other system never takes this path.
fn dies_on_purpose(ciphered: u64) {
    use core::sync::atomic::{AtomicU64, Ordering};
    static CIPHERED: AtomicU64 = AtomicU64::new(0);
    if crate::config::SYSTEM_NAME != "flow-device-dies" {
        return;
    }
    let before = CIPHERED.fetch_add(ciphered, Ordering::Relaxed);
    if before < 300 && before + ciphered >= 300 {
        conflux_userlib::println!(
            "test system 'flow-device-dies': faulting on purpose after ciphering 300 flow buffers"
        );
        conflux_userlib::testing::fault_on_purpose();
    }
}

/// Test systems only: in the system named `flow-autoreplicate`, the task
/// named `crypto` (not its twin `crypto2`) takes about a millisecond
/// more per buffer, yielding meanwhile, so that the in-guest test sees
/// `flowmgr` find it the bottleneck and replicate it onto the other
/// device. Every other system never takes this path.
fn slow_on_purpose(ciphered: u64) {
    if crate::config::SYSTEM_NAME != "flow-autoreplicate"
        || conflux_userlib::task::name() != "crypto"
    {
        return;
    }
    // About a millisecond at the few GHz a host's TSC runs at.
    const CYCLES: u64 = 3_000_000;
    let until = conflux_userlib::sys::rdtsc().saturating_add(CYCLES.saturating_mul(ciphered));
    while conflux_userlib::sys::rdtsc() < until {
        conflux_userlib::sys::yield_now();
    }
}

/// Transient or permanent, and whether the device must be reset first.
fn failure(e: Error, needs_reset: &mut bool) -> Failure {
    match e {
        Error::DeviceNeedsReset | Error::Broken => {
            *needs_reset = true;
            Failure::Transient
        }
        // Sessions free up as other flows and clients end.
        Error::NoSpace => Failure::Transient,
        _ => Failure::Permanent,
    }
}

fn algorithm(m: Mode) -> device::Algorithm {
    match m {
        Mode::Cbc => device::Algorithm::Cbc,
        Mode::Ctr => device::Algorithm::Ctr,
    }
}

fn direction(d: Direction) -> device::Direction {
    match d {
        Direction::Encrypt => device::Direction::Encrypt,
        Direction::Decrypt => device::Direction::Decrypt,
    }
}

/// The driver's flow side: `flowmgr`'s endpoint, with the device's
/// notification bound to it so one wait covers the device, the clients'
/// doorbells, the flows' doorbells and `flowmgr`.
pub struct Stage {
    flows: StageEndpoint<Ciphers>,
}

impl Stage {
    /// The stage side if this task's configuration makes it a flow stage.
    pub fn from_config() -> Result<Option<Box<Self>>, SysError> {
        conflux_flow_stage::flow_role().map(Self::new).transpose()
    }

    /// Built only for a stage, and boxed: the flow tables are large, and a
    /// driver that is no stage keeps its 16 KiB stack.
    #[inline(never)]
    fn new(role: Role) -> Result<Box<Self>, SysError> {
        let flows = StageEndpoint::new(
            role.flow,
            crate::config::device::IRQ_NOTIFY,
            role.first_free,
            Ciphers::default(),
        )?;
        Ok(Box::new(Self { flows }))
    }

    /// Ciphers a buffer for every flow that has one; whether any moved,
    /// and whether the device must be reset.
    pub fn turn(&mut self, c: &mut Crypto) -> (bool, bool) {
        let mut reset = false;
        let moved = self.flows.stages.run(|_, io, f| {
            let (s, d) = step(c, &mut System, io, f);
            reset |= matches!(d, Device::NeedsReset);
            s
        });
        (moved, reset)
    }

    /// Takes one message or doorbell, waiting for it if `block` and every
    /// flow is idle; the notification bits if the bound notification rang.
    pub fn receive(&mut self, c: &mut Crypto, block: bool) -> Option<u64> {
        match self.flows.receive(block)? {
            Arrived::Rang(bits) => Some(bits),
            Arrived::Answered => {
                self.flows.work.retire(c);
                c.flow_windows.clone_from(&self.flows.work.windows);
                None
            }
        }
    }
}

impl FlowSide<Serving<'_>> for Box<Stage> {
    fn work(&mut self, s: &mut Serving<'_>) -> bool {
        let (moved, needs_reset) = self.turn(s.c);
        if needs_reset {
            s.reset_for_flow();
        }
        moved
    }

    fn receive(&mut self, s: &mut Serving<'_>, block: bool) -> Option<u64> {
        Stage::receive(self, s.c, block)
    }
}
