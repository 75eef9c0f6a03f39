//! The system calls behind `conflux-flowmgr-core`'s [`Sys`]: calling a
//! stage task with a copy of one capability (with a deadline, so a stuck
//! stage cannot hold `flowmgr` forever), formatting and reading the
//! premapped edges, revoking a slot, signalling an application.

use crate::{NOTIFY_BASE, SPARE};
use conflux_abi::time::ticks_for_ms;
use conflux_abi::SysError;
use conflux_flow_protocol::edge::EdgeStats;
use conflux_flow_protocol::stage::label;
use conflux_flow_protocol::Span;
use conflux_flow_stage::Mapping;
use conflux_flowmgr_core::slots::MAX_SLOTS;
use conflux_flowmgr_core::{Cap, Reply, Sys, Unanswered, STAGE_DEADLINE_MS};
use conflux_userlib::ipc::{long_word, set_long_word, Endpoint, Message, Notification, Slot};
use conflux_userlib::println;

const EDGES: usize = 5;

/// The real system, with the edges of every slot as the manifest mapped
/// them in this task.
pub struct Kernel {
    edges: [[Option<Mapping>; EDGES]; MAX_SLOTS],
    /// Which slots hold an application's notification.
    notify: [bool; MAX_SLOTS],
}

impl Kernel {
    pub fn new() -> Self {
        let mut edges: [[Option<Mapping>; EDGES]; MAX_SLOTS] = Default::default();
        for (n, (_, slots, addrs)) in crate::config::flows::SLOTS
            .iter()
            .enumerate()
            .take(MAX_SLOTS)
        {
            for e in 0..EDGES {
                // The manifest premapped each edge region here, writable,
                // for as long as this task lives; nothing else in this
                // task uses these addresses.
                edges[n][e] = Some(Mapping::new(
                    addrs[e] as *mut u8,
                    crate::config::flows::EDGE_SIZE,
                    slots[e],
                ));
            }
        }
        Self {
            edges,
            notify: [false; MAX_SLOTS],
        }
    }

    /// Files the capability in `from` as slot `slot`'s application
    /// notification (or deletes it if it is not a notification); `true`
    /// if filed.
    pub fn file_notify(&mut self, from: usize, slot: usize) -> bool {
        let is_notification = matches!(Slot(from).info(), Ok((kind, _, _)) if kind == conflux_abi::cap::ObjectKind::Notification as u8);
        let filed = is_notification && slot < MAX_SLOTS && {
            let _ = Slot(NOTIFY_BASE + slot).delete();
            Slot(from).copy(NOTIFY_BASE + slot).is_ok()
        };
        let _ = Slot(from).delete();
        if let Some(n) = self.notify.get_mut(slot) {
            *n = filed;
        }
        filed
    }

    /// Forgets slot `slot`'s application notification.
    pub fn drop_notify(&mut self, slot: usize) {
        if let Some(n) = self.notify.get_mut(slot) {
            if core::mem::take(n) {
                let _ = Slot(NOTIFY_BASE + slot).delete();
            }
        }
    }
}

/// The slot in this task of the capability `cap` names.
fn source(cap: Cap) -> Option<usize> {
    let slots = crate::config::flows::SLOTS;
    Some(match cap {
        Cap::Pool { slot } => slots.get(slot)?.0,
        Cap::Edge { slot, edge } => *slots.get(slot)?.1.get(edge)?,
        Cap::Bell { task } => crate::config::flows::STAGES.get(task)?.2,
    })
}

