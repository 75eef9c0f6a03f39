//! Notifications and interrupts.
//!
//! A notification is a word of bits. `signal` ORs the capability's badge
//! (or 1 when unbadged) into it and wakes the waiter; `wait` returns and
//! clears the word, blocking while it is zero; `poll` never blocks. An IRQ
//! line bound to a notification sets its bit when it fires; the line stays
//! masked until the holder of the IRQ capability acknowledges it.

use crate::arch::ioapic;
use crate::cap::ObjRef;
use crate::object::Object;
use crate::sched::Kernel;
use crate::syscall::Effect;
use crate::task::State;
use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::SysError;

impl Kernel {
    fn notification(&mut self, me: usize, slot: u64, right: u8) -> Result<(u16, u64), SysError> {
        let cap = self
            .task(me)
            .caps
            .lookup(slot, ObjectKind::Notification, right)?;
        let ObjRef::Object(_, obj) = cap.obj else {
            return Err(SysError::WrongKind);
        };
        Ok((obj, cap.badge))
    }

    fn word(&mut self, obj: u16) -> &mut u64 {
        match &mut self.objects.table[obj as usize] {
            Object::Notification { word } => word,
            _ => unreachable!("capability kinds match object kinds"),
        }
    }

    /// ORs `bits` into notification `obj` and wakes its waiter.
    pub fn raise(&mut self, obj: u16, bits: u64) {
        *self.word(obj) |= bits;
        let waiter = self.live().iter().position(
            |t| matches!(t, Some(t) if matches!(t.state, State::Waiting { obj: o } if o == obj)),
        );
        if let Some(w) = waiter {
            let word = core::mem::take(self.word(obj));
            let t = self.task(w);
            (t.ctx.rax, t.ctx.rdx) = (0, word);
            t.state = State::Ready;
        }
    }

    pub fn sys_signal(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let (obj, badge) = self.notification(me, slot, rights::WRITE)?;
        self.raise(obj, if badge == 0 { 1 } else { badge });
        Ok(0)
    }

    pub fn sys_wait(&mut self, me: usize, slot: u64) -> Result<Effect, SysError> {
        let (obj, _) = self.notification(me, slot, rights::READ)?;
        let word = core::mem::take(self.word(obj));
        if word != 0 {
            self.task(me).ctx.rdx = word;
            return Ok(Effect::Resume);
        }
        self.task(me).state = State::Waiting { obj };
        Ok(Effect::Block)
    }

    pub fn sys_poll(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let (obj, _) = self.notification(me, slot, rights::READ)?;
        Ok(core::mem::take(self.word(obj)))
    }

    /// `irq_ack`: unmask the capability's line.
    pub fn sys_irq_ack(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let cap = self.task(me).caps.lookup(slot, ObjectKind::Irq, 0)?;
        let ObjRef::Object(_, obj) = cap.obj else {
            return Err(SysError::WrongKind);
        };
        let Object::Irq { line, .. } = self.objects.table[obj as usize] else {
            return Err(SysError::WrongKind);
        };
        ioapic::unmask(line);
        Ok(0)
    }

    /// A device interrupt on `line`: mask it and signal its notification.
    pub fn interrupt(&mut self, line: u8) {
        ioapic::mask(line);
        if let Some((ntfn, bit)) = self.objects.irq_for_line(line) {
            self.raise(ntfn, 1 << bit);
        }
    }
}
