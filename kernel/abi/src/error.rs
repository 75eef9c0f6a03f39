//! Errors a syscall returns to the task that made it.
//!
//! Each code names one specific reason, so a task (or the person reading
//! its log) can tell "this number is not a syscall" from "this pointer is
//! not yours" without guessing.

use core::fmt;

/// A syscall's failure, as returned in `rax`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum SysError {
    /// The number in `rax` is not a syscall this kernel implements.
    UnknownSyscall = 1,
    /// A pointer argument does not lie in memory the task may access
    /// (unmapped, kernel memory, outside the user half, or read-only where
    /// the kernel must write).
    BadAddress = 2,
    /// A length argument exceeds the documented maximum for this call.
    TooLong = 3,
}

impl SysError {
    /// Decodes a status word; `None` for 0 (success) or an unknown code.
    pub fn from_code(code: u64) -> Option<Self> {
        Some(match code {
            1 => Self::UnknownSyscall,
            2 => Self::BadAddress,
            3 => Self::TooLong,
            _ => return None,
        })
    }

    /// The status word the kernel puts in `rax`.
    pub fn code(self) -> u64 {
        self as u64
    }
}

impl fmt::Display for SysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::UnknownSyscall => "unknown syscall number",
            Self::BadAddress => "pointer argument is not accessible user memory",
            Self::TooLong => "length argument exceeds the call's maximum",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_zero_is_success() {
        for e in [
            SysError::UnknownSyscall,
            SysError::BadAddress,
            SysError::TooLong,
        ] {
            assert_eq!(SysError::from_code(e.code()), Some(e));
        }
        assert_eq!(SysError::from_code(0), None);
    }
}
