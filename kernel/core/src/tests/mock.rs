//! A machine that records instead of touching hardware.

use crate::machine::{Machine, MapFailure, UserRegs};
use crate::task::LoadedTask;
use conflux_abi::ipc::RawMessage;
use conflux_abi::SysError;
use conflux_bootimg::TaskRecord;
use std::cell::RefCell;

/// Saved registers: the syscall arguments in, the result out.
#[derive(Clone, Debug, Default)]
pub struct Regs {
    pub num: u64,
    pub args: [u64; 6],
    /// `Some(Ok(value))`, `Some(Err(e))`, or `None` while nothing was written.
    pub result: Option<Result<u64, SysError>>,
    pub extra: u64,
    pub incoming: Option<RawMessage>,
}

impl UserRegs for Regs {
    fn sysno(&self) -> u64 {
        self.num
    }
    fn arg(&self, i: usize) -> u64 {
        self.args[i]
    }
    fn outgoing(&self) -> RawMessage {
        RawMessage {
            info: self.args[1],
            badge: 0,
            words: [self.args[2], self.args[3], self.args[4], self.args[5]],
        }
    }
    fn set_ok(&mut self, value: u64) {
        self.result = Some(Ok(value));
    }
    fn set_ok2(&mut self, value: u64, extra: u64) {
        self.result = Some(Ok(value));
        self.extra = extra;
    }
    fn set_err(&mut self, e: SysError) {
        self.result = Some(Err(e));
    }
    fn set_incoming(&mut self, m: &RawMessage) {
        self.result = Some(Ok(0));
        self.incoming = Some(*m);
    }
}

/// An address space: the shared mappings it holds.
#[derive(Debug, Default)]
pub struct Space {
    pub shared: Vec<(u64, u64)>,
}

thread_local! {
    /// Shared mappings still present in spaces that were destroyed.
    pub static LEAKED_MAPPINGS: RefCell<usize> = const { RefCell::new(0) };
    pub static DESTROYED: RefCell<usize> = const { RefCell::new(0) };
    pub static MASKED: RefCell<Vec<(u8, bool)>> = const { RefCell::new(Vec::new()) };
    /// Bytes "typed" on the mock console, taken by `console_read`.
    pub static TYPED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The kernel's own console lines (`Machine::log`).
    pub static LOGGED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// Bytes tasks wrote to the console (`debug_write` that got through).
    pub static WRITTEN: RefCell<u64> = const { RefCell::new(0) };
}

/// An address the mock's `debug_write` refuses, as the real machine
/// refuses a pointer outside the task's memory.
pub const BAD_WRITE_ADDR: u64 = 0xffff_0000_0000_0000;

pub struct Mock;

impl Machine for Mock {
    type Context = Regs;
    type Space = Space;
    type LoadError = &'static str;

    fn load(_rec: &TaskRecord<'static>) -> Result<LoadedTask<Self>, &'static str> {
        Ok(LoadedTask {
            ctx: Regs::default(),
            space: Space::default(),
            ipc_buf: 0,
        })
    }
    fn destroy(space: Space, _task: usize) {
        LEAKED_MAPPINGS.with(|l| *l.borrow_mut() += space.shared.len());
        DESTROYED.with(|d| *d.borrow_mut() += 1);
    }
    fn map_shared(
        s: &mut Space,
        vaddr: u64,
        _: u64,
        size: u64,
        _: bool,
        _: bool,
    ) -> Result<(), MapFailure> {
        if s.shared
            .iter()
            .any(|&(v, n)| vaddr < v + n && v < vaddr + size)
        {
            return Err(MapFailure::AlreadyMapped);
        }
        s.shared.push((vaddr, size));
        Ok(())
    }
    fn unmap_shared(s: &mut Space, vaddr: u64, size: u64) {
        s.shared.retain(|&m| m != (vaddr, size));
    }
    fn copy_ipc_words(_: u64, _: u64, _: usize, _: usize) {}
    fn debug_write(
        _: &mut Space,
        _: &str,
        _: &mut bool,
        addr: u64,
        len: u64,
    ) -> Result<(), SysError> {
        if addr == BAD_WRITE_ADDR {
            return Err(SysError::BadAddress);
        }
        WRITTEN.with(|w| *w.borrow_mut() += len);
        Ok(())
    }
    fn port_in(_: u16, _: u8) -> u32 {
        0
    }
    fn port_out(_: u16, _: u8, _: u32) {}
    fn console_read(out: &mut [u8; 8]) -> usize {
        TYPED.with(|t| {
            let mut t = t.borrow_mut();
            let n = t.len().min(out.len());
            for (o, b) in out.iter_mut().zip(t.drain(..n)) {
                *o = b;
            }
            n
        })
    }
    fn irq_mask(line: u8, masked: bool) {
        MASKED.with(|m| m.borrow_mut().push((line, masked)));
    }
    fn log(args: core::fmt::Arguments<'_>) {
        LOGGED.with(|l| l.borrow_mut().push(args.to_string()));
    }
}
