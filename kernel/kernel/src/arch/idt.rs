//! The interrupt descriptor table.
//!
//! Written by hand rather than with `x86_64`'s typed IDT: that type is
//! built around handlers with the `x86-interrupt` ABI (nightly only),
//! while every vector here enters through one assembly stub
//! ([`super::trap`]). Gates are interrupt gates (interrupts off on entry),
//! DPL 0 so that a task's `int n` raises #GP instead of faking a trap.

use super::gdt::{DOUBLE_FAULT_IST, KERNEL_CS, MACHINE_CHECK_IST, NMI_IST};
use super::trap::{stub_address, STUB_COUNT};
use spin::Once;

#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Gate {
    offset_low: u16,
    selector: u16,
    ist: u8,
    type_attr: u8,
    offset_mid: u16,
    offset_high: u32,
    reserved: u32,
}

/// Present, DPL 0, 64-bit interrupt gate.
const INTERRUPT_GATE: u8 = 0x8e;
const NMI: usize = 2;
const DOUBLE_FAULT: usize = 8;
const MACHINE_CHECK: usize = 18;

#[repr(C, align(16))]
struct Idt([Gate; 256]);

static IDT: Once<Idt> = Once::new();

fn gate(handler: u64, ist: u8) -> Gate {
    Gate {
        offset_low: handler as u16,
        selector: KERNEL_CS,
        ist,
        type_attr: INTERRUPT_GATE,
        offset_mid: (handler >> 16) as u16,
        offset_high: (handler >> 32) as u32,
        reserved: 0,
    }
}

/// Builds (once) and loads the IDT on this CPU.
pub fn init() {
    let idt = IDT.call_once(|| {
        let mut gates = [Gate::default(); 256];
        for (v, g) in gates.iter_mut().enumerate().take(STUB_COUNT) {
            let ist = match v {
                NMI => NMI_IST as u8,
                DOUBLE_FAULT => DOUBLE_FAULT_IST as u8,
                MACHINE_CHECK => MACHINE_CHECK_IST as u8,
                _ => 0,
            };
            *g = gate(stub_address(v), ist);
        }
        Idt(gates)
    });
    let ptr = x86_64::structures::DescriptorTablePointer {
        limit: (core::mem::size_of::<Idt>() - 1) as u16,
        base: x86_64::VirtAddr::from_ptr(idt),
    };
    // Safety: `idt` is 'static and holds valid gates for every vector that
    // can fire (the stubs); absent gates are not-present and raise #GP→report.
    unsafe { x86_64::instructions::tables::lidt(&ptr) };
}
