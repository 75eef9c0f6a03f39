//! System call dispatch. One shape for all: a handler reads its arguments
//! from the caller's saved registers and returns `Result<_, SysError>`;
//! [`handle`] alone writes status and value back. Calls that block or change
//! scheduling say so through [`Effect`]; a blocked task's result is written
//! by whoever wakes it.

use crate::sched::Kernel;
use crate::usermem::UserSlice;
use conflux_abi::syscall::DEBUG_WRITE_MAX;
use conflux_abi::{SysError, Sysno};

/// What the scheduler must do after a syscall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Return to the caller (unless a more urgent task became ready).
    Resume,
    /// Let another task of the same priority run first.
    Yield,
    /// The caller is blocked; run someone else.
    Block,
    /// The task has ended with this code.
    Exit(u64),
}

fn debug_write(k: &mut Kernel, me: usize, slice: UserSlice) -> Result<u64, SysError> {
    if slice.len() > DEBUG_WRITE_MAX as u64 {
        return Err(SysError::TooLong);
    }
    let task = k.task(me);
    let space = task.space.as_mut().ok_or(SysError::BadAddress)?;
    let (name, line) = (task.name, &mut task.at_line_start);
    slice.read(space, |bytes| crate::console::task_write(name, line, bytes))?;
    Ok(slice.len())
}

/// A value-returning call's outcome, as an effect.
fn value(k: &mut Kernel, me: usize, r: Result<u64, SysError>) -> Result<Effect, SysError> {
    k.task(me).ctx.rdx = r?;
    Ok(Effect::Resume)
}

fn dispatch(k: &mut Kernel, me: usize, num: Sysno) -> Result<Effect, SysError> {
    let c = k.task(me).ctx;
    let (a0, a1, a2, a3) = (c.rdi, c.rsi, c.rdx, c.r10);
    let r = match num {
        Sysno::DebugWrite => debug_write(k, me, UserSlice::new(a0, a1)),
        Sysno::Exit => return Ok(Effect::Exit(a0)),
        Sysno::Yield => return Ok(Effect::Yield),
        Sysno::Call => return k.sys_send(me, true),
        Sysno::Send => return k.sys_send(me, false),
        Sysno::Recv => return k.sys_recv(me, a0),
        Sysno::Reply => k.sys_reply(me, a0).map(|()| 0),
        Sysno::ReplyRecv => return k.sys_reply_recv(me),
        Sysno::Signal => k.sys_signal(me, a0),
        Sysno::Wait => return k.sys_wait(me, a0),
        Sysno::Poll => k.sys_poll(me, a0),
        Sysno::IrqAck => k.sys_irq_ack(me, a0),
        Sysno::CapMint => {
            let mask = u8::try_from(a2).map_err(|_| SysError::InvalidArgument)?;
            k.sys_mint(me, a0, a1, mask, a3)
        }
        Sysno::CapCopy => k.sys_mint(me, a0, a1, conflux_abi::cap::rights::ALL, 0),
        Sysno::CapDelete => k.sys_delete(me, a0),
        Sysno::CapRevoke => k.sys_revoke(me, a0),
        Sysno::CapInfo => {
            let (info, badge) = k.sys_info(me, a0)?;
            k.task(me).ctx.rsi = badge;
            Ok(info)
        }
        Sysno::RegionMap => k.sys_map(me, a0, a1, a2),
        Sysno::RegionUnmap => k.sys_unmap(me, a0),
        Sysno::RegionPhys => k.sys_phys(me, a0, a1),
        Sysno::IoIn => k.sys_io_in(me, a0, a1, a2),
        Sysno::IoOut => k.sys_io_out(me, a0, a1, a2, a3),
    };
    value(k, me, r)
}

/// Runs the current task's syscall and stores its status.
pub fn handle(k: &mut Kernel) -> Effect {
    let me = k.current;
    let num = k.task(me).ctx.rax;
    let result = match Sysno::from_raw(num) {
        None => Err(SysError::UnknownSyscall),
        Some(n) => dispatch(k, me, n),
    };
    match result {
        // A blocked task's status is written by whoever wakes it.
        Ok(Effect::Block) => Effect::Block,
        Ok(e) => {
            k.task(me).ctx.rax = 0;
            e
        }
        Err(e) => {
            let t = k.task(me);
            t.state = crate::task::State::Ready; // a failed call never leaves the task blocked
            t.ctx.rax = e.code();
            Effect::Resume
        }
    }
}
