//! Not calling what stopped answering.
//!
//! A stage task whose call ran past its deadline is stuck, and every
//! later call to it would wait out the deadline again, holding up
//! `flowmgr` (and every application calling it) each time: stopping its
//! flows, asking its other flows' figures. [`Quiet`] wraps the system so
//! that a call to such a task fails at once as [`Unanswered::Silent`]; it
//! starts from the registry's silent tasks and adds each task it finds
//! silent, and the manager writes those back
//! ([`Registry::mark_silent`](crate::registry::Registry::mark_silent)).
//! Only `INFO` at the next create calls such a task again (through the
//! unwrapped system), and an answer clears it.

use crate::registry::Avoid;
use crate::sys::{Cap, Reply, Sys, Unanswered};
use conflux_flow_protocol::edge::EdgeStats;
use conflux_flow_protocol::Span;

/// `sys`, not calling the tasks in `silent`.
pub(crate) struct Quiet<'a, S: Sys> {
    sys: &'a mut S,
    silent: Avoid,
}

impl<'a, S: Sys> Quiet<'a, S> {
    pub fn new(sys: &'a mut S, silent: Avoid) -> Self {
        Self { sys, silent }
    }

    /// The tasks known silent now: those it started with and those found.
    pub fn silent(&self) -> Avoid {
        self.silent
    }
}

impl<S: Sys> Sys for Quiet<'_, S> {
    fn call(
        &mut self,
        task: usize,
        label: u32,
        words: &[u64],
        cap: Option<Cap>,
    ) -> Result<Reply, Unanswered> {
        let bit = 1u32.checked_shl(task as u32).unwrap_or(0);
        if self.silent & bit != 0 {
            return Err(Unanswered::Silent);
        }
        let r = self.sys.call(task, label, words, cap);
        if r == Err(Unanswered::Silent) {
            self.silent |= bit;
        }
        r
    }
    fn format(&mut self, slot: usize, edge: usize, span: Span) -> bool {
        self.sys.format(slot, edge, span)
    }
    fn observe(&mut self, slot: usize, edge: usize) -> Option<EdgeStats> {
        self.sys.observe(slot, edge)
    }
    fn revoke(&mut self, slot: usize) {
        self.sys.revoke(slot)
    }
    fn notify(&mut self, slot: usize) {
        self.sys.notify(slot)
    }
    fn ring(&mut self, task: usize) {
        self.sys.ring(task)
    }
    fn stage_silent(&mut self, flow: u64, stage: usize, task: usize) {
        self.sys.stage_silent(flow, stage, task)
    }
}
