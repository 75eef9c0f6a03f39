//! Reading the serial console: for the one task that holds COM1's IRQ
//! capability (the operator's shell).
//!
//! The kernel keeps COM1 and buffers what is typed; this task is signalled
//! through the IRQ's notification and takes the bytes with
//! `console_read`. [`Input::read`] hides the dance that makes that
//! race-free: the line is edge-triggered and masked after each interrupt,
//! so after acknowledging it the buffer is read once more before waiting,
//! or a byte that arrived while it was masked would sit unseen.

use crate::ipc::{Irq, Notification};
use crate::sys;
use conflux_abi::task_info::TaskInfo;
use conflux_abi::{SysError, Sysno};

/// The console's input, from its IRQ capability and that IRQ's notification.
pub struct Input {
    irq: Irq,
    notify: Notification,
}

impl Input {
    /// `irq`: the slot of the console's IRQ capability (read and write
    /// rights); `notify`: the notification it signals.
    pub const fn new(irq: usize, notify: usize) -> Self {
        Self {
            irq: Irq(irq),
            notify: Notification(notify),
        }
    }

    /// Up to 8 typed bytes without blocking (0 when nothing is waiting).
    pub fn try_read(&self, out: &mut [u8; 8]) -> Result<usize, SysError> {
        let r = sys::syscall6(Sysno::ConsoleRead as u64, self.irq.0 as u64, 0, 0, 0, 0, 0);
        if r.rax != 0 {
            return Err(SysError::from_code(r.rax).unwrap_or(SysError::UnknownSyscall));
        }
        *out = r.rsi.to_le_bytes();
        Ok((r.rdx as usize).min(8))
    }

    /// Blocks until at least one byte is typed; returns 1..=8 of them.
    pub fn read(&self, out: &mut [u8; 8]) -> Result<usize, SysError> {
        loop {
            let n = self.try_read(out)?;
            if n > 0 {
                return Ok(n);
            }
            self.irq.ack()?;
            let n = self.try_read(out)?;
            if n > 0 {
                return Ok(n);
            }
            self.notify.wait()?;
        }
    }

    /// Task `index`'s state, priority and restarts (for `ps`); `None` past
    /// the last task.
    pub fn task_info(&self, index: usize) -> Result<Option<TaskInfo>, SysError> {
        match sys::call(Sysno::TaskInfo, self.irq.0 as u64, index as u64, 0, 0) {
            Ok(word) => Ok(TaskInfo::unpack(word)),
            Err(SysError::InvalidArgument) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Ends task `index` as if it had faulted (for `kill`); its supervisor
    /// decides whether it restarts. `NotRunning` when it has ended or
    /// waits for its supervisor, `IsSupervisor` for the supervisor,
    /// `InvalidArgument` past the last task.
    pub fn stop_task(&self, index: usize) -> Result<(), SysError> {
        sys::call(Sysno::TaskStop, self.irq.0 as u64, index as u64, 0, 0).map(drop)
    }
}
