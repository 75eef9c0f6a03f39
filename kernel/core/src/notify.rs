//! Notifications and interrupts.
//!
//! A notification is a word of bits. `signal` ORs the capability's badge
//! (or 1 when unbadged) into it and wakes the waiter; `wait` returns and
//! clears the word, blocking while it is zero; `poll` never blocks. An IRQ
//! line bound to a notification sets its bit when it fires; the line stays
//! masked until the holder of the IRQ capability (with the WRITE right)
//! acknowledges it. A notification bound to a task (`crate::bound`) wakes
//! that task's receive when no `wait` is blocked on it, and only that task
//! may wait on or poll it.

use crate::cspace::NodeId;
use crate::kernel::{Kernel, Next};
use crate::machine::{Machine, UserRegs};
use crate::object::Object;
use crate::task::State;
use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::SysError;

impl<M: Machine> Kernel<M> {
    fn notification(&self, me: usize, slot: u64, need: u8) -> Result<(u16, u64), SysError> {
        let cap = self
            .caps
            .lookup(NodeId::slot(me, slot)?, ObjectKind::Notification, need)?;
        Ok((cap.obj.object().ok_or(SysError::WrongKind)?, cap.badge))
    }

    fn take_word(&mut self, obj: u16) -> u64 {
        match &mut self.objects.table[obj as usize] {
            Object::Notification { word } => core::mem::take(word),
            _ => 0,
        }
    }

    /// ORs `bits` into notification `obj` and wakes its waiter.
    pub fn raise(&mut self, obj: u16, bits: u64) {
        if let Object::Notification { word } = &mut self.objects.table[obj as usize] {
            *word |= bits;
        }
        if let Some(w) = self.waiter_on(obj) {
            let word = self.take_word(obj);
            self.task(w).ctx.set_ok(word);
            self.set_state(w, State::Ready);
        } else {
            self.wake_bound_receiver(obj);
        }
    }

    /// The task blocked in `wait` on notification `obj`, if any.
    pub fn waiter_on(&self, obj: u16) -> Option<usize> {
        self.live().iter().position(
            |t| matches!(t, Some(t) if matches!(t.state, State::Waiting { obj: o, .. } if o == obj)),
        )
    }

    pub fn sys_signal(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let (obj, badge) = self.notification(me, slot, rights::WRITE)?;
        self.raise(obj, if badge == 0 { 1 } else { badge });
        Ok(0)
    }

    pub fn sys_wait(&mut self, me: usize, slot: u64) -> Result<Next, SysError> {
        let (obj, _) = self.notification(me, slot, rights::READ)?;
        self.check_not_bound_elsewhere(me, obj)?;
        let word = self.take_word(obj);
        if word != 0 {
            self.task(me).ctx.set_ok(word);
            return Ok(Next::Resume);
        }
        self.set_state(
            me,
            State::Waiting {
                obj,
                slot: slot as u8,
            },
        );
        Ok(Next::Block)
    }

    pub fn sys_poll(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let (obj, _) = self.notification(me, slot, rights::READ)?;
        self.check_not_bound_elsewhere(me, obj)?;
        Ok(self.take_word(obj))
    }

    /// `irq_ack`: unmask the capability's line (needs WRITE: acknowledging
    /// changes what the device may do next).
    pub fn sys_irq_ack(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let cap = self
            .caps
            .lookup(NodeId::slot(me, slot)?, ObjectKind::Irq, rights::WRITE)?;
        let Object::Irq { line, .. } = self.objects.get(cap.obj.object().unwrap_or(u16::MAX))
        else {
            return Err(SysError::WrongKind);
        };
        M::irq_mask(line, false);
        Ok(0)
    }

    /// Where interrupt line `line` should be delivered: the CPU of its
    /// driver — the first task (by index) holding a capability to the
    /// line's IRQ object with the WRITE right, the one that acknowledges
    /// it — with that task's index; `None` when no task holds one (the
    /// line stays on CPU 0). Delivered there, the interrupt wakes the
    /// driver on its own CPU: no wake-up IPI, and no second CPU woken
    /// for every interrupt. Tasks never move, so this is decided once,
    /// after the tasks are loaded.
    pub fn irq_home(&self, line: u8) -> Option<(usize, usize)> {
        let object = self
            .objects
            .table
            .iter()
            .position(|o| matches!(o, Object::Irq { line: l, .. } if *l == line))?;
        (0..self.ntasks).find_map(|t| {
            self.caps
                .nodes_of(t)
                .any(|(_, c)| {
                    c.obj.kind() == ObjectKind::Irq
                        && c.obj.object() == Some(object as u16)
                        && c.rights & rights::WRITE != 0
                })
                .then(|| (self.placement.cpu_of(t), t))
        })
    }

    /// A device interrupt on `line`: mask it and signal its notification.
    pub fn interrupt(&mut self, line: u8) {
        M::irq_mask(line, true);
        if let Some((ntfn, bit)) = self.objects.irq_for_line(line) {
            self.raise(ntfn, 1 << bit);
        }
    }
}
