//! Synchronous IPC: call, send, recv, nb_recv, reply, reply_recv.
//!
//! A message moves straight from the sender's saved registers (and, past
//! [`REG_WORDS`] words, its IPC buffer page) into the receiver's; nothing
//! is queued in the kernel. A sender that finds no receiver blocks with its
//! message still in its registers (and any capability it offers in its
//! in-flight node, where revocation can reach it); a receiver that finds no
//! sender blocks until one comes. A call leaves the caller waiting for a
//! reply and gives the receiver a reply capability, which `reply` consumes.
//!
//! A task's bound notification (`crate::bound`) can end its receive too,
//! with a kernel-made message, checked before any waiting sender.
//!
//! The fastpath: when a call finds its receiver waiting, or a reply_recv
//! finds no new message, and the partner is at least as urgent as the
//! current task, the kernel returns [`Next::Switch`] and the CPU goes to
//! the partner with no scheduler search.

use crate::cap::{Cap, ObjRef};
use crate::cspace::NodeId;
use crate::kernel::{Kernel, Next};
use crate::machine::{Machine, UserRegs};
use crate::object::Object;
use crate::task::State;
use conflux_abi::cap::{rights, ObjectKind, CAP_SLOTS};
use conflux_abi::ipc::{Info, RawMessage, SupervisorReply, FAULT_LABEL, REG_WORDS};
use conflux_abi::syscall::unpack_slots;
use conflux_abi::SysError;

impl<M: Machine> Kernel<M> {
    /// The task blocked receiving on endpoint `obj`, if any.
    pub fn receiver_on(&self, obj: u16) -> Option<usize> {
        self.live().iter().position(|t| {
            matches!(t, Some(t) if matches!(t.state, State::Receiving { obj: o, .. } if o == obj))
        })
    }