impl Sys for Kernel {
    fn call(
        &mut self,
        task: usize,
        label: u32,
        words: &[u64],
        cap: Option<Cap>,
    ) -> Result<Reply, Unanswered> {
        let (_, endpoint, _) = *crate::config::flows::STAGES
            .get(task)
            .ok_or(Unanswered::Dead)?;
        let n = words.len().min(conflux_abi::ipc::MAX_WORDS);
        for (i, w) in words.iter().enumerate().take(n).skip(4) {
            set_long_word(i, *w);
        }
        let mut msg = Message::new(label, &words[..n.min(4)]).with_len(n);
        if let Some(c) = cap {
            let from = source(c).ok_or(Unanswered::Dead)?;
            let _ = Slot(SPARE).delete();
            if let Err(e) = Slot(from).copy(SPARE) {
                println!("cannot copy capability slot {from} to hand a stage ({e}): is the manifest's [flows] complete?");
                return Err(Unanswered::Dead);
            }
            msg = msg.with_cap(SPARE);
        }
        let got = Endpoint(endpoint).call_within(&msg, ticks_for_ms(STAGE_DEADLINE_MS));
        if cap.is_some() {
            // The stage got a copy derived from the spare; deleting the
            // spare hands it to the slot's capability, so revoking that
            // still reaches it.
            let _ = Slot(SPARE).delete();
        }
        match got {
            Ok(m) => {
                let mut r = Reply {
                    label: m.label,
                    len: m.len.min(5),
                    ..Reply::default()
                };
                for i in 0..r.len {
                    r.words[i] = if i < 4 { m.words[i] } else { long_word(i) };
                }
                Ok(r)
            }
            Err(SysError::DeadPeer) => Err(Unanswered::Dead),
            Err(SysError::TimedOut) => {
                println!(
                    "stage task '{}' did not answer {} within {STAGE_DEADLINE_MS} ms: it runs but is stuck; flowmgr calls it no more until it answers INFO again (asked at each CREATE)",
                    task_name(task),
                    label_name(label)
                );
                Err(Unanswered::Silent)
            }
            Err(e) => {
                println!("call to stage task '{}' failed: {e}", task_name(task));
                Err(Unanswered::Dead)
            }
        }
    }

    fn format(&mut self, slot: usize, edge: usize, span: Span) -> bool {
        let Some(Some(m)) = self.edges.get_mut(slot).and_then(|s| s.get_mut(edge)) else {
            return false;
        };
        match m.format_edge(crate::config::flows::POOL_SIZE as u64, span) {
            Ok(()) => true,
            Err(e) => {
                println!("cannot format edge {edge} of flow slot {slot}: {e}");
                false
            }
        }
    }

    fn observe(&mut self, slot: usize, edge: usize) -> Option<EdgeStats> {
        self.edges
            .get(slot)?
            .get(edge)?
            .as_ref()?
            .observe_edge()
            .ok()
    }

    fn revoke(&mut self, slot: usize) {
        let Some((pool, edges, _)) = crate::config::flows::SLOTS.get(slot) else {
            return;
        };
        for s in core::iter::once(pool).chain(edges) {
            if let Err(e) = Slot(*s).revoke() {
                println!("revoking slot {s} of flow slot {slot} failed: {e}");
            }
        }
    }

    fn notify(&mut self, slot: usize) {
        if self.notify.get(slot) == Some(&true) {
            let _ = Notification(NOTIFY_BASE + slot).signal();
        }
    }

    fn stage_silent(&mut self, flow: u64, stage: usize, task: usize) {
        println!(
            "flow {flow}: stage {stage} (task '{}') stopped answering; the exception ladder takes over, as for a stage that died",
            task_name(task)
        );
    }

    fn ring(&mut self, task: usize) {
        if let Some((_, _, bell)) = crate::config::flows::STAGES.get(task) {
            // A failed ring leaves the source waiting until the next look.
            let _ = Notification(*bell).signal();
        }
    }
}

/// Stage task `task`'s name in the manifest.
fn task_name(task: usize) -> &'static str {
    crate::config::flows::STAGES.get(task).map_or("?", |s| s.0)
}

/// A stage message's name, for the operator.
fn label_name(l: u32) -> &'static str {
    match l {
        label::ATTACH => "ATTACH",
        label::START => "START",
        label::STOP => "STOP",
        label::STATS => "STATS",
        label::PAUSE => "PAUSE",
        label::RESUME => "RESUME",
        label::INFO => "INFO",
        _ => "a message",
    }
}
