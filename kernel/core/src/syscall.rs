//! System call dispatch, in one shape.
//!
//! Every handler returns `Result<Next, SysError>` (value-returning calls
//! store their value through [`UserRegs`] and return [`Next::Resume`]);
//! [`Kernel::syscall`] alone turns an error into the caller's status. A
//! blocked task's result is written by whoever wakes it.

use crate::console_budget::{Verdict, PER_TICK};
use crate::kernel::{Cpu, Kernel, Next};
use crate::machine::{Machine, UserRegs};
use crate::task::State;
use conflux_abi::cap::rights;
use conflux_abi::ipc::FaultMessage;
use conflux_abi::syscall::DEBUG_WRITE_MAX;
use conflux_abi::{SysError, Sysno};

impl<M: Machine> Kernel<M> {
    /// Runs the current task's syscall and stores its status: the IPC
    /// fastpath when it applies (inlined here, so the common call costs no
    /// more than its checks), the general dispatch otherwise.
    #[inline]
    pub fn syscall(&mut self, cpu: &mut Cpu) -> Next {
        if self.placement.spread() {
            self.syscall_on::<true>(cpu)
        } else {
            self.syscall_on::<false>(cpu)
        }
    }

    /// [`Kernel::syscall`] for a caller that has already asked
    /// [`Placement::spread`](crate::placement::Placement::spread) (the
    /// glue asks once per entry and picks its own path to match):
    /// `SPREAD` must be its answer.
    #[inline(always)]
    pub fn syscall_on<const SPREAD: bool>(&mut self, cpu: &mut Cpu) -> Next {
        debug_assert_eq!(SPREAD, self.placement.spread());
        let me = cpu.current;
        let fast = match self.tasks[me].as_ref().map(|t| t.ctx.sysno()) {
            Some(n) if n == Sysno::Call as u64 => self.fast_call::<SPREAD>(me),
            Some(n) if n == Sysno::ReplyRecv as u64 => self.fast_reply_recv::<SPREAD>(me),
            _ => None,
        };
        match fast {
            Some(partner) => Next::Switch(partner),
            None => self.slow_syscall(cpu),
        }
    }

    /// Every syscall, every case, with errors turned into the status word.
    #[inline(never)]
    pub(crate) fn slow_syscall(&mut self, cpu: &mut Cpu) -> Next {
        let me = cpu.current;
        let num = self.task(me).ctx.sysno();
        let result = match Sysno::from_raw(num) {
            None => Err(SysError::UnknownSyscall),
            Some(n) => self.dispatch(cpu, me, n),
        };
        match result {
            Ok(next) => next,
            Err(e) => {
                self.set_state(me, State::Ready); // a failed call never leaves the task blocked
                self.task(me).ctx.set_err(e);
                Next::Resume
            }
        }
    }

    /// Stores a value-returning call's result.
    fn value(&mut self, me: usize, r: Result<u64, SysError>) -> Result<Next, SysError> {
        self.task(me).ctx.set_ok(r?);
        Ok(Next::Resume)
    }

