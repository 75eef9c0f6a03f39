//! Synchronous IPC: call, send, recv, reply.
//!
//! A message moves straight from the sender's saved registers (and, past
//! [`REG_WORDS`] words, its IPC buffer page) into the receiver's; nothing
//! is queued in the kernel. A sender that finds no receiver blocks with its
//! message still in its registers; a receiver that finds no sender blocks
//! until one comes. A call leaves the caller waiting for a reply and gives
//! the receiver a reply capability, which `reply` consumes.
//!
//! Endpoints know their serving task; a capability remembers the server's
//! generation, so a call after the server died or restarted fails with
//! `DeadPeer` (and the capability is refreshed: the retry reaches the new
//! instance).

use crate::arch::paging::phys_to_virt;
use crate::cap::{Cap, ObjRef, Parent, Slot};
use crate::object::Object;
use crate::sched::Kernel;
use crate::syscall::Effect;
use crate::task::State;
use conflux_abi::cap::{rights, ObjectKind, CAP_SLOTS};
use conflux_abi::ipc::{Info, FAULT_LABEL, MAX_WORDS, REG_WORDS};
use conflux_abi::syscall::unpack_slots;
use conflux_abi::SysError;

/// A message as it leaves its sender.
#[derive(Clone, Copy)]
struct Msg {
    info: Info,
    badge: u64,
    words: [u64; REG_WORDS],
    /// IPC buffer of the sender, for words past the registers.
    ipc_buf: u64,
    cap: Option<Cap>,
}

/// Copies words `REG_WORDS..len` between IPC buffers (physical pages).
fn copy_long(from: u64, to: u64, len: usize) {
    if len > REG_WORDS {
        let (off, n) = (REG_WORDS * 8, (len - REG_WORDS) * 8);
        // Safety: both are IPC buffer frames owned by live tasks; `len` is at
        // most MAX_WORDS, so the copy stays inside one page.
        unsafe {
            core::ptr::copy(
                phys_to_virt(from + off as u64),
                phys_to_virt(to + off as u64),
                n,
            )
        };
    }
}

