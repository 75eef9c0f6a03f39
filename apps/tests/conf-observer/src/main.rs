//! Observer: runs right after the leaker yielded, with no capability
//! shared with it, and must find every piece of CPU state in its initial
//! state: x87 empty with control word 0x37f, MMX registers zero, MXCSR
//! 0x1f80, xmm0..xmm15 zero, FS and GS selectors 0. Then it yields back so
//! the leaker can check its own state survived.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::cpu_state::{self, Sse, X87};
use conflux_userlib::sys::yield_now;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

fn main() {
    let mut c = Checks::new();
    // Read everything before printing anything (printing enters the kernel).
    let segments = cpu_state::read_segments();
    let x87 = cpu_state::read_x87();
    c.eq("FS and GS selectors are 0", segments, (0, 0));
    c.eq("x87 control word is the default", x87.fcw, 0x37f);
    c.eq("x87 registers are all empty (tag word)", x87.ftw, 0xffff);
    c.eq("MMX registers are zero", x87.mm, X87::default().mm);
    let sse = cpu_state::read_sse();
    c.eq("MXCSR is the default", sse.mxcsr, 0x1f80);
    c.eq("xmm0..xmm15 are zero", sse.xmm, Sse::default().xmm);
    yield_now();
    c.finish();
}
