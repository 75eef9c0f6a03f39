//! `print!`/`println!` for tasks, over the kernel's debug console.
//!
//! Output is gathered into a line buffer and sent one line (or one full
//! buffer) per syscall, so lines from different tasks do not interleave
//! mid-line and a line costs one kernel entry, not one per `write!` piece.

use core::fmt::{self, Write};

const LINE: usize = 256;

struct LineWriter {
    buf: [u8; LINE],
    len: usize,
}

impl LineWriter {
    fn flush(&mut self) {
        if self.len > 0 {
            let _ = crate::sys::debug_write(&self.buf[..self.len]);
            self.len = 0;
        }
    }
}

impl Write for LineWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            if self.len == LINE {
                self.flush();
            }
            self.buf[self.len] = b;
            self.len += 1;
            if b == b'\n' {
                self.flush();
            }
        }
        Ok(())
    }
}

#[doc(hidden)]
pub fn print(args: fmt::Arguments<'_>) {
    let mut w = LineWriter {
        buf: [0; LINE],
        len: 0,
    };
    let _ = w.write_fmt(args);
    w.flush();
}

/// Prints to the console.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::io::print(format_args!($($arg)*)) };
}

/// Prints a line to the console.
#[macro_export]
macro_rules! println {
    () => { $crate::io::print(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::io::print(format_args!("{}\n", format_args!($($arg)*))) };
}
