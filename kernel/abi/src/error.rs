//! Errors a syscall returns to the task that made it.
//!
//! Each code names one specific reason, so a task (or the person reading
//! its log) can tell "this number is not a syscall" from "this pointer is
//! not yours" from "that server died" without guessing.

use core::fmt;

macro_rules! errors {
    ($($(#[$doc:meta])* $name:ident = $n:expr => $text:expr,)*) => {
        /// A syscall's failure, as returned in `rax`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u64)]
        pub enum SysError { $($(#[$doc])* $name = $n,)* }

        impl SysError {
            /// Every error, in code order.
            pub const ALL: &'static [SysError] = &[$(SysError::$name,)*];

            /// Decodes a status word; `None` for 0 (success) or an unknown code.
            #[inline]
            pub fn from_code(code: u64) -> Option<Self> {
                match code { $($n => Some(Self::$name),)* _ => None }
            }

            fn text(self) -> &'static str {
                match self { $(Self::$name => $text,)* }
            }
        }
    };
}

errors! {
    /// The number in `rax` is not a syscall this kernel implements.
    UnknownSyscall = 1 => "unknown syscall number",
    /// A pointer or address argument does not lie in memory the task may use.
    BadAddress = 2 => "address argument is not accessible user memory or outside the allowed window",
    /// A length argument exceeds the documented maximum for this call.
    TooLong = 3 => "length exceeds the call's maximum",
    /// A slot number is not below `CAP_SLOTS`.
    InvalidSlot = 4 => "slot number out of range",
    /// The slot holds no capability.
    EmptySlot = 5 => "slot is empty",
    /// The capability names another kind of object than the call needs.
    WrongKind = 6 => "capability is of the wrong kind for this call",
    /// The capability lacks a right the call needs.
    MissingRight = 7 => "capability lacks the right this call needs",
    /// The destination slot is already in use.
    SlotOccupied = 8 => "destination slot is occupied",
    /// The capability in the slot was revoked.
    Revoked = 9 => "capability was revoked",
    /// The task at the other end died or was restarted since the capability was made.
    DeadPeer = 10 => "peer task died or was restarted",
    /// Another task already waits on this endpoint.
    Busy = 11 => "another task is already receiving on this endpoint or waiting on this notification",
    /// An argument is out of its range (rights, width, port, offset, badge).
    InvalidArgument = 12 => "argument out of range",
    /// The kernel ran out of memory for the request.
    OutOfMemory = 13 => "kernel is out of memory",
    /// The region is already mapped through this capability, or the range is in use.
    AlreadyMapped = 14 => "region already mapped, or the range is in use",
    /// The region is not mapped through this capability.
    NotMapped = 15 => "region is not mapped",
    /// A non-blocking receive found no sender waiting.
    WouldBlock = 16 => "no message is waiting (non-blocking receive)",
    /// The notification is bound to another task (`ntfn_bind`), so only
    /// that task may bind, wait on or poll it.
    NotificationBound = 17 => "notification is bound to another task",
    /// The calling task already has another notification bound (`ntfn_bind`).
    TaskBound = 18 => "task already has a bound notification; unbind it first",
    /// `ntfn_bind` with slot 0 (unbind), but the task has no bound notification.
    NotBound = 19 => "task has no bound notification",
    /// `timer_set` with more ticks than `TIMER_MAX_TICKS`.
    TimerTooLong = 20 => "timer ticks exceed the maximum",
    /// `task_stop` named a task that is not running: it has ended, or it
    /// waits for its supervisor's decision.
    NotRunning = 21 => "the task is not running (it has ended or waits for its supervisor)",
    /// `task_stop` named the supervisor, which nothing would restart.
    IsSupervisor = 22 => "the supervisor cannot be stopped: nothing would restart it or the tasks it supervises",
    /// A timed call (`call_timed`) got no reply by its deadline: the
    /// caller stopped waiting. A server that answers that call afterwards
    /// gets this too from `reply`: its answer reaches nobody.
    TimedOut = 23 => "no reply by the call's deadline: the caller stopped waiting",
    /// `wall_clock`: the kernel could not read a valid date from the
    /// real-time clock at boot, so it has no wall-clock time to give.
    NoClock = 24 => "the kernel has no wall-clock time (the real-time clock gave no valid date at boot)",
}

impl SysError {
    /// The status word the kernel puts in `rax`.
    pub fn code(self) -> u64 {
        self as u64
    }
}

impl fmt::Display for SysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_zero_is_success() {
        for e in SysError::ALL {
            assert_eq!(SysError::from_code(e.code()), Some(*e));
        }
        assert_eq!(SysError::from_code(0), None);
        assert_eq!(SysError::from_code(SysError::ALL.len() as u64 + 1), None);
    }
}
