//! System call handlers. One shape for all: a handler reads its arguments
//! from the saved registers and returns `Result<u64, SysError>`; [`handle`]
//! alone writes the status and value back. Calls that change scheduling
//! (exit, yield) say so through [`Effect`].

use crate::task::Task;
use crate::usermem::UserSlice;
use conflux_abi::syscall::DEBUG_WRITE_MAX;
use conflux_abi::{SysError, Sysno};

/// What the scheduler must do after a syscall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Return to the caller.
    Resume,
    /// Let another task of the same priority run first.
    Yield,
    /// The task has ended with this code.
    Exit(u64),
}

fn debug_write(task: &mut Task, slice: UserSlice) -> Result<u64, SysError> {
    if slice.len() > DEBUG_WRITE_MAX as u64 {
        return Err(SysError::TooLong);
    }
    let space = task.space.as_mut().ok_or(SysError::BadAddress)?;
    let (name, line) = (task.name, &mut task.at_line_start);
    slice.read(space, |bytes| crate::console::task_write(name, line, bytes))?;
    Ok(slice.len())
}

/// Runs the syscall saved in `task.ctx` and stores its result there.
pub fn handle(task: &mut Task) -> Effect {
    let ctx = task.ctx;
    let (result, effect) = match Sysno::from_raw(ctx.rax) {
        None => (Err(SysError::UnknownSyscall), Effect::Resume),
        Some(Sysno::DebugWrite) => (
            debug_write(task, UserSlice::new(ctx.rdi, ctx.rsi)),
            Effect::Resume,
        ),
        Some(Sysno::Exit) => return Effect::Exit(ctx.rdi),
        Some(Sysno::Yield) => (Ok(0), Effect::Yield),
    };
    let (status, value) = match result {
        Ok(v) => (0, v),
        Err(e) => (e.code(), 0),
    };
    task.ctx.rax = status;
    task.ctx.rdx = value;
    effect
}
