//! PCI bystander: a task in a system with devices that drives none of
//! them. It must hold no capability to device registers, interrupts or
//! DMA memory: every slot is empty or something else.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::cap::{ObjectKind, CAP_SLOTS};
use conflux_userlib::ipc::Slot;
use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    let device_kinds = [ObjectKind::Mmio, ObjectKind::Irq, ObjectKind::Region].map(|k| k as u8);
    let mut held = 0;
    let mut device = 0;
    for slot in 1..CAP_SLOTS {
        if let Ok((kind, _, _)) = Slot(slot).info() {
            held += 1;
            if device_kinds.contains(&kind) {
                println!("CHECK FAILED: slot {slot} holds a capability of kind {kind}");
                device += 1;
            }
        }
    }
    if device == 0 {
        println!("ok: no device capability in any of {held} held slots");
    }
}