    /// The longest-waiting sender on endpoint `obj`.
    fn sender_on(&self, obj: u16) -> Option<usize> {
        let mut best: Option<(u64, usize)> = None;
        for (i, t) in self.live().iter().enumerate() {
            let seq = match t.as_ref().map(|t| t.state) {
                Some(State::Sending { obj: o, seq, .. })
                | Some(State::FaultSending { obj: o, seq })
                    if o == obj =>
                {
                    seq
                }
                _ => continue,
            };
            if best.is_none_or(|(s, _)| seq < s) {
                best = Some((seq, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// Moves blocked sender `s`'s message to blocked receiver `r`.
    pub fn deliver_from(&mut self, s: usize, r: usize) {
        let sender = self.task(s);
        let (mut msg, call, badge) = match (sender.state, sender.fault) {
            (State::FaultSending { .. }, Some(f)) => {
                let info = Info {
                    from_kernel: true,
                    ..Info::new(FAULT_LABEL, REG_WORDS)
                };
                let words = f.to_words();
                (
                    RawMessage {
                        info: info.encode().unwrap_or(0),
                        badge: 0,
                        words,
                    },
                    true,
                    s as u64,
                )
            }
            (State::Sending { call, badge, .. }, _) => (sender.ctx.outgoing(), call, badge),
            _ => return,
        };
        msg.badge = badge;
        let fault = sender.fault.is_some();
        let (gen, epoch, buf) = (sender.generation, sender.epoch, sender.ipc_buf);
        self.deliver(msg, buf, s, r, call.then_some((gen, epoch)));
        let state = match (fault, call) {
            (true, _) => State::FaultAwaiting,
            (false, true) => State::AwaitingReply { server: r as u8 },
            (false, false) => {
                self.task(s).ctx.set_ok(0);
                State::Ready
            }
        };
        self.set_state(s, state);
    }

    /// Writes `msg` from task `s` into receiver `r` (blocked in
    /// `Receiving`) and makes it ready; `caller` set (the caller's
    /// generation and reply epoch) means `s` waits for a reply, so `r`
    /// gets a reply capability.
    fn deliver(
        &mut self,
        mut msg: RawMessage,
        buf: u64,
        s: usize,
        r: usize,
        caller: Option<(u32, u32)>,
    ) {
        let State::Receiving {
            reply_slot,
            cap_slot,
            ..
        } = self.task(r).state
        else {
            return;
        };
        let sent = Info::decode(msg.info);
        let mut info = Info {
            from_kernel: sent.from_kernel,
            ..Info::new(sent.label, sent.len)
        };
        let flight = NodeId::in_flight(s);
        if sent.cap.is_some() {
            let placed = NodeId::slot(r, cap_slot as u64)
                .ok()
                .filter(|_| cap_slot != 0)
                .is_some_and(|to| self.caps.move_to(flight, to).is_ok());
            if placed {
                info.cap = Some(0);
                info.lend = sent.lend;
            } else {
                let _ = self.caps.remove(flight);
                info.cap_dropped = true;
            }
        }
        if let Some((gen, epoch)) = caller {
            let task = s as u8;
            let reply = Cap::new(ObjRef::Reply { task, gen, epoch }, rights::WRITE, 0);
            if let Ok(n) = NodeId::slot(r, reply_slot as u64) {
                let _ = self.caps.remove(n); // a stale reply capability
                let _ = self.caps.insert(n, reply);
            }
        }
        M::copy_ipc_words(buf, self.task(r).ipc_buf, REG_WORDS, sent.len);
        msg.info = info.encode().unwrap_or(0);
        self.task(r).ctx.set_incoming(&msg);
        self.set_state(r, State::Ready);
    }

    /// `call` and `send`: deliver now if the receiver waits, else block.
    pub fn sys_send(&mut self, me: usize, call: bool) -> Result<Next, SysError> {
        let slot = self.task(me).ctx.arg(0);
        self.send_from(me, slot, call, 0)
    }

    /// `call` or `send` through `slot`; with `ticks` (a `call_timed`) the
    /// call gives up at that tick from now ([`crate::deadline`]).
    pub(crate) fn send_from(
        &mut self,
        me: usize,
        slot: u64,
        call: bool,
        ticks: u64,
    ) -> Result<Next, SysError> {
        let raw = self.task(me).ctx.outgoing();
        let info = Info::from_sender(raw.info)?;
        let ep_node = NodeId::slot(me, slot)?;
        let ep = self
            .caps
            .lookup(ep_node, ObjectKind::Endpoint, rights::WRITE)?;
        let obj = ep.obj.object().ok_or(SysError::WrongKind)?;
        if info.cap.is_some() && ep.rights & rights::GRANT == 0 {
            return Err(SysError::MissingRight);
        }
        let Object::Endpoint { server } = self.objects.get(obj) else {
            return Err(SysError::WrongKind);
        };
        let srv = self.tasks[server as usize]
            .as_ref()
            .ok_or(SysError::DeadPeer)?;
        let (alive, gen) = (!srv.state.is_dead(), srv.generation);
        if ep.gen != gen {
            self.caps.get_mut(ep_node)?.gen = gen;
            return Err(SysError::DeadPeer);
        }
        if !alive {
            return Err(SysError::DeadPeer);
        }
        if let Some(s) = info.cap {
            let mut cap = self
                .caps
                .derive(NodeId::slot(me, s as u64)?, rights::ALL, 0)?;
            if info.lend && cap.obj.kind() != ObjectKind::Region {
                return Err(SysError::WrongKind); // only memory can be lent
            }
            // Lease or not is the sender's choice at each transfer: a
            // borrower passing a lease on shares it unless it lends it.
            cap.lease = info.lend;
            let flight = NodeId::in_flight(me);
            let _ = self.caps.remove(flight);
            self.caps.insert(flight, cap)?;
        }
        let seq = self.next_seq();
        self.set_state(
            me,
            State::Sending {
                obj,
                slot: slot as u8,
                call,
                badge: ep.badge,
                seq,
            },
        );
        if ticks != 0 {
            self.task(me).deadline = self.ticks + ticks;
        }
        let Some(r) = self.receiver_on(obj) else {
            self.raise_for_waiter(server as usize, me);
            return Ok(Next::Block);
        };
        self.deliver_from(me, r);
        Ok(match call {
            true if self.at_least_as_urgent(r, me) => Next::Switch(r),
            true => Next::Block,
            false => Next::Resume,
        })
    }

    /// A server that lowered itself (`set_priority`, to run a client's
    /// long work at that client's priority) is raised back, at most to its
    /// manifest priority, while a more urgent task waits to call it: the
    /// waiter is never held up by tasks less urgent than itself.
    fn raise_for_waiter(&mut self, server: usize, waiter: usize) {
        let p = self.task(waiter).priority;
        if let Some(s) = self.tasks[server].as_mut() {
            if s.priority > p {
                s.priority = p.max(s.base_priority);
            }
        }
    }

    /// True when task `a` may run in place of `b` without passing over a
    /// more urgent ready task (`b` was running, so it was the most urgent).
    /// (And on the same CPU: only then can `b` hand its CPU to `a`.)
    fn at_least_as_urgent(&mut self, a: usize, b: usize) -> bool {
        self.placement.same_cpu(a, b) && self.task(a).priority <= self.task(b).priority
    }

    /// `recv`: take the oldest pending message, or block for one.
    pub fn sys_recv(&mut self, me: usize, packed: u64) -> Result<Next, SysError> {
        let (obj, receiving) = self.receive_state(me, packed)?;
        if let Some(next) = self.notified_now(me) {
            return Ok(next);
        }
        self.set_state(me, receiving);
        match self.sender_on(obj) {
            Some(s) => {
                self.deliver_from(s, me);
                Ok(Next::Resume)
            }
            None => Ok(Next::Block),
        }
    }

    /// `nb_recv`: take the oldest pending message, or fail with
    /// `WouldBlock` (the caller stays ready and nothing changes).
    pub fn sys_nb_recv(&mut self, me: usize, packed: u64) -> Result<Next, SysError> {
        let (obj, receiving) = self.receive_state(me, packed)?;
        if let Some(next) = self.notified_now(me) {
            return Ok(next);
        }
        let s = self.sender_on(obj).ok_or(SysError::WouldBlock)?;
        // `deliver` writes into a task blocked receiving, so the caller is
        // one for the moment of the hand-over; it leaves it ready.
        self.set_state(me, receiving);
        self.deliver_from(s, me);
        Ok(Next::Resume)
    }

    /// Checks a receive's packed slots (`recv`, `reply_recv`, `nb_recv`)
    /// and gives the endpoint object and the state the receiver waits in.
    fn receive_state(&mut self, me: usize, packed: u64) -> Result<(u16, State), SysError> {
        let (ep_slot, reply_slot, cap_slot) = unpack_slots(packed)?;
        let ep_node = NodeId::slot(me, ep_slot as u64)?;
        let ep = self
            .caps
            .lookup(ep_node, ObjectKind::Endpoint, rights::READ)?;
        let obj = ep.obj.object().ok_or(SysError::WrongKind)?;
        if reply_slot == 0 || reply_slot >= CAP_SLOTS || cap_slot >= CAP_SLOTS {
            return Err(SysError::InvalidSlot);
        }
        if cap_slot == reply_slot {
            return Err(SysError::InvalidArgument); // one slot cannot take both
        }
        if let Ok(c) = self.caps.get(NodeId::slot(me, reply_slot as u64)?) {
            if c.obj.kind() != ObjectKind::Reply {
                return Err(SysError::SlotOccupied);
            }
        }
        if self.receiver_on(obj).is_some() {
            return Err(SysError::Busy);
        }
        let state = State::Receiving {
            obj,
            slot: ep_slot as u8,
            reply_slot: reply_slot as u8,
            cap_slot: cap_slot as u8,
        };
        Ok((obj, state))
    }

    /// `reply`: answer the call behind the reply capability in `slot`;
    /// returns the task that was answered.
    pub fn sys_reply(&mut self, me: usize, slot: u64) -> Result<usize, SysError> {
        let raw = self.task(me).ctx.outgoing();
        let info = Info::from_sender(raw.info)?;
        if info.cap.is_some() {
            return Err(SysError::InvalidArgument); // replies carry no capability
        }
        let node = NodeId::slot(me, slot)?;
        let c = self.caps.lookup(node, ObjectKind::Reply, 0)?;
        self.caps.remove(node)?;
        let ObjRef::Reply { task, gen, epoch } = c.obj else {
            return Err(SysError::WrongKind);
        };
        let task = task as usize;
        let buf = self.task(me).ipc_buf;
        let Some(target) = self.tasks[task].as_mut().filter(|t| t.generation == gen) else {
            return Err(SysError::DeadPeer);
        };
        if target.epoch != epoch {
            return Err(SysError::TimedOut); // the caller gave up on this call
        }
        match target.state {
            State::FaultAwaiting => {
                self.fault_decided(task, SupervisorReply::from_word(raw.words[0]));
                Ok(task)
            }
            State::AwaitingReply { server } if server as usize == me => {
                M::copy_ipc_words(buf, target.ipc_buf, REG_WORDS, info.len);
                let msg = RawMessage {
                    info: Info::new(info.label, info.len).encode()?,
                    ..raw
                };
                target.ctx.set_incoming(&msg);
                self.set_state(task, State::Ready);
                Ok(task)
            }
            _ => Err(SysError::DeadPeer),
        }
    }

    /// `reply_recv`: reply if the reply slot holds a reply capability, then
    /// receive. When no message waits and the answered caller is at least
    /// as urgent, or the only most urgent ready task left
    /// ([`Kernel::alone_next`]), the CPU goes straight to it.
    pub fn sys_reply_recv(&mut self, me: usize) -> Result<Next, SysError> {
        let packed = self.task(me).ctx.arg(0);
        let (_, reply_slot, _) = unpack_slots(packed)?;
        let reply_node = NodeId::slot(me, reply_slot as u64)?;
        let mut answered = None;
        if matches!(self.caps.get(reply_node), Ok(c) if c.obj.kind() == ObjectKind::Reply) {
            match self.sys_reply(me, reply_slot as u64) {
                Ok(t) => answered = Some(t),
                // A caller that died or gave up does not stop the server.
                Err(SysError::DeadPeer | SysError::TimedOut) => {}
                Err(e) => return Err(e),
            }
        }
        let next = self.sys_recv(me, packed)?;
        Ok(match (next, answered) {
            (Next::Block, Some(c))
                if self.tasks[c].as_ref().is_some_and(|t| t.state.is_ready())
                    && (self.at_least_as_urgent(c, me) || self.alone_next(c, me)) =>
            {
                Next::Switch(c)
            }
            (n, _) => n,
        })
    }
}
