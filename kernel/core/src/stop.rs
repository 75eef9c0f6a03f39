//! `task_stop`: the operator ends a task, and its supervisor decides what
//! happens next.
//!
//! A task stuck in a loop, or one an operator (or a soak test) wants to
//! see recover, must be stoppable from the console without a reboot. The
//! authority is the same as for `task_info`: the console's interrupt
//! capability, which the manifest gives to at most one task. The task is
//! ended exactly as a fault ends it — capabilities released, space
//! destroyed, callers and senders woken with `DeadPeer` — and its
//! supervisor gets a fault message of kind `Stopped` naming who asked, so
//! the manifest's restart policy applies as after a crash. A server's
//! reply to a stopped caller fails with `DeadPeer` (the reply capability
//! names the caller's generation), so nothing reaches a later instance.
//! The supervisor itself cannot be stopped: nothing would restart it or
//! the tasks it supervises.

use crate::kernel::{Cpu, Kernel, Next};
use crate::machine::{Machine, UserRegs};
use conflux_abi::ipc::FaultMessage;
use conflux_abi::SysError;

impl<M: Machine> Kernel<M> {
    /// `task_stop(slot, index)` made by task `me`.
    pub fn sys_task_stop(
        &mut self,
        cpu: &mut Cpu,
        me: usize,
        slot: u64,
        index: u64,
    ) -> Result<Next, SysError> {
        self.console_cap(me, slot)?;
        let target = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.ntasks)
            .ok_or(SysError::InvalidArgument)?;
        let Some(t) = self.tasks[target].as_ref() else {
            return Err(SysError::InvalidArgument);
        };
        let (name, dead) = (t.name, t.state.is_dead());
        if dead {
            return Err(SysError::NotRunning);
        }
        if self.supervisor == Some(target) {
            return Err(SysError::IsSupervisor);
        }
        M::log(format_args!(
            "task '{}' stopped at the request of task '{}' (the console's holder)",
            name,
            self.task(me).name
        ));
        self.end_task(
            cpu,
            target,
            Some(FaultMessage::stopped(target as u32, me as u32)),
        );
        if target == me {
            return Ok(Next::Block);
        }
        self.task(me).ctx.set_ok(0);
        Ok(Next::Resume)
    }
}
