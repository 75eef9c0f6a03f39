//! Bound notifications: one receive loop for messages and signals.
//!
//! A task binds one notification (`ntfn_bind`, seL4's bound
//! notifications). While it is blocked receiving on an endpoint (`recv`,
//! `reply_recv`), a signal on that notification ends the receive with a
//! kernel-made message ([`NOTIFY_LABEL`], badge = the notification word,
//! which the delivery clears); a receive that starts while the word is
//! non-zero returns that message at once (`nb_recv` too), before any
//! waiting sender. A notification binds to at most one task and a task
//! binds at most one notification; only the bound task may wait on or
//! poll a bound notification, so no signal is taken behind its back.
//!
//! The binding is kept in the task and names the slot it was made
//! through, so it never outlives its authority: deleting or revoking that
//! capability unbinds (as does the task ending or restarting).

use crate::cspace::NodeId;
use crate::kernel::{Kernel, Next};
use crate::machine::{Machine, UserRegs};
use crate::object::Object;
use crate::task::{State, Task};
use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::ipc::{Info, RawMessage, NOTIFY_LABEL, REG_WORDS};
use conflux_abi::SysError;

/// A task's bound notification: object `obj`, bound through `slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub obj: u16,
    pub slot: u8,
}

/// The message that ends a receive when the bound notification holds `word`.
pub fn notify_message(word: u64) -> RawMessage {
    let info = Info {
        from_kernel: true,
        ..Info::new(NOTIFY_LABEL, 0)
    };
    RawMessage {
        info: info.encode().unwrap_or(0),
        badge: word,
        words: [0; REG_WORDS],
    }
}

/// Forgets what task `t` did through `slot` (its capability is gone): the
/// binding made through it and a timer armed through it.
pub(crate) fn forget_slot<M: Machine>(t: &mut Task<M>, slot: usize) {
    if t.bound.is_some_and(|b| b.slot as usize == slot) {
        t.bound = None;
    }
    if t.timer.is_some_and(|tm| tm.slot as usize == slot) {
        t.timer = None;
    }
}

impl<M: Machine> Kernel<M> {
    /// The task notification `obj` is bound to, if any.
    pub fn bound_task(&self, obj: u16) -> Option<usize> {
        self.live()
            .iter()
            .position(|t| matches!(t, Some(t) if t.bound.is_some_and(|b| b.obj == obj)))
    }

    /// `ntfn_bind(ep, ntfn)`; `ntfn` 0 unbinds (and `ep` is not looked at).
    pub fn sys_ntfn_bind(&mut self, me: usize, ep: u64, ntfn: u64) -> Result<u64, SysError> {
        if ntfn == 0 {
            return self
                .task(me)
                .bound
                .take()
                .map(|_| 0)
                .ok_or(SysError::NotBound);
        }
        self.caps
            .lookup(NodeId::slot(me, ep)?, ObjectKind::Endpoint, rights::READ)?;
        let cap = self.caps.lookup(
            NodeId::slot(me, ntfn)?,
            ObjectKind::Notification,
            rights::READ,
        )?;
        let obj = cap.obj.object().ok_or(SysError::WrongKind)?;
        let want = Binding {
            obj,
            slot: ntfn as u8,
        };
        match self.task(me).bound {
            Some(b) if b == want => return Ok(0),
            Some(_) => return Err(SysError::TaskBound),
            None => {}
        }
        if self.bound_task(obj).is_some() {
            return Err(SysError::NotificationBound);
        }
        if self.waiter_on(obj).is_some() {
            return Err(SysError::Busy);
        }
        self.task(me).bound = Some(want);
        Ok(0)
    }

    /// Refuses `wait`/`poll` on notification `obj` by a task it is not bound to.
    pub(crate) fn check_not_bound_elsewhere(&self, me: usize, obj: u16) -> Result<(), SysError> {
        match self.bound_task(obj) {
            Some(t) if t != me => Err(SysError::NotificationBound),
            _ => Ok(()),
        }
    }

    /// Takes task `me`'s bound notification word if it is non-zero.
    fn take_bound_word(&mut self, me: usize) -> Option<u64> {
        let b = self.tasks[me].as_ref()?.bound?;
        match &mut self.objects.table[b.obj as usize] {
            Object::Notification { word } if *word != 0 => Some(core::mem::take(word)),
            _ => None,
        }
    }

    /// At the start of a receive: ends it at once with the notification
    /// message if task `me`'s bound word is non-zero.
    pub(crate) fn notified_now(&mut self, me: usize) -> Option<Next> {
        let word = self.take_bound_word(me)?;
        self.task(me).ctx.set_incoming(&notify_message(word));
        Some(Next::Resume)
    }

    /// After notification `obj` was raised with no waiter: if its bound
    /// task is blocked receiving, end that receive with the word.
    pub(crate) fn wake_bound_receiver(&mut self, obj: u16) {
        let Some(t) = self.bound_task(obj) else {
            return;
        };
        if !matches!(self.task(t).state, State::Receiving { .. }) {
            return;
        }
        if let Some(word) = self.take_bound_word(t) {
            self.task(t).ctx.set_incoming(&notify_message(word));
            self.set_state(t, State::Ready);
        }
    }

    /// True when task `t`'s bound notification holds bits (the fastpath
    /// must then leave `reply_recv` to the slow path, which returns them).
    #[inline]
    pub(crate) fn bound_pending(&self, t: usize) -> bool {
        let Some(b) = self.tasks[t].as_ref().and_then(|t| t.bound) else {
            return false;
        };
        !matches!(self.objects.get(b.obj), Object::Notification { word: 0 })
    }
}
