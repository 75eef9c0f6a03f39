//! Typed capabilities for tasks: endpoints, reply slots, notifications,
//! regions, IRQs and I/O ports, with safe methods over the syscalls.
//!
//! A capability is named by its slot; the manifest's generated constants
//! (`config::caps::NAME`) give the slots. Wrapping a slot in the wrong type
//! is not unsafe — the kernel checks every use and answers `WrongKind`.

use crate::sys::{syscall6, Ret};
use conflux_abi::ipc::{Info, MAX_WORDS, NOTIFY_LABEL, REG_WORDS};
use conflux_abi::layout::IPC_BUFFER;
use conflux_abi::syscall::pack_slots;
use conflux_abi::{SysError, Sysno};

/// Regions live in their own module; they are capabilities like the rest.
pub use crate::region::{AccessError, Mapped, Region};

/// A message: label, words and optionally a capability to transfer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Message {
    pub label: u32,
    /// Number of valid words (at most [`MAX_WORDS`]); words past
    /// [`REG_WORDS`] live in the IPC buffer ([`long_word`], [`set_long_word`]).
    pub len: usize,
    pub words: [u64; REG_WORDS],
    /// Send: slot of a capability to transfer. Receive: `Some(slot)` where one arrived.
    pub cap: Option<usize>,
    /// Receive: a capability was offered but no receive slot was free.
    pub cap_dropped: bool,
    /// Receive: the kernel itself sent this message (a fault report, or a
    /// bound notification's signal: [`Received::notified`]).
    pub from_kernel: bool,
    /// Send: lend the attached region rather than share it ([`Message::lending`]).
    /// Receive: the region that arrived is lent, so revoking it cannot
    /// unmap it from under this task.
    pub lend: bool,
}

impl Message {
    /// A message with `label` and up to four register words.
    #[inline]
    pub fn new(label: u32, words: &[u64]) -> Self {
        let mut w = [0; REG_WORDS];
        let n = words.len().min(REG_WORDS);
        w[..n].copy_from_slice(&words[..n]);
        Self {
            label,
            len: n,
            words: w,
            cap: None,
            cap_dropped: false,
            from_kernel: false,
            lend: false,
        }
    }

    /// Sets the length, for long messages whose extra words are in the IPC buffer.
    pub fn with_len(self, len: usize) -> Self {
        Self { len, ..self }
    }

    /// Attaches the capability in `slot` (the endpoint capability needs GRANT).
    pub fn with_cap(self, slot: usize) -> Self {
        Self {
            cap: Some(slot),
            ..self
        }
    }

    /// Lends the region capability in `slot`: the receiver keeps its
    /// mapping of it until it lets go, even if this task revokes it — what
    /// a server that works on the region needs (the endpoint capability
    /// needs GRANT).
    pub fn lending(self, slot: usize) -> Self {
        Self {
            cap: Some(slot),
            lend: true,
            ..self
        }
    }

    /// The info word; a length or slot that does not fit is refused here,
    /// before any syscall, rather than truncated.
    #[inline]
    fn info(&self) -> Result<u64, SysError> {
        let i = Info::new(self.label, self.len);
        match self.cap {
            Some(s) if self.lend => i.with_cap(s).lent().encode(),
            Some(s) => i.with_cap(s).encode(),
            None => i.encode(),
        }
    }

    #[inline]
    fn from_ret(r: &Ret, cap_slot: usize) -> Self {
        let m = r.message();
        let i = Info::decode(m.info);
        Self {
            label: i.label,
            len: i.len,
            words: m.words,
            cap: i.cap.map(|_| cap_slot),
            cap_dropped: i.cap_dropped,
            from_kernel: i.from_kernel,
            lend: i.lend,
        }
    }
}

/// Word `i` (≥ REG_WORDS, < MAX_WORDS) of this task's IPC buffer.
pub fn long_word(i: usize) -> u64 {
    assert!(
        (REG_WORDS..MAX_WORDS).contains(&i),
        "long words are {REG_WORDS}..{MAX_WORDS}"
    );
    // Safety: the kernel maps a zeroed, writable IPC buffer page at
    // IPC_BUFFER in every task; `i < MAX_WORDS` keeps the read inside it.
    unsafe { core::ptr::read_volatile((IPC_BUFFER as *const u64).add(i)) }
}

/// Sets word `i` (≥ REG_WORDS, < MAX_WORDS) of this task's IPC buffer.
pub fn set_long_word(i: usize, value: u64) {
    assert!(
        (REG_WORDS..MAX_WORDS).contains(&i),
        "long words are {REG_WORDS}..{MAX_WORDS}"
    );
    // Safety: as for `long_word`.
    unsafe { core::ptr::write_volatile((IPC_BUFFER as *mut u64).add(i), value) };
}

