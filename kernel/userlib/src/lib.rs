//! The runtime every Conflux task links.
//!
//! It owns the few places where a task must be unsafe — the `syscall`
//! instruction, the heap over the region the kernel mapped, the entry point
//! — and offers safe functions in their place, so tasks themselves can
//! `#![forbid(unsafe_code)]`. A task is written as:
//!
//! ```ignore
//! #![no_std]
//! #![no_main]
//! #![forbid(unsafe_code)]
//! conflux_userlib::entry!(main);
//! fn main() {
//!     conflux_userlib::println!("hello from {}", config::TASK_NAME);
//! }
//! ```
//!
//! `entry!` also brings the task's generated constants into scope as
//! `config` (see `conflux-manifest`'s codegen); what differs between the
//! tasks one crate runs as is read at start from the task's configuration
//! section instead (`task`).
#![no_std]

extern crate alloc;

pub mod bench;
pub mod console;
pub mod cpu_state;
mod heap;
pub mod hostile;
pub mod io;
pub mod ipc;
pub mod region;
pub mod rt;
pub mod sys;
pub mod task;
pub mod testing;
pub mod window;

pub use conflux_abi::SysError;

/// Declares the task's entry point and its generated `config` module.
///
/// The task crate's `build.rs` must call
/// `conflux_manifest::build_script_main()`, which writes the constants.
#[macro_export]
macro_rules! entry {
    ($main:path) => {
        /// Constants generated from the system manifest for this task.
        pub mod config {
            include!(concat!(
                env!(
                    "OUT_DIR",
                    "this task crate has no build script, so it has no generated constants: add a build.rs holding `fn main() { conflux_manifest::build_script_main() }` and `[build-dependencies] conflux-manifest = { path = \"PATH/TO/qemu/manifest\" }` to its Cargo.toml (see apps/hello, or make a new task with `cargo make new-app NAME`)"
                ),
                "/task_consts.rs"
            ));
        }

        #[no_mangle]
        extern "C" fn _start() -> ! {
            $crate::rt::start($main)
        }
    };
}
