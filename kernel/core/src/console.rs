//! The operator's console: typed bytes and the task table, for whoever
//! holds the console's interrupt.
//!
//! COM1 belongs to the kernel, which prints on it for everyone. Reading it
//! is a privilege like any other, so it is a capability: the IRQ object of
//! [`CONSOLE_IRQ_LINE`]. Its holder is signalled when bytes arrive (as for
//! any interrupt), takes them with `console_read`, and may also list the
//! tasks with `task_info` and stop one with `task_stop` — what an
//! operator's shell needs — and the manifest gives that capability to at
//! most one task.

use crate::cspace::NodeId;
use crate::kernel::Kernel;
use crate::machine::Machine;
use crate::object::Object;
use crate::task::State;
use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::devices::CONSOLE_IRQ_LINE;
use conflux_abi::task_info::{RunState, TaskInfo};
use conflux_abi::SysError;

impl<M: Machine> Kernel<M> {
    /// Checks that `slot` holds the console's IRQ capability with READ.
    pub(crate) fn console_cap(&self, me: usize, slot: u64) -> Result<(), SysError> {
        let cap = self
            .caps
            .lookup(NodeId::slot(me, slot)?, ObjectKind::Irq, rights::READ)?;
        match self.objects.get(cap.obj.object().unwrap_or(u16::MAX)) {
            Object::Irq { line, .. } if line == CONSOLE_IRQ_LINE => Ok(()),
            Object::Irq { .. } => Err(SysError::InvalidArgument),
            _ => Err(SysError::WrongKind),
        }
    }

    /// `console_read`: up to 8 typed bytes, little-endian in the word.
    pub fn sys_console_read(&mut self, me: usize, slot: u64) -> Result<(u64, u64), SysError> {
        self.console_cap(me, slot)?;
        let mut bytes = [0u8; 8];
        let n = M::console_read(&mut bytes).min(8);
        Ok((n as u64, u64::from_le_bytes(bytes)))
    }

    /// `task_info`: task `index`'s state, priority and restarts.
    pub fn sys_task_info(&mut self, me: usize, slot: u64, index: u64) -> Result<u64, SysError> {
        self.console_cap(me, slot)?;
        let index = usize::try_from(index).map_err(|_| SysError::InvalidArgument)?;
        let Some(entry) = self.live().get(index) else {
            return Err(SysError::InvalidArgument);
        };
        let info = match entry {
            None => TaskInfo {
                state: RunState::Absent,
                priority: 0,
                restarts: 0,
            },
            Some(t) => TaskInfo {
                state: match run_state(t.state) {
                    // Waiting for its supervisor after an exit: an exit.
                    RunState::Faulted if t.exited() => RunState::Exited,
                    s => s,
                },
                priority: t.priority,
                restarts: t.generation,
            },
        };
        Ok(info.pack())
    }
}

fn run_state(s: State) -> RunState {
    match s {
        State::Ready => RunState::Ready,
        State::Sending { .. } | State::Receiving { .. } | State::AwaitingReply { .. } => {
            RunState::Ipc
        }
        State::Waiting { .. } => RunState::Waiting,
        State::Exited => RunState::Exited,
        State::Stopped | State::FaultSending { .. } | State::FaultAwaiting => RunState::Faulted,
    }
}