#[inline]
fn check(r: &Ret) -> Result<(), SysError> {
    match r.rax {
        0 => Ok(()),
        c => Err(SysError::from_code(c).unwrap_or(SysError::UnknownSyscall)),
    }
}

#[inline]
fn msg_call(num: Sysno, a0: u64, m: &Message) -> Result<Ret, SysError> {
    let r = syscall6(
        num as u64,
        a0,
        m.info()?,
        m.words[0],
        m.words[1],
        m.words[2],
        m.words[3],
    );
    check(&r)?;
    Ok(r)
}

/// A message received by a server, with the badge of the sender's capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Received {
    pub msg: Message,
    pub badge: u64,
}

impl Received {
    /// `Some(bits)` when this is not a task's message but the kernel's
    /// report that the task's bound notification was signalled
    /// ([`Notification::bind`]): `bits` is the notification word, which
    /// the kernel cleared. No task can forge it (only the kernel sets
    /// `from_kernel`). There is no caller to reply to.
    pub fn notified(&self) -> Option<u64> {
        (self.msg.from_kernel && self.msg.label == NOTIFY_LABEL).then_some(self.badge)
    }
}

/// A capability to an endpoint.
#[derive(Clone, Copy, Debug)]
pub struct Endpoint(pub usize);

impl Endpoint {
    /// Sends `msg` and waits for the reply.
    #[inline]
    pub fn call(&self, msg: &Message) -> Result<Message, SysError> {
        let r = msg_call(Sysno::Call, self.0 as u64, msg)?;
        Ok(Message::from_ret(&r, 0))
    }

    /// Sends `msg` and waits for the reply, but at most until the
    /// `ticks`-th kernel tick from now ([`conflux_abi::time::TICK_NS`]
    /// each, so between `ticks - 1` and `ticks` periods;
    /// [`conflux_abi::time::ticks_for_ms`] converts), whether the message
    /// still waits for the server to take it or the server holds it.
    /// Past the deadline it fails with `TimedOut`: the server may still
    /// be working on it, but its answer will reach nobody (its `reply`
    /// fails with `TimedOut`), never this task's next call. A capability
    /// offered with `msg` stays with this task if the server never took
    /// it. `ticks` must be 1..=[`conflux_abi::syscall::CALL_MAX_TICKS`]
    /// (`InvalidArgument`, `TimerTooLong`). The deadline is the call's
    /// own: this task's timer ([`Notification::timer`]) is left alone.
    /// Use it where the peer may hang and the caller has other duties (a
    /// manager calling the tasks it manages, a supervisor); it costs the
    /// kernel's slow path, so not for the request path.
    pub fn call_within(&self, msg: &Message, ticks: u64) -> Result<Message, SysError> {
        let a0 = conflux_abi::syscall::pack_timed(self.0, ticks)?;
        let r = msg_call(Sysno::CallTimed, a0, msg)?;
        Ok(Message::from_ret(&r, 0))
    }

    /// Sends `msg`; returns once a receiver has taken it.
    pub fn send(&self, msg: &Message) -> Result<(), SysError> {
        msg_call(Sysno::Send, self.0 as u64, msg).map(|_| ())
    }

    /// Waits for a message. A caller's reply capability lands in `reply`;
    /// a transferred capability may land in `cap_slot` (0 refuses them).
    pub fn recv(&self, reply: usize, cap_slot: usize) -> Result<Received, SysError> {
        self.receive(Sysno::Recv, reply, cap_slot)
    }

