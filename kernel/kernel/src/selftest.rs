//! Deliberate kernel failures, asked for on the kernel command line, so
//! the in-guest tests can prove that a kernel fault or panic produces a
//! report and a failure verdict rather than a hang.
//!
//! `selftest=kernel-fault` reads an unmapped kernel address;
//! `selftest=panic` panics. Any other argument is reported and ignored.

use crate::kprintln;

/// A kernel-half address the kernel never maps (between the direct map and
/// the kernel image).
const UNMAPPED_KERNEL_ADDRESS: u64 = 0xffff_c000_0000_0000;

/// Acts on the command line's `selftest=` argument, if any.
pub fn run(cmdline: &str) {
    for arg in cmdline.split_whitespace() {
        match arg {
            "selftest=kernel-fault" => {
                kprintln!("selftest: reading unmapped kernel address {UNMAPPED_KERNEL_ADDRESS:#x}");
                // Safety: not safe at all, on purpose: the read faults in
                // kernel mode, which must end in a report and a verdict.
                let v = unsafe { core::ptr::read_volatile(UNMAPPED_KERNEL_ADDRESS as *const u64) };
                kprintln!("selftest: read {v:#x}: the kernel fault was not caught");
            }
            "selftest=panic" => panic!("selftest: deliberate kernel panic"),
            other => kprintln!("ignoring unknown kernel argument `{other}`"),
        }
    }
}
