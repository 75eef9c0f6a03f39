//! The IPC fastpath: `call` to a waiting receiver and `reply_recv` back to
//! a waiting caller, with nothing but register words.
//!
//! Each function checks, without changing anything, that the message is
//! the common case — at most [`REG_WORDS`] words, no capability, no
//! reserved bits; a valid capability; a partner blocked exactly where
//! expected and at least as urgent as the current task (so it may run
//! without a scheduler search: the current task is the most urgent ready
//! one), or, for `reply_recv`, the one task the search would choose (a
//! caller less urgent than its server, when no other ready task is as
//! urgent as the caller); for `reply_recv`, no signal pending on a bound
//! notification —
//! and then commits in a few stores, returning the partner to run.
//! `None` means "take the slow path", which handles every case, including
//! every error, with the same results. `SPREAD` is
//! [`Placement::spread`](crate::placement::Placement::spread): only when
//! tasks run on several CPUs is the partner's CPU compared, so the
//! one-CPU path carries no SMP check. The message words are read only
//! once every check has passed and go straight into the partner's
//! registers (read early they were spilled and reloaded). The rules are the slow path's; the
//! host tests run the same scenarios through both (seL4 and Hubris keep
//! fastpaths of this shape for the same reason: IPC cost is the
//! microkernel's tax on every service).

use crate::cap::{Cap, ObjRef, Slot};
use crate::cspace::NodeId;
use crate::kernel::Kernel;
use crate::machine::{Machine, UserRegs};
use crate::object::Object;
use crate::task::State;
use conflux_abi::cap::{rights, ObjectKind, CAP_SLOTS};
use conflux_abi::ipc::{RawMessage, REG_WORDS};

/// True when an info word is a plain short message: label, length at most
/// REG_WORDS, and no capability, kernel or reserved bit.
fn short_plain(info: u64) -> bool {
    info >> 32 <= REG_WORDS as u64
}

impl<M: Machine> Kernel<M> {
    /// `call`: delivers to the receiver and returns it, or `None`.
    #[inline(always)]
    pub fn fast_call<const SPREAD: bool>(&mut self, me: usize) -> Option<usize> {
        let caller = self.tasks[me].as_ref()?;
        let slot = caller.ctx.arg(0);
        if !short_plain(caller.ctx.outgoing().info) {
            return None;
        }
        let ep = self.caps.get(NodeId::slot(me, slot).ok()?).ok()?;
        let ObjRef::Object(ObjectKind::Endpoint, obj) = ep.obj else {
            return None;
        };
        if ep.rights & rights::WRITE == 0 {
            return None;
        }
        let Some(&Object::Endpoint { server }) = self.objects.table.get(obj as usize) else {
            return None;
        };
        let s = server as usize;
        let srv = self.tasks[s].as_ref()?;
        let State::Receiving {
            obj: o, reply_slot, ..
        } = srv.state
        else {
            return None;
        };
        if o != obj
            || srv.generation != ep.gen
            || srv.priority > caller.priority
            || SPREAD && !self.placement.same_cpu(s, me)
        {
            return None;
        }
        let reply_node = NodeId::slot(s, reply_slot as u64).ok()?;
        // Overwriting is safe only for what has no children and no mapping.
        let replaceable = match self.caps.slot(reply_node) {
            Slot::Empty | Slot::Revoked => true,
            Slot::Full(c) => c.obj.kind() == ObjectKind::Reply,
            Slot::Lapsed(_) => false,
        };
        if !replaceable {
            return None;
        }
        let (badge, gen, epoch) = (ep.badge, caller.generation, caller.epoch);
        let reply = Cap::new(
            ObjRef::Reply {
                task: me as u8,
                gen,
                epoch,
            },
            rights::WRITE,
            0,
        );
        self.caps.set_reply_slot(reply_node, Slot::Full(reply));
        let raw = self.tasks[me].as_ref()?.ctx.outgoing();
        let srv = self.tasks[s].as_mut()?;
        srv.ctx.set_incoming(&RawMessage { badge, ..raw });
        srv.state = State::Ready;
        // The receiver no longer waits on the endpoint.
        // It was counted (it is receiving here), so this cannot wrap.
        let c = &mut self.summary.ep_blocked[obj as usize];
        *c = c.wrapping_sub(1);
        self.tasks[me].as_mut()?.state = State::AwaitingReply { server };
        self.summary.ready = (self.summary.ready | 1 << s) & !(1 << me);
        Some(s)
    }

    /// `reply_recv`: answers the waiting caller, blocks receiving, and
    /// returns the caller, or `None`.
    #[inline(always)]
    pub fn fast_reply_recv<const SPREAD: bool>(&mut self, me: usize) -> Option<usize> {
        let server = self.tasks[me].as_ref()?;
        let packed = server.ctx.arg(0);
        if !short_plain(server.ctx.outgoing().info) || packed >> 24 != 0 {
            return None;
        }
        let (ep_slot, reply_slot, cap_slot) =
            (packed & 0xff, packed >> 8 & 0xff, packed >> 16 & 0xff);
        if reply_slot == 0
            || reply_slot >= CAP_SLOTS as u64
            || cap_slot >= CAP_SLOTS as u64
            || cap_slot == reply_slot
        {
            return None;
        }
        let reply_node = NodeId::slot(me, reply_slot).ok()?;
        let &Slot::Full(Cap {
            obj: ObjRef::Reply { task, gen, epoch },
            ..
        }) = self.caps.slot(reply_node)
        else {
            return None;
        };
        let c = task as usize;
        let caller = self.tasks[c].as_ref()?;
        let awaiting =
            matches!(caller.state, State::AwaitingReply { server: s } if s as usize == me);
        // An older epoch: the caller gave up on that call (`call_timed`).
        if caller.generation != gen || caller.epoch != epoch || !awaiting {
            return None;
        }
        // A less urgent caller may run next only if the scheduler would
        // choose it: no other ready task is as urgent.
        if SPREAD && !self.placement.same_cpu(c, me)
            || caller.priority > server.priority && !self.alone_next(c, me)
        {
            return None;
        }
        let ep = self.caps.get(NodeId::slot(me, ep_slot).ok()?).ok()?;
        let ObjRef::Object(ObjectKind::Endpoint, obj) = ep.obj else {
            return None;
        };
        if ep.rights & rights::READ == 0
            || self.summary.ep_blocked.get(obj as usize) != Some(&0)
            || self.bound_pending(me)
        {
            return None;
        }
        self.caps.set_reply_slot(reply_node, Slot::Empty);
        let raw = self.tasks[me].as_ref()?.ctx.outgoing();
        let caller = self.tasks[c].as_mut()?;
        caller.ctx.set_incoming(&RawMessage { badge: 0, ..raw });
        caller.state = State::Ready;
        caller.deadline = 0; // a timed call answered in time
        self.summary.ep_blocked[obj as usize] = 1; // this task, which was the only one
        self.tasks[me].as_mut()?.state = State::Receiving {
            obj,
            slot: ep_slot as u8,
            reply_slot: reply_slot as u8,
            cap_slot: cap_slot as u8,
        };
        self.summary.ready = (self.summary.ready | 1 << c) & !(1 << me);
        Some(c)
    }
}
