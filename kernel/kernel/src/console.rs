//! Kernel console output: `kprintln!` for the kernel, and line-prefixed
//! output for tasks, so every line on the console says who printed it.
//!
//! The console is shared by the kernel and every task, and the test runner
//! judges a test by which writer printed which line. So the console keeps
//! one global line state: who wrote the current unfinished line, if anyone.
//! A writer that does not own that line first ends it with a newline, and
//! every line starts with its writer's prefix (`name: ` for a task,
//! `conflux: ` for the kernel). No writer can therefore continue another
//! writer's line, or start a line that looks like another writer's.

use core::fmt::{self, Write};
use spin::Mutex;

/// Whoever may continue the console's current line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Writer {
    Kernel,
    /// A task, known by its name's address and length: each task's name
    /// lives in its own record of the boot image for the whole run (a
    /// restarted task keeps it), so equal addresses mean the same task.
    Task(usize, usize),
}

impl Writer {
    fn task(name: &str) -> Self {
        Self::Task(name.as_ptr() as usize, name.len())
    }
}

/// The console's line state.
struct Line {
    /// The writer of the unfinished line, or `None` at the start of a line.
    open: Option<Writer>,
}

/// Taken before the serial port's own lock, and only here.
static LINE: Mutex<Line> = Mutex::new(Line { open: None });

impl Line {
    /// Writes `bytes` for `who`: ends another writer's unfinished line
    /// first, and starts each of `who`'s lines with `prefix` (its pieces).
    fn write(&mut self, who: Writer, prefix: &[&[u8]], bytes: &[u8]) {
        let out = crate::arch::serial::write_bytes;
        if self.open.is_some_and(|w| w != who) {
            out(b"\n");
            self.open = None;
        }
        for piece in bytes.split_inclusive(|&b| b == b'\n') {
            if self.open.is_none() {
                prefix.iter().for_each(|p| out(p));
            }
            out(piece);
            self.open = if piece.ends_with(b"\n") {
                None
            } else {
                Some(who)
            };
        }
    }
}

/// The kernel's line prefix.
const KERNEL_PREFIX: &[&[u8]] = &[b"conflux: "];

/// Formats kernel text into the console, piece by piece.
struct Kernel<'a>(&'a mut Line);

impl Write for Kernel<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write(Writer::Kernel, KERNEL_PREFIX, s.as_bytes());
        Ok(())
    }
}

#[doc(hidden)]
pub fn print(args: fmt::Arguments<'_>) {
    let _ = Kernel(&mut LINE.lock()).write_fmt(args);
}

/// Prints a line on the kernel console, prefixed with `conflux: ` and on a
/// line of its own even if a task left its line unfinished.
#[macro_export]
macro_rules! kprintln {
    ($($arg:tt)*) => {
        $crate::console::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes a task's bytes, starting every line with `name: `.
///
/// The line state is the console's, not the task's, so `at_line_start` is
/// not needed any more; it stays in the signature for the callers, and is
/// kept true exactly when this task has no unfinished line on the console.
pub fn task_write(name: &str, at_line_start: &mut bool, bytes: &[u8]) {
    let who = Writer::task(name);
    let mut line = LINE.lock();
    line.write(who, &[name.as_bytes(), b": "], bytes);
    *at_line_start = line.open != Some(who);
}

/// Prints even if the console lock is held: for fault and panic reports,
/// which must get out even when the kernel broke while printing. Their
/// text carries its own `conflux: ` prefixes (it is printed as is); it
/// starts on a line of its own.
pub fn print_forced(args: fmt::Arguments<'_>) {
    let out = crate::arch::serial::write_bytes_forced;
    // A held lock means someone broke mid-write: assume a line is open.
    // The machine stops after the report, so the state is not updated.
    let open = LINE.try_lock().is_none_or(|line| line.open.is_some());
    if open {
        out(b"\n");
    }
    let _ = Raw(out).write_fmt(args);
}

/// Text written to the console as it is.
struct Raw(fn(&[u8]));

impl Write for Raw {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0(s.as_bytes());
        Ok(())
    }
}
