//! word-count: an app of the system's servers, made by `cargo make new-app
//! word-count --uses fs`. Each part does the same work twice: with
//! plain calls (one IPC per operation, the VAN path) and as one compound
//! written in ordinary Rust with `cosy!` (one IPC for a whole loop of
//! operations), and says whether the two agree. Change the parts, or add
//! your own beside them; `cargo make run word-count` builds and boots it.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod files;

use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    let mut failed = 0;
    if let Err(e) = files::run() {
        println!("files: {e}");
        failed += 1;
    }
    match failed {
        0 => println!("done: every part agreed"),
        n => println!("done: {n} part(s) failed (above)"),
    }
}
