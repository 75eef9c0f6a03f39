//! Reports for CPU exceptions, written for the person reading the console.
//!
//! A fault in a task stops only that task; a fault in the kernel prints the
//! same report (the runner adds the source line for the instruction
//! pointer) and stops the machine with a failure verdict, never a hang.

use crate::arch::trap::TrapFrame;
use core::fmt;

/// Mnemonic and name of an exception vector.
pub fn vector_name(v: u64) -> (&'static str, &'static str) {
    match v {
        0 => ("#DE", "divide error"),
        1 => ("#DB", "debug"),
        2 => ("NMI", "non-maskable interrupt"),
        3 => ("#BP", "breakpoint"),
        4 => ("#OF", "overflow"),
        5 => ("#BR", "bound range exceeded"),
        6 => ("#UD", "invalid opcode"),
        7 => ("#NM", "device not available"),
        8 => ("#DF", "double fault"),
        10 => ("#TS", "invalid TSS"),
        11 => ("#NP", "segment not present"),
        12 => ("#SS", "stack-segment fault"),
        13 => ("#GP", "general protection fault"),
        14 => ("#PF", "page fault"),
        16 => ("#MF", "x87 floating-point error"),
        17 => ("#AC", "alignment check"),
        18 => ("#MC", "machine check"),
        19 => ("#XM", "SIMD floating-point error"),
        20 => ("#VE", "virtualization exception"),
        21 => ("#CP", "control protection"),
        _ => ("#??", "reserved exception"),
    }
}

/// Human reading of a page-fault error code.
struct PfError(u64);

impl fmt::Display for PfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        let who = if e & 4 != 0 { "user" } else { "kernel" };
        let what = if e & 16 != 0 {
            "instruction fetch"
        } else if e & 2 != 0 {
            "write"
        } else {
            "read"
        };
        let why = if e & 8 != 0 {
            "reserved bit set in a page-table entry"
        } else if e & 1 != 0 {
            "page present but access not allowed"
        } else {
            "page not mapped"
        };
        write!(f, "{who} {what}, {why}")
    }
}

/// The one-line description of an exception in `frame`.
pub struct Report<'a> {
    pub frame: &'a TrapFrame,
    pub cr2: u64,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fr = self.frame;
        let (mnemonic, name) = vector_name(fr.vector);
        write!(
            f,
            "{name} ({mnemonic}, vector {}), error code {:#x}",
            fr.vector, fr.error
        )?;
        if fr.vector == 14 {
            write!(f, " [{}], address {:#x}", PfError(fr.error), self.cr2)?;
        }
        write!(f, ", rip={:#x} rsp={:#x}", fr.rip, fr.rsp)
    }
}
