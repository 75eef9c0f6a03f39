//! Kernel logic that needs no hardware, so it runs (and is tested) on the host.
//!
//! Capability tables with their derivation tree, IPC rendezvous,
//! notifications (bound to receivers or signalled by task timers), calls
//! with a deadline,
//! regions and ports as capabilities, the scheduler's
//! choice, and the life cycle of tasks (start, end, supervision, restart)
//! live here, generic over a [`machine::Machine`] that supplies what needs
//! the hardware: saved registers, address spaces, ports, interrupt lines.
//! The kernel binary keeps only that glue; frame allocation and ELF load
//! planning, also hardware-free, live here too.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

pub mod acpi;
pub mod bound;
pub mod cap;
pub mod capops;
pub mod console;
pub mod console_budget;
pub mod cspace;
pub mod deadline;
pub mod elf;
pub mod fastpath;
pub mod frames;
pub mod haltpoll;
pub mod ipc;
pub mod kernel;
pub mod machine;
pub mod memops;
pub mod notify;
pub mod object;
pub mod placement;
pub mod rtc;
pub mod sched;
pub mod stop;
pub mod summary;
pub mod syscall;
pub mod task;
pub mod timer;

#[cfg(test)]
mod tests;

pub use kernel::{Cpu, Decision, Kernel, Next};
pub use machine::{Machine, MapFailure, UserRegs};