    /// Takes a message if a sender waits (slots as for [`Endpoint::recv`]);
    /// `None` when none does. Never blocks.
    pub fn nb_recv(&self, reply: usize, cap_slot: usize) -> Result<Option<Received>, SysError> {
        match self.receive(Sysno::NbRecv, reply, cap_slot) {
            Ok(r) => Ok(Some(r)),
            Err(SysError::WouldBlock) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn receive(&self, num: Sysno, reply: usize, cap_slot: usize) -> Result<Received, SysError> {
        let r = syscall6(
            num as u64,
            pack_slots(self.0, reply, cap_slot)?,
            0,
            0,
            0,
            0,
            0,
        );
        check(&r)?;
        Ok(Received {
            msg: Message::from_ret(&r, cap_slot),
            badge: r.message().badge,
        })
    }

    /// Replies through the reply capability in `reply` (if it holds one),
    /// then waits for the next message — a server's whole loop in one call.
    #[inline]
    pub fn reply_recv(
        &self,
        reply: usize,
        cap_slot: usize,
        answer: &Message,
    ) -> Result<Received, SysError> {
        let r = msg_call(
            Sysno::ReplyRecv,
            pack_slots(self.0, reply, cap_slot)?,
            answer,
        )?;
        Ok(Received {
            msg: Message::from_ret(&r, cap_slot),
            badge: r.message().badge,
        })
    }
}

/// Answers the call whose reply capability is in `slot`.
pub fn reply(slot: usize, answer: &Message) -> Result<(), SysError> {
    msg_call(Sysno::Reply, slot as u64, answer).map(|_| ())
}

/// A capability to a notification.
#[derive(Clone, Copy, Debug)]
pub struct Notification(pub usize);

impl Notification {
    /// ORs this capability's badge (or 1) into the notification.
    pub fn signal(&self) -> Result<(), SysError> {
        crate::sys::call(Sysno::Signal, self.0 as u64, 0, 0, 0).map(drop)
    }

    /// Waits until some bit is set; returns and clears the bits.
    pub fn wait(&self) -> Result<u64, SysError> {
        crate::sys::call(Sysno::Wait, self.0 as u64, 0, 0, 0)
    }

    /// Returns and clears the bits without waiting.
    pub fn poll(&self) -> Result<u64, SysError> {
        crate::sys::call(Sysno::Poll, self.0 as u64, 0, 0, 0)
    }

    /// Binds this notification (READ) to the calling task, a receiver on
    /// `endpoint` (READ): a signal then ends the task's `recv`,
    /// `reply_recv` or `nb_recv` with a message whose
    /// [`Received::notified`] gives the bits. One binding per task and
    /// per notification; deleting or revoking this capability unbinds.
    pub fn bind(&self, endpoint: &Endpoint) -> Result<(), SysError> {
        crate::sys::call(Sysno::NtfnBind, endpoint.0 as u64, self.0 as u64, 0, 0).map(drop)
    }

    /// Removes the calling task's binding (`NotBound` if it has none).
    pub fn unbind() -> Result<(), SysError> {
        crate::sys::call(Sysno::NtfnBind, 0, 0, 0, 0).map(drop)
    }

    /// Arms the calling task's one timer (replacing any other) to signal
    /// this notification (WRITE) at the `ticks`-th kernel tick from now
    /// ([`conflux_abi::time::TICK_NS`] each); 0 cancels. Returns the
    /// kernel's tick count at the call.
    pub fn timer(&self, ticks: u64) -> Result<u64, SysError> {
        crate::sys::call(Sysno::TimerSet, self.0 as u64, ticks, 0, 0)
    }
}

/// A capability to an interrupt line.
#[derive(Clone, Copy, Debug)]
pub struct Irq(pub usize);

impl Irq {
    /// Re-enables the line after its interrupt was handled.
    pub fn ack(&self) -> Result<(), SysError> {
        crate::sys::call(Sysno::IrqAck, self.0 as u64, 0, 0, 0).map(drop)
    }
}

/// A capability to a range of I/O ports.
#[derive(Clone, Copy, Debug)]
pub struct IoPorts(pub usize);

impl IoPorts {
    pub fn read8(&self, port: u16) -> Result<u8, SysError> {
        crate::sys::call(Sysno::IoIn, self.0 as u64, port as u64, 1, 0).map(|v| v as u8)
    }

    pub fn write8(&self, port: u16, value: u8) -> Result<(), SysError> {
        crate::sys::call(Sysno::IoOut, self.0 as u64, port as u64, 1, value as u64).map(drop)
    }

    pub fn write16(&self, port: u16, value: u16) -> Result<(), SysError> {
        crate::sys::call(Sysno::IoOut, self.0 as u64, port as u64, 2, value as u64).map(drop)
    }
}

/// Operations on any capability slot.
#[derive(Clone, Copy, Debug)]
pub struct Slot(pub usize);

impl Slot {
    /// Derives a capability with `rights` ∩ this one's and `badge` into `dst`.
    pub fn mint(&self, dst: usize, rights: u8, badge: u64) -> Result<(), SysError> {
        crate::sys::call(
            Sysno::CapMint,
            self.0 as u64,
            dst as u64,
            rights as u64,
            badge,
        )
        .map(drop)
    }

    /// Derives an identical capability into `dst`.
    pub fn copy(&self, dst: usize) -> Result<(), SysError> {
        crate::sys::call(Sysno::CapCopy, self.0 as u64, dst as u64, 0, 0).map(drop)
    }

    pub fn delete(&self) -> Result<(), SysError> {
        crate::sys::call(Sysno::CapDelete, self.0 as u64, 0, 0, 0).map(drop)
    }

    /// Deletes every capability derived from this one; returns how many.
    pub fn revoke(&self) -> Result<u64, SysError> {
        crate::sys::call(Sysno::CapRevoke, self.0 as u64, 0, 0, 0)
    }

    /// (kind, rights, badge) of the capability.
    pub fn info(&self) -> Result<(u8, u8, u64), SysError> {
        let r = syscall6(Sysno::CapInfo as u64, self.0 as u64, 0, 0, 0, 0, 0);
        check(&r)?;
        Ok((r.rdx as u8, (r.rdx >> 8) as u8, r.rsi))
    }
}
