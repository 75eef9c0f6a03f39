//! Splicer: leaves its console line unfinished while another task prints,
//! and ends with an unfinished line, so the kernel's exit report follows it.
//! The console must end the splicer's line before another writer's, and
//! start every line with its writer's prefix; the test's expectations
//! accept only lines that start so.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::{print, println, sys};

conflux_userlib::entry!(main);

fn main() {
    print!("unfinished");
    // The witness runs now and prints a line of its own.
    sys::yield_now();
    println!("continued");
    // Looks like a kernel line, but is the splicer's: no expectation may
    // take it for the kernel's.
    println!("conflux: all tasks ended: 2 exited");
    print!("exiting mid-line");
}
