//! A task's saved CPU state: registers, x87/SSE state and data segment
//! selectors.
//!
//! The trap entry writes a task's registers straight into its
//! [`Context::frame`] (the TSS's `rsp0` and the per-CPU block point at it),
//! so entering and leaving the kernel copies no frame. Floating-point and
//! segment state is switched lazily, only when a different task gets the
//! CPU, so that two tasks can never pass data through CPU state.

use super::trap::TrapFrame;
use conflux_abi::ipc::RawMessage;
use conflux_abi::SysError;
use conflux_kcore::UserRegs;

/// The 512-byte `fxsave` image (x87, MMX, SSE registers and MXCSR).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct FxArea(pub [u8; 512]);

/// Everything a task leaves behind in the CPU when it is switched out.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Context {
    /// First, so that its end (where the CPU starts pushing) is 16-aligned.
    pub frame: TrapFrame,
    /// DS, ES, FS and GS selectors, 16 bits each from the low end (a task
    /// may load the user data selector into any of them).
    pub segs: u64,
    pub fpu: FxArea,
}

const _: () = assert!(core::mem::size_of::<TrapFrame>().is_multiple_of(16));

impl Context {
    /// The context that starts a task at `entry` with stack `rsp` and the
    /// floating-point state of a freshly reset CPU.
    pub fn new_user(entry: u64, rsp: u64) -> Self {
        Self {
            frame: TrapFrame::new_user(entry, rsp),
            segs: 0,
            fpu: super::cpu::initial_fpu_state(),
        }
    }
}

impl UserRegs for Context {
    fn sysno(&self) -> u64 {
        self.frame.rax
    }

    fn arg(&self, i: usize) -> u64 {
        let f = &self.frame;
        [f.rdi, f.rsi, f.rdx, f.r10, f.r8, f.r9][i]
    }

    fn outgoing(&self) -> RawMessage {
        let f = &self.frame;
        RawMessage {
            info: f.rsi,
            badge: 0,
            words: [f.rdx, f.r10, f.r8, f.r9],
        }
    }

    fn set_ok(&mut self, value: u64) {
        self.frame.rax = 0;
        self.frame.rdx = value;
    }

    fn set_ok2(&mut self, value: u64, extra: u64) {
        self.set_ok(value);
        self.frame.rsi = extra;
    }

    fn set_err(&mut self, e: SysError) {
        self.frame.rax = e.code();
    }

    fn set_incoming(&mut self, m: &RawMessage) {
        let f = &mut self.frame;
        f.rax = 0;
        f.rdi = m.info;
        f.rsi = m.badge;
        (f.rdx, f.r10, f.r8, f.r9) = (m.words[0], m.words[1], m.words[2], m.words[3]);
    }
}
