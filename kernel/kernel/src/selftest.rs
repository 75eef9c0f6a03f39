//! Deliberate kernel failures, asked for on the kernel command line, so
//! the in-guest tests can prove that a kernel fault or panic produces a
//! report and a failure verdict rather than a hang, and that the kernel's
//! own pages are W^X (`arch::kmap`).
//!
//! - `selftest=kernel-fault` reads an unmapped kernel address;
//! - `selftest=panic` panics;
//! - `selftest=write-kernel-text` writes to the kernel's own code;
//! - `selftest=write-kernel-text-alias` writes to it through the direct map;
//! - `selftest=exec-data` calls code placed in kernel data;
//! - `selftest=exec-direct-map` calls the same code through the direct map;
//! - `selftest=stray-vector` sends this CPU an interrupt on a vector nothing
//!   uses ([`STRAY_VECTOR`]), taken once tasks run: it must be reported once
//!   and ignored, the interrupted task untouched.
//!
//! Each of the last three must end in a page fault (protection violation);
//! if the write or call succeeds, a line says the protection is missing.
//! Any other argument but `boot-trace` (see `boottrace`) and `idle=halt`
//! (see `idle`) is reported and ignored.

use crate::arch::kmap::KERNEL_VMA;
use crate::arch::paging::phys_to_virt;
use crate::kprintln;

/// A kernel-half address the kernel never maps (between the direct map and
/// the kernel image).
const UNMAPPED_KERNEL_ADDRESS: u64 = 0xffff_c000_0000_0000;

/// A vector no device, timer or IPI uses: the one that stopped a driver
/// task with #GP in a CI run on 2026-11-29, before every vector had a
/// stub (most likely a legacy PIC's IRQ 12 through LINT0, now masked).
const STRAY_VECTOR: u8 = 0x74;

/// The self-tests that need the local APIC enabled: run after it is.
pub fn late(cmdline: &str) {
    if cmdline
        .split_whitespace()
        .any(|a| a == "selftest=stray-vector")
    {
        kprintln!("selftest: sending this CPU an interrupt on unused vector {STRAY_VECTOR}");
        crate::arch::apic::send_self(STRAY_VECTOR);
    }
}

/// One `ret` instruction, in writable kernel data: code that must never run.
static mut RET_IN_DATA: [u8; 1] = [0xc3];

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
            "selftest=write-kernel-text" => write_text("kernel text", text()),
            "selftest=write-kernel-text-alias" => write_text(
                "kernel text through the direct map",
                phys_to_virt(text() as u64 - KERNEL_VMA),
            ),
            "selftest=exec-data" => call("kernel data", ret_in_data()),
            "selftest=exec-direct-map" => {
                call(
                    "the direct map",
                    phys_to_virt(ret_in_data() as u64 - KERNEL_VMA),
                );
            }
            // Sent by `late`, once the local APIC is enabled.
            "selftest=stray-vector" => {}
            crate::boottrace::ARGUMENT | crate::idle::HALT_ONLY => {}
            other => kprintln!("ignoring unknown kernel argument `{other}`"),
        }
    }
}

/// The first byte of this module's `run`: kernel code.
fn text() -> *mut u8 {
    run as *const () as *mut u8
}

/// Writes to kernel code at `code`, which must fault: it is read-only.
fn write_text(place: &str, code: *mut u8) {
    kprintln!("selftest: writing to {place} at {:#x}", code as u64);
    // Safety: not safe at all, on purpose: kernel text is read-only in
    // both of its mappings, so the write must fault in kernel mode (report
    // and verdict).
    unsafe { core::ptr::write_volatile(code, 0xcc) };
    kprintln!("selftest: {place} was written: kernel text is not read-only");
}

fn ret_in_data() -> *mut u8 {
    core::ptr::addr_of_mut!(RET_IN_DATA).cast()
}

/// Calls the `ret` at `code`, which must fault because its page is NX.
fn call(place: &str, code: *mut u8) {
    kprintln!("selftest: executing code in {place} at {:#x}", code as u64);
    // Safety: not safe at all, on purpose: the page is not executable, so
    // the call must fault in kernel mode. Were it executable, the code is
    // a lone `ret`, so the call would return and the line below says so.
    unsafe {
        let f: extern "C" fn() = core::mem::transmute(code);
        f();
    }
    kprintln!("selftest: code in {place} ran: its pages are executable");
}