impl Kernel {
    /// The task blocked receiving on endpoint `obj`, if any.
    pub fn receiver_on(&self, obj: u16) -> Option<usize> {
        self.live().iter().position(|t| matches!(t, Some(t) if matches!(t.state, State::Receiving { obj: o, .. } if o == obj)))
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

    /// The message blocked sender `s` offers.
    fn pending_msg(&mut self, s: usize) -> (Msg, bool) {
        let t = self.task(s);
        match t.state {
            State::FaultSending { .. } => {
                let msg = Msg {
                    info: Info::new(FAULT_LABEL, 4),
                    badge: s as u64,
                    words: t.fault,
                    ipc_buf: t.ipc_buf,
                    cap: None,
                };
                (msg, true)
            }
            State::Sending { badge, cap, .. } => {
                let c = t.ctx;
                let msg = Msg {
                    info: Info::decode(c.rsi),
                    badge,
                    words: [c.rdx, c.r10, c.r8, c.r9],
                    ipc_buf: t.ipc_buf,
                    cap,
                };
                (msg, false)
            }
            _ => unreachable!("pending_msg is only asked of blocked senders"),
        }
    }

    /// Moves blocked sender `s`'s message to blocked receiver `r`.
    pub fn deliver_from(&mut self, s: usize, r: usize) {
        let (msg, fault) = self.pending_msg(s);
        let call = fault || matches!(self.task(s).state, State::Sending { call: true, .. });
        let s_gen = self.task(s).generation;
        self.deliver(msg, r, call.then_some((s, s_gen)));
        let sender = self.task(s);
        sender.state = match (fault, call) {
            (true, _) => State::FaultAwaiting,
            (false, true) => State::AwaitingReply { server: r as u8 },
            (false, false) => {
                sender.ctx.rax = 0;
                State::Ready
            }
        };
    }

    /// Writes `msg` into receiver `r` (blocked in `Receiving`) and makes it
    /// ready; `caller` gets a reply capability in the receiver's reply slot.
    fn deliver(&mut self, msg: Msg, r: usize, caller: Option<(usize, u32)>) {
        let State::Receiving {
            reply_slot,
            cap_slot,
            ..
        } = self.task(r).state
        else {
            unreachable!("deliver targets a receiving task");
        };
        let reply_id = self.next_id();
        let t = self.task(r);
        let mut info = Info::new(msg.info.label, msg.info.len);
        if let Some(c) = msg.cap {
            if cap_slot != 0 && t.caps.check_free(cap_slot as u64).is_ok() {
                t.caps.slots[cap_slot as usize] = Slot::Full(c);
                info.cap = Some(0);
            } else {
                info.cap_dropped = true;
            }
        }
        if let Some((task, gen)) = caller {
            let reply = Cap {
                obj: ObjRef::Reply {
                    task: task as u8,
                    gen,
                },
                rights: rights::WRITE,
                badge: 0,
                id: reply_id,
                parent: None,
                gen: 0,
                mapped_at: 0,
                doomed: false,
            };
            t.caps.slots[reply_slot as usize] = Slot::Full(reply);
        }
        copy_long(msg.ipc_buf, t.ipc_buf, msg.info.len);
        set_msg(&mut t.ctx, info, msg.badge, msg.words);
        t.state = State::Ready;
    }

    /// `call` and `send`: deliver now if the receiver waits, else block.
    pub fn sys_send(&mut self, me: usize, call: bool) -> Result<Effect, SysError> {
        let ctx = self.task(me).ctx;
        let ep = self
            .task(me)
            .caps
            .lookup(ctx.rdi, ObjectKind::Endpoint, rights::WRITE)?;
        let ObjRef::Object(_, obj) = ep.obj else {
            return Err(SysError::WrongKind);
        };
        let info = Info::decode(ctx.rsi);
        if info.len > MAX_WORDS {
            return Err(SysError::TooLong);
        }
        if info.cap.is_some() && ep.rights & rights::GRANT == 0 {
            return Err(SysError::MissingRight);
        }
        let Object::Endpoint { server } = self.objects.table[obj as usize] else {
            return Err(SysError::WrongKind);
        };
        let srv = self.tasks[server as usize]
            .as_ref()
            .ok_or(SysError::DeadPeer)?;
        let (alive, gen) = (!srv.state.is_dead(), srv.generation);
        if ep.gen != gen {
            self.task(me).caps.get_mut(ctx.rdi)?.gen = gen;
            return Err(SysError::DeadPeer);
        }
        if !alive {
            return Err(SysError::DeadPeer);
        }
        let cap = match info.cap {
            None => None,
            Some(slot) => Some(self.derive(me, slot as u64, rights::ALL, 0)?),
        };
        let seq = self.next_seq();
        self.task(me).state = State::Sending {
            obj,
            call,
            badge: ep.badge,
            seq,
            cap,
        };
        match self.receiver_on(obj) {
            Some(r) => {
                self.deliver_from(me, r);
                Ok(if call { Effect::Block } else { Effect::Resume })
            }
            None => Ok(Effect::Block),
        }
    }

    /// `recv`: take the oldest pending message, or block for one.
    pub fn sys_recv(&mut self, me: usize, packed: u64) -> Result<Effect, SysError> {
        let (ep_slot, reply_slot, cap_slot) = unpack_slots(packed);
        let t = self.task(me);
        let ep = t
            .caps
            .lookup(ep_slot as u64, ObjectKind::Endpoint, rights::READ)?;
        let ObjRef::Object(_, obj) = ep.obj else {
            return Err(SysError::WrongKind);
        };
        if reply_slot == 0 || reply_slot >= CAP_SLOTS || cap_slot >= CAP_SLOTS {
            return Err(SysError::InvalidSlot);
        }
        if let Slot::Full(c) = t.caps.slots[reply_slot] {
            if c.obj.kind() != ObjectKind::Reply {
                return Err(SysError::SlotOccupied);
            }
        }
        if self.receiver_on(obj).is_some() {
            return Err(SysError::Busy);
        }
        self.task(me).state = State::Receiving {
            obj,
            reply_slot: reply_slot as u8,
            cap_slot: cap_slot as u8,
        };
        match self.sender_on(obj) {
            Some(s) => {
                self.deliver_from(s, me);
                Ok(Effect::Resume)
            }
            None => Ok(Effect::Block),
        }
    }

    /// `reply`: answer the call behind the reply capability in `slot`.
    pub fn sys_reply(&mut self, me: usize, slot: u64) -> Result<(), SysError> {
        let ctx = self.task(me).ctx;
        let info = Info::decode(ctx.rsi);
        if info.len > MAX_WORDS {
            return Err(SysError::TooLong);
        }
        if info.cap.is_some() {
            return Err(SysError::InvalidArgument); // replies carry no capability
        }
        let c = self.task(me).caps.lookup(slot, ObjectKind::Reply, 0)?;
        self.task(me).caps.take(slot)?;
        let ObjRef::Reply { task, gen } = c.obj else {
            return Err(SysError::WrongKind);
        };
        let task = task as usize;
        let (words, buf) = ([ctx.rdx, ctx.r10, ctx.r8, ctx.r9], self.task(me).ipc_buf);
        let Some(target) = self.tasks[task].as_mut().filter(|t| t.generation == gen) else {
            return Err(SysError::DeadPeer);
        };
        match target.state {
            State::FaultAwaiting => {
                self.fault_decided(task, words[0] == 1);
                Ok(())
            }
            State::AwaitingReply { server } if server as usize == me => {
                copy_long(buf, target.ipc_buf, info.len);
                set_msg(&mut target.ctx, Info::new(info.label, info.len), 0, words);
                target.state = State::Ready;
                Ok(())
            }
            _ => Err(SysError::DeadPeer),
        }
    }

    /// `reply_recv`: reply if the reply slot holds a reply capability, then receive.
    pub fn sys_reply_recv(&mut self, me: usize) -> Result<Effect, SysError> {
        let packed = self.task(me).ctx.rdi;
        let (_, reply_slot, _) = unpack_slots(packed);
        let has_reply = matches!(
            self.task(me).caps.get(reply_slot as u64),
            Ok(Cap {
                obj: ObjRef::Reply { .. },
                ..
            })
        );
        if has_reply {
            match self.sys_reply(me, reply_slot as u64) {
                Ok(()) | Err(SysError::DeadPeer) => {} // a dead caller does not stop the server
                Err(e) => return Err(e),
            }
        }
        self.sys_recv(me, packed)
    }

    /// A new capability derived from `slot` of task `me` (for mint, copy and transfer).
    pub fn derive(&mut self, me: usize, slot: u64, mask: u8, badge: u64) -> Result<Cap, SysError> {
        let src = *self.task(me).caps.get(slot)?;
        if src.obj.kind() == ObjectKind::Reply {
            return Err(SysError::WrongKind); // a reply answers one call: it is not shared
        }
        if mask & !rights::ALL != 0 {
            return Err(SysError::InvalidArgument);
        }
        let badged = matches!(
            src.obj.kind(),
            ObjectKind::Endpoint | ObjectKind::Notification
        );
        if badge != 0 && (!badged || (src.badge != 0 && src.badge != badge)) {
            return Err(SysError::InvalidArgument);
        }
        Ok(Cap {
            rights: src.rights & mask,
            badge: if badge != 0 { badge } else { src.badge },
            id: self.next_id(),
            parent: Some(Parent {
                task: me as u8,
                slot: slot as u8,
                id: src.id,
            }),
            mapped_at: 0,
            doomed: false,
            ..src
        })
    }
}

/// Puts a received message into a task's return registers.
fn set_msg(ctx: &mut crate::arch::trap::TrapFrame, info: Info, badge: u64, w: [u64; REG_WORDS]) {
    ctx.rax = 0;
    ctx.rdi = info.encode();
    ctx.rsi = badge;
    (ctx.rdx, ctx.r10, ctx.r8, ctx.r9) = (w[0], w[1], w[2], w[3]);
}
