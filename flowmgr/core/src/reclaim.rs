//! What a restarted `flowmgr` does before it serves: take back everything
//! a previous instance handed out.
//!
//! A `flowmgr` that faulted and was restarted by init has lost its flow
//! table, but its stage tasks still run the old flows and hold copies of
//! the slots' pools and edges. The new instance asks every stage task to
//! `STOP` each of its flow numbers (a stage answers `UnknownFlow` for a
//! number it does not use, so on a first boot nothing happens), then
//! revokes everything derived from each slot's capabilities: the kernel
//! hands a dead task's children to its restarted successor's capabilities,
//! so this also reaches copies a stage kept after `STOP`. Only then can a
//! slot hold a new flow without an old stage seeing its buffers.

use crate::manager::{ask, Fail};
use crate::sys::Sys;
use conflux_flow_protocol::stage::{label, MAX_FLOWS};

/// What was found of a previous instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reclaimed {
    /// Stage flows that were running or being wired, now stopped.
    pub stopped: u32,
    /// Stage tasks that did not answer (dead, stuck, or not serving yet).
    pub silent: u32,
}

/// Stops every flow number of each of `tasks` stage tasks, then revokes
/// every slot of `slots`.
pub fn reclaim(sys: &mut impl Sys, tasks: usize, slots: usize) -> Reclaimed {
    let mut found = Reclaimed::default();
    for task in 0..tasks {
        for n in 0..u64::from(MAX_FLOWS) {
            match ask(sys, task, label::STOP, &[n], None) {
                Ok(_) => found.stopped += 1,
                // `UnknownFlow`: a number nobody used.
                Err(Fail::Refused(_)) => {}
                Err(Fail::Dead | Fail::Silent) => {
                    found.silent += 1;
                    break;
                }
            }
        }
    }
    for slot in 0..slots {
        sys.revoke(slot);
    }
    found
}
