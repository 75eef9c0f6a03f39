//! The local APIC: the periodic timer that drives preemption.
//!
//! The timer fires [`TIMER_VECTOR`] every [`TICK_NS`] so that a task that
//! never yields still loses the CPU to its peers. QEMU (TCG and KVM) clocks
//! the APIC timer from a 1 GHz bus, so the initial count is computed from
//! that; on other hardware it would need calibrating against a known clock.

use super::paging::phys_to_virt;
use x86_64::registers::model_specific::Msr;

/// Vector of the timer interrupt.
pub const TIMER_VECTOR: u8 = 32;
/// Vector for spurious interrupts; its low four bits are set, as older
/// APICs require.
pub const SPURIOUS_VECTOR: u8 = 47;
/// Scheduling tick (shared with tasks, which set timers in ticks).
pub use conflux_abi::time::TICK_NS;

const IA32_APIC_BASE: u32 = 0x1b;
const BUS_HZ: u64 = 1_000_000_000;
const DIVIDE_BY_16: u32 = 0b0011;
const PERIODIC: u32 = 1 << 17;
const SOFTWARE_ENABLE: u32 = 1 << 8;

const REG_TPR: usize = 0x80;
const REG_EOI: usize = 0xb0;
const REG_SVR: usize = 0xf0;
const REG_LVT_TIMER: usize = 0x320;
const REG_TIMER_INIT: usize = 0x380;
const REG_TIMER_DIV: usize = 0x3e0;

fn base() -> u64 {
    // Safety: IA32_APIC_BASE exists on every x86-64 CPU.
    let raw = unsafe { Msr::new(IA32_APIC_BASE).read() };
    raw & 0xf_ffff_f000
}

fn write(reg: usize, value: u32) {
    let addr = phys_to_virt(base()) as usize + reg;
    // Safety: `addr` is a register of this CPU's local APIC, reached through
    // the direct map (the APIC page lies below 4 GiB).
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) };
}

/// Enables the APIC and starts the periodic scheduling tick.
pub fn init() {
    write(REG_TPR, 0);
    write(REG_SVR, SOFTWARE_ENABLE | SPURIOUS_VECTOR as u32);
    write(REG_TIMER_DIV, DIVIDE_BY_16);
    write(REG_LVT_TIMER, PERIODIC | TIMER_VECTOR as u32);
    let count = BUS_HZ / 16 * TICK_NS / 1_000_000_000;
    write(REG_TIMER_INIT, count as u32);
}

/// Signals the end of the interrupt being handled.
pub fn eoi() {
    write(REG_EOI, 0);
}
