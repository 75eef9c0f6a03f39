//! Test task: a crc32c stage task whose first instance (every instance,
//! in the systems `flow-redirect` and `flow-fallback`) faults on purpose
//! after [`FAULT_AFTER`] buffers, so that init restarts it and flowmgr's
//! exception ladder has to act. Which instance it is comes from a word in
//! its own region, which outlives the task. Otherwise it is a stage task
//! like any other (`conflux-flow-stage` does the protocol).
//!
//! In the system `flow-silent` it does not fault: after [`FAULT_AFTER`]
//! buffers it stops answering anyone, for good (it waits on its doorbell
//! in a loop, holding the buffer in hand), as a stage stuck in a driver
//! bug would: alive, so nothing restarts it, and silent, so only
//! `flowmgr`'s call deadline notices.
//!
//! In the system `flow-fallback` it stands for a crypto device instead:
//! it answers `INFO` as a device cipher (so an `Any` cipher is placed on
//! it first) and runs the cipher with `conflux-flow-soft-core`, so what it
//! passes on is right until it faults. With no other device task in that
//! system, the ladder's only way out is the software fallback.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::stage::{info, Cipher, Engine, StageSpec, StageStatus, Start};
use conflux_flow_soft_core::{cipher, crc};
use conflux_flow_stage::{edges_match, Arrived, Config, Failure, FlowIo, Stages, System, Work};
use conflux_userlib::ipc::{Endpoint, Notification, Region};
use conflux_userlib::println;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;
const RECEIVED: usize = config::caps::FIRST_FREE + 1;
const CAP_BASE: usize = config::caps::FIRST_FREE + 2;
const WINDOW_BASE: u64 = 0x0000_6000_0000_0000;
/// Buffers the first instance passes on before it faults.
const FAULT_AFTER: u64 = 100;

/// `StageSpec::kind` of a cipher stage (the protocol keeps its kind
/// numbers private; flowsoft names them the same way).
const CIPHER_KIND: u64 = 3;

/// crc32c, or (standing for a device) a cipher; a flow's job is its
/// cipher, `None` for crc32c.
struct Flaky {
    device: bool,
}

impl Work for Flaky {
    type Flow = Option<Cipher>;

    fn start(
        &mut self,
        _flow: u32,
        start: &Start,
        _io: &mut FlowIo,
    ) -> Result<Option<Cipher>, StageStatus> {
        let job = match start.spec {
            StageSpec::Crc32c if !self.device => None,
            StageSpec::Cipher(c) if self.device && c.engine != Engine::Software => Some(c),
            _ => return Err(StageStatus::Unsupported),
        };
        if !edges_match(start) {
            return Err(StageStatus::BadEdge);
        }
        Ok(job)
    }

    fn stop(&mut self, _flow: u32, _state: Option<Cipher>) {}

    fn info(&self) -> [u64; 2] {
        if self.device {
            [1 << CIPHER_KIND, info::DEVICE]
        } else {
            [1 << StageSpec::Crc32c.kind(), 0]
        }
    }
}

fn main() {
    let state =
        Region(config::caps::STATE).premapped(config::caps::STATE_ADDR, config::caps::STATE_SIZE);
    let incarnation = state.read_u64(0).unwrap_or(0);
    let _ = state.write_u64(0, incarnation + 1);
    let flow = Endpoint(config::caps::FLOW);
    if let Err(e) = Notification(config::caps::FLOW_BELL).bind(&flow) {
        println!("cannot bind the doorbell to the FLOW endpoint: {e}");
        return;
    }
    let mut stages = Stages::new(Config {
        cap_base: CAP_BASE,
        window_base: WINDOW_BASE,
        flows: 2,
        lanes: 0,
    });
    let device = config::SYSTEM_NAME == "flow-fallback";
    let mut work = Flaky { device };
    let mut os = System;
    let mut passed = 0u64;
    let silent = config::SYSTEM_NAME == "flow-silent";
    let faults = !silent && (incarnation == 0 || device || config::SYSTEM_NAME == "flow-redirect");
    if device {
        println!("cipher stage standing for a device, instance {incarnation}");
    } else {
        println!("crc32c stage, instance {incarnation}");
    }
    loop {
        let progress = stages.run(|_, io, job| {
            let job = *job;
            io.transform(&mut os, |src, dst| {
                if faults && passed == FAULT_AFTER {
                    println!("faulting on purpose after {passed} buffers");
                    conflux_userlib::testing::fault_on_purpose();
                }
                if silent && passed == FAULT_AFTER {
                    go_silent();
                }
                passed += 1;
                match &job {
                    Some(c) => cipher::apply(c, src, dst).map_err(|_| Failure::Permanent),
                    None => crc::append(src, dst).ok_or(Failure::Permanent),
                }
            })
        });
        let got = if progress || !stages.idle() {
            flow.nb_recv(REPLY, RECEIVED)
        } else {
            flow.recv(REPLY, RECEIVED).map(Some)
        };
        match got {
            Ok(Some(got)) => match os.serve(&mut stages, &mut work, &got, REPLY) {
                Arrived::Answered | Arrived::Rang(_) => {}
            },
            Ok(None) => {}
            Err(e) => {
                println!("receive on the FLOW endpoint failed: {e}");
                return;
            }
        }
    }
}

/// Answers nobody from now on: waits on the doorbell (bound to this task,
/// so nobody else may take its signals) for ever. A neighbour's ring only
/// brings it back here; a failed wait yields once before trying again, so
/// even then it never spins alone on the CPU.
fn go_silent() -> ! {
    println!("going silent on purpose after {FAULT_AFTER} buffers: answering nobody from now on");
    let bell = Notification(config::caps::FLOW_BELL);
    loop {
        if bell.wait().is_err() {
            conflux_userlib::sys::yield_now();
        }
    }
}
