//! Kernel ticks and per-task one-shot timers.
//!
//! The machine calls [`Kernel::tick`] on every tick of its periodic timer
//! (the one that drives preemption, [`TICK_NS`] each); the kernel counts
//! them from boot. A task arms one timer at a time (`timer_set`): at the
//! tick its deadline is reached, the kernel signals the notification the
//! timer names with that capability's badge (or 1), exactly as `signal`
//! would, so a server bound to that notification sees the expiry in its
//! receive loop. A timer is cancelled by `ticks` 0, by re-arming, by the
//! task ending or restarting, and by the deletion or revocation of the
//! capability it was armed through.
//!
//! [`TICK_NS`]: conflux_abi::time::TICK_NS

use crate::cspace::NodeId;
use crate::kernel::Kernel;
use crate::machine::Machine;
use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::time::TIMER_MAX_TICKS;
use conflux_abi::SysError;

/// An armed timer: signal notification `obj` (armed through `slot`) with
/// `bits` when the tick count reaches `deadline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timer {
    pub obj: u16,
    pub slot: u8,
    pub bits: u64,
    pub deadline: u64,
}

impl<M: Machine> Kernel<M> {
    /// `timer_set(ntfn, ticks) -> now`: arm (or with 0, cancel) the
    /// calling task's timer.
    pub fn sys_timer_set(&mut self, me: usize, slot: u64, ticks: u64) -> Result<u64, SysError> {
        let cap = self.caps.lookup(
            NodeId::slot(me, slot)?,
            ObjectKind::Notification,
            rights::WRITE,
        )?;
        let obj = cap.obj.object().ok_or(SysError::WrongKind)?;
        if ticks > TIMER_MAX_TICKS {
            return Err(SysError::TimerTooLong);
        }
        let now = self.ticks;
        self.task(me).timer = (ticks != 0).then_some(Timer {
            obj,
            slot: slot as u8,
            bits: if cap.badge == 0 { 1 } else { cap.badge },
            deadline: now + ticks,
        });
        Ok(now)
    }

    /// One tick of the machine's timer: counts it, fires the timers whose
    /// deadline it reaches, then ends the timed calls whose deadline it
    /// reaches (`crate::deadline`; a timer and a call due at one tick both
    /// happen, independently).
    pub fn tick(&mut self) {
        self.ticks += 1;
        let now = self.ticks;
        for t in 0..self.ntasks {
            let Some(task) = self.tasks[t].as_mut() else {
                continue;
            };
            if let Some(tm) = task.timer.filter(|tm| tm.deadline <= now) {
                task.timer = None;
                self.raise(tm.obj, tm.bits);
            }
        }
        self.expire_calls(now);
    }

    /// True when some task's timer is armed (it will make a task ready or
    /// at least change a notification, so the CPU idles rather than halts).
    pub fn timer_armed(&self) -> bool {
        self.live().iter().flatten().any(|t| t.timer.is_some())
    }
}
