//! The local APIC: the periodic timer that drives preemption, and the
//! inter-processor interrupts that start the other CPUs.
//!
//! The timer fires [`TIMER_VECTOR`] every [`TICK_NS`] so that a task that
//! never yields still loses the CPU to its peers. QEMU (TCG and KVM) clocks
//! the APIC timer from a 1 GHz bus, so the initial count is computed from
//! that; on other hardware it would need calibrating against a known clock.

use super::paging::phys_to_virt;
use x86_64::registers::model_specific::Msr;

/// Vector of the timer interrupt.
pub const TIMER_VECTOR: u8 = 32;
/// Vector of the IPI that tells a CPU one of its tasks became ready.
pub const WAKE_VECTOR: u8 = 56;
/// Vector of the IPI that asks a CPU to drop translations of an address
/// space (or leave it) before the kernel frees or reuses what they named.
pub const SHOOTDOWN_VECTOR: u8 = 57;
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

const REG_ID: usize = 0x20;
const REG_TPR: usize = 0x80;
const REG_EOI: usize = 0xb0;
const REG_SVR: usize = 0xf0;
const REG_LVT_TIMER: usize = 0x320;
const REG_LVT_LINT0: usize = 0x350;
const REG_TIMER_INIT: usize = 0x380;
const REG_TIMER_DIV: usize = 0x3e0;
const REG_TIMER_CURRENT: usize = 0x390;
const REG_ICR_LOW: usize = 0x300;
const REG_ICR_HIGH: usize = 0x310;
const LVT_MASKED: u32 = 1 << 16;
/// ICR: delivery modes INIT and start-up, level "assert", and the
/// delivery-status bit (set while the IPI is still being sent).
const ICR_INIT: u32 = 0b101 << 8;
const ICR_STARTUP: u32 = 0b110 << 8;
const ICR_ASSERT: u32 = 1 << 14;
const ICR_PENDING: u32 = 1 << 12;

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

fn read(reg: usize) -> u32 {
    let addr = phys_to_virt(base()) as usize + reg;
    // Safety: as in `write`; reading these registers has no side effect.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// This CPU's local APIC id (xAPIC: the top byte of the ID register).
pub fn id() -> u32 {
    read(REG_ID) >> 24
}

/// Accepts interrupts: task priority 0 and the APIC software-enabled.
/// LINT0 is masked: the firmware leaves it in virtual-wire mode (ExtINT),
/// through which the legacy PICs deliver vectors of their own choosing;
/// every device here comes through the I/O APIC.
pub fn enable() {
    write(REG_TPR, 0);
    write(REG_LVT_LINT0, LVT_MASKED);
    write(REG_SVR, SOFTWARE_ENABLE | SPURIOUS_VECTOR as u32);
}

/// Waits about `us` microseconds on this CPU's timer in one-shot mode with
/// its interrupt masked (used before the periodic tick starts).
pub fn delay_us(us: u64) {
    write(REG_TIMER_DIV, DIVIDE_BY_16);
    write(REG_LVT_TIMER, LVT_MASKED | TIMER_VECTOR as u32);
    let count = (BUS_HZ / 16 / 1_000_000 * us).min(u32::MAX as u64);
    write(REG_TIMER_INIT, count as u32);
    while read(REG_TIMER_CURRENT) != 0 {
        core::hint::spin_loop();
    }
}

fn send_ipi(apic_id: u32, low: u32) {
    write(REG_ICR_HIGH, apic_id << 24);
    write(REG_ICR_LOW, low);
    while read(REG_ICR_LOW) & ICR_PENDING != 0 {
        core::hint::spin_loop();
    }
}

/// Interrupts this CPU with `vector` (fixed delivery to itself), once it
/// accepts interrupts.
pub fn send_self(vector: u8) {
    send_ipi(id(), ICR_ASSERT | vector as u32);
}

/// Interrupts the CPU `apic_id` with `vector` (fixed delivery).
pub fn send_fixed(apic_id: u32, vector: u8) {
    send_ipi(apic_id, ICR_ASSERT | vector as u32);
}

/// Sends INIT to the CPU `apic_id`: it resets and waits for a start-up IPI.
pub fn send_init(apic_id: u32) {
    send_ipi(apic_id, ICR_INIT | ICR_ASSERT);
}

/// Sends a start-up IPI: the CPU begins in real mode at `page * 4096`.
pub fn send_startup(apic_id: u32, page: u8) {
    send_ipi(apic_id, ICR_STARTUP | ICR_ASSERT | page as u32);
}

/// Enables the APIC and starts this CPU's periodic scheduling tick.
pub fn init() {
    enable();
    write(REG_TIMER_DIV, DIVIDE_BY_16);
    write(REG_LVT_TIMER, PERIODIC | TIMER_VECTOR as u32);
    let count = BUS_HZ / 16 * TICK_NS / 1_000_000_000;
    write(REG_TIMER_INIT, count as u32);
}

/// Signals the end of the interrupt being handled.
pub fn eoi() {
    write(REG_EOI, 0);
}
