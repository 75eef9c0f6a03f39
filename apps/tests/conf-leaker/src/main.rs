//! Leaker: puts recognisable values in every piece of CPU state a task can
//! set without a capability (x87 control word and registers, MMX, MXCSR,
//! xmm0..xmm15, the FS and GS selectors), yields to the observer, and
//! checks when it runs again that all of it is still its own (the kernel
//! saves and restores it). The observer must not see any of it.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::cpu_state::{self, Sse, X87};
use conflux_userlib::println;
use conflux_userlib::sys::yield_now;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// The GDT's user data selector (`USER_SS` in kernel/kernel/src/arch/gdt.rs).
const USER_DATA: u16 = 0x1b;
/// Double precision instead of the default extended (0x37f).
const FCW: u16 = 0x027f;
/// Round toward zero and flush to zero, instead of the default 0x1f80.
const MXCSR: u32 = 0x7f80 | 0x8000;

fn mm() -> [u64; 6] {
    core::array::from_fn(|i| 0x1eac_0000_0000_0000 | i as u64)
}

fn xmm() -> [[u64; 2]; 16] {
    core::array::from_fn(|i| [0x1eac_5e00_0000_0000 | i as u64, !(i as u64)])
}

fn main() {
    let mut c = Checks::new();
    cpu_state::set_segments(USER_DATA);
    cpu_state::set_x87(FCW, &mm());
    let x87: X87 = cpu_state::read_x87();
    println!("x87, MMX and FS/GS set: {x87:x?}");
    cpu_state::set_sse(MXCSR, &xmm());
    let sse: Sse = cpu_state::read_sse();
    println!("SSE set: mxcsr {:#x}; yielding to the observer", sse.mxcsr);
    yield_now();
    c.eq(
        "FS and GS selectors kept",
        cpu_state::read_segments(),
        (USER_DATA, USER_DATA),
    );
    c.eq("x87 and MMX state kept", cpu_state::read_x87(), x87);
    c.eq("x87 control word is still ours", x87.fcw, FCW);
    c.eq("SSE state kept", cpu_state::read_sse(), sse);
    c.eq("MXCSR is still ours", sse.mxcsr, MXCSR);
    c.finish();
}
