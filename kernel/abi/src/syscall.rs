//! Syscall numbers and the register convention.
//!
//! A task enters the kernel with the `syscall` instruction: the number in
//! `rax`, arguments in `rdi, rsi, rdx, r10, r8, r9` (the System V order with
//! `r10` standing in for `rcx`, which `syscall` overwrites). The kernel
//! answers with a status in `rax` (0 for success, otherwise a [`SysError`]
//! code) and a value in `rdx`. Every other register except `rcx` and `r11`
//! is preserved.
//!
//! [`SysError`]: crate::SysError

/// The syscalls the kernel implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Sysno {
    /// `debug_write(ptr, len)`: print bytes on the kernel console, each line
    /// prefixed with the task's name. Returns the number of bytes written.
    DebugWrite = 0,
    /// `exit(code)`: end the calling task. Does not return.
    Exit = 1,
    /// `yield()`: give the CPU to the next ready task of the same priority.
    Yield = 2,
}

impl Sysno {
    /// Decodes a raw syscall number, or `None` for a number the kernel does
    /// not implement.
    pub fn from_raw(raw: u64) -> Option<Self> {
        Some(match raw {
            0 => Self::DebugWrite,
            1 => Self::Exit,
            2 => Self::Yield,
            _ => return None,
        })
    }
}

/// Longest byte string one `debug_write` accepts.
///
/// The console is a debugging aid, not a data path: a bound keeps one task
/// from holding the console (and the kernel) for long.
pub const DEBUG_WRITE_MAX: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_round_trips() {
        for s in [Sysno::DebugWrite, Sysno::Exit, Sysno::Yield] {
            assert_eq!(Sysno::from_raw(s as u64), Some(s));
        }
        assert_eq!(Sysno::from_raw(3), None);
        assert_eq!(Sysno::from_raw(u64::MAX), None);
    }
}
