//! Safe wrappers around the kernel's syscalls.
//!
//! The register convention is documented in `conflux_abi::syscall`. Each
//! wrapper returns `Result<_, SysError>` decoded from the status word.

use conflux_abi::{SysError, Sysno};

/// All registers a syscall returns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ret {
    pub rax: u64,
    pub rdi: u64,
    pub rsi: u64,
    pub rdx: u64,
    pub r10: u64,
    pub r8: u64,
    pub r9: u64,
}

impl Ret {
    /// The received message, read from the registers in the order
    /// `conflux_abi::ipc::RawMessage` defines (the kernel writes through
    /// the same type).
    #[inline]
    pub fn message(&self) -> conflux_abi::ipc::RawMessage {
        conflux_abi::ipc::RawMessage {
            info: self.rdi,
            badge: self.rsi,
            words: [self.rdx, self.r10, self.r8, self.r9],
        }
    }
}

/// Makes syscall `num` with six arguments and returns every result register.
#[inline]
pub fn syscall6(num: u64, a0: u64, a1: u64, a2: u64, a3: u64, a4: u64, a5: u64) -> Ret {
    let mut r = Ret::default();
    // Safety: `syscall` clobbers only rcx and r11 (declared); the kernel
    // returns results in rax, rdi, rsi, rdx, r10, r8, r9 (all declared as
    // outputs) and writes task memory only in the IPC buffer page, which
    // Rust code reaches only through volatile accessors.
    unsafe {
        core::arch::asm!(
            "syscall",
            inlateout("rax") num => r.rax,
            inlateout("rdi") a0 => r.rdi,
            inlateout("rsi") a1 => r.rsi,
            inlateout("rdx") a2 => r.rdx,
            inlateout("r10") a3 => r.r10,
            inlateout("r8") a4 => r.r8,
            inlateout("r9") a5 => r.r9,
            out("rcx") _,
            out("r11") _,
            options(nostack),
        );
    }
    r
}

/// Makes syscall `num` with up to four arguments; returns `(status, value)`.
///
/// This is the raw interface, exposed so that tests can pass the kernel
/// arguments no wrapper would (unknown numbers, hostile pointers, bad
/// slots). Any arguments are memory-safe for the caller: the kernel writes
/// task memory only in the IPC buffer page.
pub fn raw_syscall(num: u64, a0: u64, a1: u64, a2: u64) -> (u64, u64) {
    let r = syscall6(num, a0, a1, a2, 0, 0, 0);
    (r.rax, r.rdx)
}

/// A value-returning syscall, decoded.
pub fn call(num: Sysno, a0: u64, a1: u64, a2: u64, a3: u64) -> Result<u64, SysError> {
    let r = syscall6(num as u64, a0, a1, a2, a3, 0, 0);
    decode((r.rax, r.rdx))
}

fn decode((status, value): (u64, u64)) -> Result<u64, SysError> {
    match status {
        0 => Ok(value),
        code => Err(SysError::from_code(code).unwrap_or(SysError::UnknownSyscall)),
    }
}

/// Prints `bytes` on the kernel console (each line prefixed with the task's
/// name). Returns how many bytes were written: all of them, or 0 when the
/// task's console budget (`conflux_abi::syscall::CONSOLE_BURST_BYTES`) is
/// spent and the kernel dropped the write whole.
pub fn debug_write(bytes: &[u8]) -> Result<usize, SysError> {
    decode(raw_syscall(
        Sysno::DebugWrite as u64,
        bytes.as_ptr() as u64,
        bytes.len() as u64,
        0,
    ))
    .map(|n| n as usize)
}

/// Gives the CPU to another ready task of the same priority.
pub fn yield_now() {
    let _ = raw_syscall(Sysno::Yield as u64, 0, 0, 0);
}

/// Runs this task at priority `p` (0 is the most urgent): its manifest
/// priority or less urgent, never more (`InvalidArgument`). A server runs
/// a client's long work at the client's priority with it; the kernel
/// raises it back while a more urgent client waits to call it.
pub fn set_priority(p: u8) -> Result<(), SysError> {
    call(Sysno::SetPriority, u64::from(p), 0, 0, 0).map(drop)
}

/// Wall-clock time: milliseconds since 1970-01-01 00:00:00 UTC, from the
/// real-time clock read at boot plus the kernel's ticks since. `NoClock`
/// when the kernel found no date in the real-time clock.
pub fn wall_clock_ms() -> Result<u64, SysError> {
    call(Sysno::WallClock, 0, 0, 0, 0)
}

/// Ends the task with `code`.
pub fn exit(code: u64) -> ! {
    raw_syscall(Sysno::Exit as u64, code, 0, 0);
    // The kernel never returns from exit; if it did, spinning keeps the
    // task harmless until it is preempted.
    loop {
        core::hint::spin_loop();
    }
}

/// Ends the task as a panic: the kernel stops it as it would after a CPU
/// exception and tells its supervisor, which restarts it if the manifest
/// says `restart = "on-fault"`. The panic handler calls this after
/// printing the message; other code should simply `panic!`.
pub fn panic_stop() -> ! {
    raw_syscall(Sysno::Panic as u64, 0, 0, 0);
    // As in `exit`: the kernel never returns from this call.
    loop {
        core::hint::spin_loop();
    }
}

/// Reads the time-stamp counter: cycles under KVM, emulated time under
/// TCG, and instructions under `icount` (QEMU advances time per instruction).
pub fn rdtsc() -> u64 {
    // Safety: RDTSC has no memory effects; the kernel leaves CR4.TSD clear,
    // so ring 3 may execute it.
    unsafe { core::arch::x86_64::_rdtsc() }
}
