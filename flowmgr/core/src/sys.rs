//! What `flowmgr` asks of the system, as a trait: calling a stage task
//! (with a capability, and a deadline), formatting and reading a slot's
//! edges, revoking a slot's capabilities, signalling an application, and
//! reporting a stage that stopped answering. The server implements it
//! with system calls; the host tests with a model.

use conflux_flow_protocol::edge::EdgeStats;
use conflux_flow_protocol::Span;

/// A capability `flowmgr` hands a stage: a copy of one of a slot's
/// regions, or of a stage task's doorbell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    /// The pool of flow slot `slot`.
    Pool { slot: usize },
    /// Edge `edge` of flow slot `slot`.
    Edge { slot: usize, edge: usize },
    /// The doorbell of stage task `task`.
    Bell { task: usize },
}

/// A stage task's answer: its label (a `StageStatus` if the task is
/// well behaved) and up to five words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    pub label: u32,
    pub words: [u64; 5],
    pub len: usize,
}

impl Reply {
    /// Word `i`, 0 if the answer was shorter.
    pub fn word(&self, i: usize) -> u64 {
        if i < self.len.min(5) {
            self.words[i]
        } else {
            0
        }
    }
}

/// How long `flowmgr` waits for a stage task's answer: past it the call
/// gives up ([`Unanswered::Silent`]). A stage answers between steps of its
/// loop, which are short; the longest answers are a `tcp` sink's `START`
/// and `STOP` (each waits up to 2 s for the network), hence 5 s.
pub const STAGE_DEADLINE_MS: u64 = 5_000;

/// Why a call to a stage task got no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unanswered {
    /// It did not reach a living task: the task died, or was restarted
    /// since `flowmgr` last called it (the kernel's `DeadPeer`; the next
    /// call reaches the new instance), or the call failed otherwise.
    Dead,
    /// The task lives but gave no answer within [`STAGE_DEADLINE_MS`]: it
    /// is stuck. Calling it again would only wait as long again.
    Silent,
}

/// The system calls `flowmgr` makes.
pub trait Sys {
    /// Calls stage task `task` with `label` and `words`, sending a copy of
    /// `cap` if given, waiting at most [`STAGE_DEADLINE_MS`] for the answer.
    fn call(
        &mut self,
        task: usize,
        label: u32,
        words: &[u64],
        cap: Option<Cap>,
    ) -> Result<Reply, Unanswered>;
    /// Formats edge `edge` of slot `slot` empty with `span`'s buffers on
    /// its free ring; `false` if it could not.
    fn format(&mut self, slot: usize, edge: usize, span: Span) -> bool;
    /// Reads edge `edge` of slot `slot` (`None` if it is unreadable).
    fn observe(&mut self, slot: usize, edge: usize) -> Option<EdgeStats>;
    /// Revokes every capability derived from slot `slot`'s pool and edges:
    /// whatever a stage kept of them is gone (its mappings fault).
    fn revoke(&mut self, slot: usize);
    /// Signals the application's notification for slot `slot`, if it gave
    /// one: its flow changed state or took a ladder step.
    fn notify(&mut self, slot: usize);
    /// Rings stage task `task`'s doorbell: a rate-limited source waiting
    /// for credit has no neighbour to wake it, so each look wakes it.
    fn ring(&mut self, task: usize);
    /// Reports that stage `stage` of flow `flow` (its id word), run by
    /// task `task`, stopped answering and the ladder takes over: one line
    /// for the operator.
    fn stage_silent(&mut self, flow: u64, stage: usize, task: usize);
}
