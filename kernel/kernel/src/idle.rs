//! What an idle CPU does: poll for an interrupt for an adaptive window
//! (`conflux_kcore::haltpoll`), then halt.
//!
//! The window is kept per CPU in TSC cycles, so the kernel learns the
//! TSC's rate once at boot against the local APIC timer (whose 1 GHz bus
//! QEMU fixes). `idle=halt` on the kernel command line turns polling off:
//! the runner passes it under icount, where the guest's clock follows its
//! instructions, so a poll would spend guest time for as long as the host
//! takes to finish a device's work and the counts would depend on the
//! host; a halt there lets the clock jump instead.

use crate::arch::cpu::PerCpu;
use crate::kprintln;
use conflux_kcore::haltpoll::HaltPoll;
use core::sync::atomic::{AtomicU64, Ordering};

/// The kernel argument that turns polling off.
pub const HALT_ONLY: &str = "idle=halt";

/// TSC cycles per microsecond, or 0 while polling is off.
static TSC_PER_US: AtomicU64 = AtomicU64::new(0);

/// The TSC now.
pub fn now() -> u64 {
    // Safety: `rdtsc` only reads the time-stamp counter.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// Measures the TSC's rate, unless `cmdline` turns polling off, and says
/// what idle CPUs will do. Runs on the boot CPU before the APs start (they
/// take the rate from here) and before the periodic tick takes the timer.
pub fn init(cmdline: &str) {
    if cmdline.split_whitespace().any(|a| a == HALT_ONLY) {
        kprintln!("idle: CPUs halt as soon as they have nothing to run ({HALT_ONLY})");
        return;
    }
    const SPAN_US: u64 = 1_000;
    let start = now();
    crate::arch::apic::delay_us(SPAN_US);
    let rate = now().saturating_sub(start) / SPAN_US;
    TSC_PER_US.store(rate, Ordering::Relaxed);
    kprintln!(
        "idle: with more than one CPU, CPUs poll up to {} µs for an interrupt before halting (TSC {rate} cycles/µs; `{HALT_ONLY}` turns this off)",
        HaltPoll::MAX_US
    );
}

/// A fresh policy for one CPU of `online`: off when `init` measured no
/// rate, and off on a system of one CPU. Polling pays where a wake-up
/// comes from another CPU (a call or a doorbell across CPUs, by IPI); on
/// one CPU only devices wake it, and the one-CPU flow gained nothing from
/// it (PERFORMANCE.md, flow runs 33–34). The boot CPU asks once the APs
/// are up, so the number is final (CPUs never go offline).
pub fn policy(online: usize) -> HaltPoll {
    match TSC_PER_US.load(Ordering::Relaxed) {
        0 => HaltPoll::OFF,
        _ if online < 2 => HaltPoll::OFF,
        rate => HaltPoll::new(rate),
    }
}

/// This CPU goes idle after running a task: the TSC until which its idle
/// loop polls (0: halt at once), and the start of the spell recorded. A
/// CPU whose policy is off does neither (no TSC read on its idle path).
pub fn entering(pc: &mut PerCpu) -> u64 {
    if pc.halt_poll.is_off() {
        return 0;
    }
    let t = now();
    pc.idle_since = t;
    match pc.halt_poll.window() {
        0 => 0,
        w => t.saturating_add(w),
    }
}

/// This CPU leaves an idle spell for a task: the window adapts to how long
/// the spell lasted.
pub fn woke(pc: &mut PerCpu) {
    if pc.halt_poll.is_off() {
        return;
    }
    let spell = now().saturating_sub(pc.idle_since);
    pc.halt_poll.woke_after(spell);
}

/// The idle loop, entered through an interrupt frame with interrupts on:
/// polls until the TSC passes `poll_until`, then halts until an interrupt
/// for good. An interrupt during either takes the CPU into the kernel, which
/// builds a fresh frame the next time it idles.
pub extern "sysv64" fn run(poll_until: u64) -> ! {
    // No `pause` in this loop: under TCG each `pause` leaves the
    // translated code for QEMU's CPU loop, which takes QEMU's global lock
    // that the emulator's main loop needs to run the devices, so a
    // polling CPU would slow the very device work it waits for.
    while now() < poll_until {}
    loop {
        x86_64::instructions::hlt();
    }
}
