//! Safe wrappers around the kernel's syscalls.
//!
//! The register convention is documented in `conflux_abi::syscall`. Each
//! wrapper returns `Result<_, SysError>` decoded from the status word.

use conflux_abi::{SysError, Sysno};

/// Makes syscall `num` with up to three arguments; returns `(status, value)`.
///
/// This is the raw interface, exposed so that tests can pass the kernel
/// arguments no wrapper would (unknown numbers, hostile pointers). No
/// syscall of this kernel writes to task memory yet, so any arguments are
/// memory-safe for the caller.
pub fn raw_syscall(num: u64, a0: u64, a1: u64, a2: u64) -> (u64, u64) {
    let status: u64;
    let value: u64;
    // Safety: `syscall` clobbers only rcx and r11 (declared) and returns
    // status/value in rax/rdx; the kernel preserves every other register
    // and does not touch task memory on these calls.
    unsafe {
        core::arch::asm!(
            "syscall",
            inlateout("rax") num => status,
            in("rdi") a0,
            in("rsi") a1,
            inlateout("rdx") a2 => value,
            out("rcx") _,
            out("r11") _,
            options(nostack),
        );
    }
    (status, value)
}

fn decode((status, value): (u64, u64)) -> Result<u64, SysError> {
    match status {
        0 => Ok(value),
        code => Err(SysError::from_code(code).unwrap_or(SysError::UnknownSyscall)),
    }
}

/// Prints `bytes` on the kernel console (each line prefixed with the task's name).
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

/// Ends the task with `code`.
pub fn exit(code: u64) -> ! {
    raw_syscall(Sysno::Exit as u64, code, 0, 0);
    // The kernel never returns from exit; if it did, spinning keeps the
    // task harmless until it is preempted.
    loop {
        core::hint::spin_loop();
    }
}
