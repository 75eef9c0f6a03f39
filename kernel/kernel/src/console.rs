//! Kernel console output: `kprintln!` for the kernel, and line-prefixed
//! output for tasks so every line on the console says who printed it.

use core::fmt::{self, Write};

struct Console;

impl Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        crate::arch::serial::write_bytes(s.as_bytes());
        Ok(())
    }
}

#[doc(hidden)]
pub fn print(args: fmt::Arguments<'_>) {
    let _ = Console.write_fmt(args);
}

/// Prints a line on the kernel console, prefixed with `conflux: `.
#[macro_export]
macro_rules! kprintln {
    ($($arg:tt)*) => {
        $crate::console::print(format_args!("conflux: {}\n", format_args!($($arg)*)))
    };
}

/// Writes a task's bytes, starting every line with `name: `.
/// `at_line_start` carries the line state between calls of one task.
pub fn task_write(name: &str, at_line_start: &mut bool, bytes: &[u8]) {
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if *at_line_start {
            crate::arch::serial::write_bytes(name.as_bytes());
            crate::arch::serial::write_bytes(b": ");
        }
        crate::arch::serial::write_bytes(line);
        *at_line_start = line.ends_with(b"\n");
    }
}

struct ForcedConsole;

impl Write for ForcedConsole {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        crate::arch::serial::write_bytes_forced(s.as_bytes());
        Ok(())
    }
}

/// Prints even if the console lock is held: for fault and panic reports.
pub fn print_forced(args: fmt::Arguments<'_>) {
    let _ = ForcedConsole.write_fmt(args);
}
