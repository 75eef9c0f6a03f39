//! Hostile syscalls: unknown numbers and bad pointers must each come back
//! as their specific error, and the task must keep running afterwards.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::layout::{HEAP_BASE, USER_STACK_TOP, USER_TOP};
use conflux_abi::syscall::DEBUG_WRITE_MAX;
use conflux_abi::{SysError, Sysno};
use conflux_userlib::{sys::raw_syscall, testing::Checks};

conflux_userlib::entry!(main);

fn status(e: Option<SysError>) -> u64 {
    e.map_or(0, SysError::code)
}

fn main() {
    let write = Sysno::DebugWrite as u64;
    let ok_buf = b"valid buffer\n";
    let heap_end = HEAP_BASE + config::HEAP_SIZE as u64;
    let stack_bottom = USER_STACK_TOP - config::STACK_SIZE as u64;
    let cases: [(&str, u64, u64, u64, Option<SysError>); 12] = [
        (
            "first unknown syscall number",
            Sysno::ALL.len() as u64,
            0,
            0,
            Some(SysError::UnknownSyscall),
        ),
        (
            "unknown syscall 999",
            999,
            1,
            2,
            Some(SysError::UnknownSyscall),
        ),
        (
            "unknown syscall u64::MAX",
            u64::MAX,
            0,
            0,
            Some(SysError::UnknownSyscall),
        ),
        ("write from null", write, 0, 8, Some(SysError::BadAddress)),
        (
            "write from kernel image",
            write,
            0xffff_ffff_8000_0000,
            8,
            Some(SysError::BadAddress),
        ),
        (
            "write from direct map",
            write,
            0xffff_8000_0000_0000,
            8,
            Some(SysError::BadAddress),
        ),
        (
            "write wrapping around",
            write,
            u64::MAX - 3,
            8,
            Some(SysError::BadAddress),
        ),
        (
            "write past user top",
            write,
            USER_TOP - 4,
            8,
            Some(SysError::BadAddress),
        ),
        (
            "write crossing heap end",
            write,
            heap_end - 4,
            8,
            Some(SysError::BadAddress),
        ),
        (
            "write from stack guard page",
            write,
            stack_bottom - 8,
            8,
            Some(SysError::BadAddress),
        ),
        (
            "write too long",
            write,
            ok_buf.as_ptr() as u64,
            DEBUG_WRITE_MAX as u64 + 1,
            Some(SysError::TooLong),
        ),
        (
            "valid write still works",
            write,
            ok_buf.as_ptr() as u64,
            ok_buf.len() as u64,
            None,
        ),
    ];
    let mut checks = Checks::new();
    for (what, num, a0, a1, want) in cases {
        let (got, _) = raw_syscall(num, a0, a1, 0);
        checks.eq(what, got, status(want));
    }
    checks.finish();
}
