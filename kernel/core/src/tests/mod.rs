//! Host tests of the kernel logic, on a recording mock machine.
//!
//! [`sim::Sim`] boots a real boot image (made with the bootimg encoder)
//! into a `Kernel<Mock>` and drives it syscall by syscall, the way the trap
//! entry does on the real machine.

mod acpi;
mod bound;
mod console;
mod console_flood;
mod cspace_props;
mod deadline;
mod exit;
mod fastpath_equiv;
mod hostile_props;
mod ipc;
mod lease;
mod mock;
mod panic;
mod placement;
mod priority;
mod revoke;
mod rtc;
mod sched_props;
mod sim;
mod stop;
mod timer;
