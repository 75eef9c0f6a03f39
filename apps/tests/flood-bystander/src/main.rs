//! Flood bystander: once the flooder's writes are being dropped, prints
//! numbered lines between yields and checks that the kernel took each one
//! whole: one task's flood costs another task none of its console budget.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::Notification;
use conflux_userlib::sys;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const STEPS: u32 = 20;

fn main() {
    let mut c = Checks::new();
    c.that(
        "the flooder says it is being cut",
        Notification(config::caps::FLOODING).wait().is_ok(),
        "",
    );
    let mut taken = 0;
    for i in 1..=STEPS {
        let line = step_line(i);
        if sys::debug_write(line.as_bytes()) == Ok(line.len) {
            taken += 1;
        }
        sys::yield_now();
    }
    c.eq("every line taken whole during the flood", taken, STEPS);
    c.finish();
}

/// `step i of STEPS` and a newline, without the heap.
fn step_line(i: u32) -> Line {
    use core::fmt::Write;
    let mut l = Line::default();
    let _ = writeln!(l, "step {i} of {STEPS}");
    l
}

/// A fixed line buffer.
#[derive(Default)]
struct Line {
    buf: [u8; 32],
    len: usize,
}

impl Line {
    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl core::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(core::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
