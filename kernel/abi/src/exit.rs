//! Verdicts the kernel reports through QEMU's `isa-debug-exit` device.
//!
//! QEMU turns a value `v` written to the device into the process exit
//! status `(v << 1) | 1`. The values are chosen so that neither status can
//! be confused with QEMU's own failure status (1) or a signal.

/// I/O port of the `isa-debug-exit` device (`-device isa-debug-exit,iobase=0xf4,iosize=4`).
pub const DEBUG_EXIT_PORT: u16 = 0xf4;

/// What the kernel reports when it stops the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Verdict {
    /// Every task has ended (exited or been stopped after a fault) and the
    /// kernel itself met no fault.
    AllTasksEnded = 0x31,
    /// The kernel faulted or panicked.
    KernelFault = 0x32,
}

impl Verdict {
    /// The host process exit status QEMU reports for this verdict.
    pub fn qemu_status(self) -> i32 {
        ((self as i32) << 1) | 1
    }

    /// Maps a QEMU exit status back to a verdict.
    pub fn from_qemu_status(status: i32) -> Option<Self> {
        [Self::AllTasksEnded, Self::KernelFault]
            .into_iter()
            .find(|v| v.qemu_status() == status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_distinct_from_qemu_failure() {
        assert_eq!(Verdict::AllTasksEnded.qemu_status(), 99);
        assert_eq!(Verdict::KernelFault.qemu_status(), 101);
        assert_eq!(Verdict::from_qemu_status(1), None);
        assert_eq!(Verdict::from_qemu_status(99), Some(Verdict::AllTasksEnded));
    }
}
