//! files-and-echo: an app of the system's servers, made by `cargo make new-app
//! files-and-echo --uses fs,net`. Each part does the same work twice: with
//! plain calls (one IPC per operation, the VAN path) and as one compound
//! written in ordinary Rust with `cosy!` (one IPC for a whole loop of
//! operations), and says whether the two agree. Change the parts, or add
//! your own beside them; `cargo make run files-and-echo` builds and boots it.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod echo;
mod files;

use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    let mut failed = 0;
    if let Err(e) = files::run() {
        println!("files: {e}");
        failed += 1;
    }
    if let Err(e) = echo::run() {
        println!("echo: {e}");
        failed += 1;
    }
    match failed {
        0 => println!("done: every part agreed"),
        n => println!("done: {n} part(s) failed (above)"),
    }
}