    fn dispatch(&mut self, cpu: &mut Cpu, me: usize, num: Sysno) -> Result<Next, SysError> {
        let a = {
            let c = &self.task(me).ctx;
            [c.arg(0), c.arg(1), c.arg(2), c.arg(3)]
        };
        let r = match num {
            Sysno::Call => return self.sys_send(me, true),
            Sysno::CallTimed => return self.sys_call_timed(me),
            Sysno::ReplyRecv => return self.sys_reply_recv(me),
            Sysno::Send => return self.sys_send(me, false),
            Sysno::Recv => return self.sys_recv(me, a[0]),
            Sysno::NbRecv => return self.sys_nb_recv(me, a[0]),
            Sysno::Wait => return self.sys_wait(me, a[0]),
            Sysno::Yield => return Ok(Next::Yield),
            Sysno::Exit => {
                M::log(format_args!(
                    "task '{}' exited with code {}",
                    self.task(me).name,
                    a[0]
                ));
                // The supervisor hears of an exit as of a fault (if there
                // is one), so the servers the task used learn it is gone.
                self.end_task(cpu, me, Some(FaultMessage::exited(me as u32, a[0])));
                return Ok(Next::Block);
            }
            Sysno::Panic => {
                M::log(format_args!(
                    "task '{}' panicked (its last console line says where and why); task stopped, other tasks continue",
                    self.task(me).name
                ));
                return Ok(self.fault(cpu, FaultMessage::panic(me as u32)));
            }
            Sysno::DebugWrite => self.debug_write(me, a[0], a[1]),
            Sysno::Reply => self.sys_reply(me, a[0]).map(|_| 0),
            Sysno::Signal => self.sys_signal(me, a[0]),
            Sysno::Poll => self.sys_poll(me, a[0]),
            Sysno::IrqAck => self.sys_irq_ack(me, a[0]),
            Sysno::CapMint => self.sys_mint(me, a[0], a[1], a[2], a[3]),
            Sysno::CapCopy => self.sys_mint(me, a[0], a[1], rights::ALL as u64, 0),
            Sysno::CapDelete => self.sys_delete(me, a[0]),
            Sysno::CapRevoke => self.sys_revoke(me, a[0]),
            Sysno::CapInfo => {
                let (info, badge) = self.sys_info(me, a[0])?;
                self.task(me).ctx.set_ok2(info, badge);
                return Ok(Next::Resume);
            }
            Sysno::ConsoleRead => {
                let (n, bytes) = self.sys_console_read(me, a[0])?;
                self.task(me).ctx.set_ok2(n, bytes);
                return Ok(Next::Resume);
            }
            Sysno::TaskInfo => self.sys_task_info(me, a[0], a[1]),
            Sysno::RegionMap => self.sys_map(me, a[0], a[1], a[2]),
            Sysno::RegionUnmap => self.sys_unmap(me, a[0]),
            Sysno::RegionPhys => self.sys_phys(me, a[0], a[1]),
            Sysno::IoIn => self.sys_io_in(me, a[0], a[1], a[2]),
            Sysno::IoOut => self.sys_io_out(me, a[0], a[1], a[2], a[3]),
            Sysno::NtfnBind => self.sys_ntfn_bind(me, a[0], a[1]),
            Sysno::TimerSet => self.sys_timer_set(me, a[0], a[1]),
            Sysno::SetPriority => self.sys_set_priority(me, a[0]),
            Sysno::TaskStop => return self.sys_task_stop(cpu, me, a[0], a[1]),
            Sysno::WallClock => self.sys_wall_clock(),
        };
        self.value(me, r)
    }

    fn debug_write(&mut self, me: usize, addr: u64, len: u64) -> Result<u64, SysError> {
        if len > DEBUG_WRITE_MAX as u64 {
            return Err(SysError::TooLong);
        }
        let now = self.ticks;
        let t = self.task(me);
        // What the write puts on the console: its bytes, and the prefix
        // (`name: `) the kernel adds when it starts a line.
        let prefix = if t.at_line_start { t.name.len() + 2 } else { 0 };
        let cost = len as usize + prefix;
        let verdict = self.console[me].charge(now, cost);
        let t = self.task(me);
        match verdict {
            Verdict::Drop { first } => {
                if first {
                    M::log(format_args!(
                        "task '{}' writes to the console faster than {} bytes a second; its output is dropped until it slows down",
                        t.name,
                        u64::from(PER_TICK) * (1_000_000_000 / conflux_abi::time::TICK_NS)
                    ));
                }
                // Nothing was written: the caller learns it from the count.
                return Ok(0);
            }
            Verdict::Write { after_spell } if after_spell > 0 => M::log(format_args!(
                "task '{}' slowed down; {after_spell} bytes of its console output were dropped while it was too fast",
                t.name
            )),
            Verdict::Write { .. } => {}
        }
        let written = match t.space.as_mut() {
            Some(space) => M::debug_write(space, t.name, &mut t.at_line_start, addr, len),
            None => Err(SysError::BadAddress),
        };
        if written.is_err() {
            // Nothing reached the console: a bad pointer costs nothing.
            self.console[me].refund(cost);
        }
        written.map(|()| len)
    }

    /// The current task faulted (a CPU exception, or a panic it reported
    /// with the `panic` syscall): end it and tell its supervisor.
    pub fn fault(&mut self, cpu: &mut Cpu, mut report: FaultMessage) -> Next {
        let me = cpu.current;
        report.task = me as u32;
        self.end_task(cpu, me, Some(report));
        Next::Block
    }

    /// `set_priority(p)`: between the task's manifest priority and
    /// `MAX_PRIORITY`. Lowering may let a more urgent task run at once
    /// (`Resume` preempts then).
    fn sys_set_priority(&mut self, me: usize, p: u64) -> Result<u64, SysError> {
        let t = self.task(me);
        let p = u8::try_from(p).map_err(|_| SysError::InvalidArgument)?;
        if p < t.base_priority || p > conflux_abi::syscall::MAX_PRIORITY {
            return Err(SysError::InvalidArgument);
        }
        t.priority = p;
        Ok(0)
    }
}
