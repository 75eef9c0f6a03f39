//! The contract between the Conflux kernel and everything that runs on it.
//!
//! Syscall numbers, the error codes a syscall can return, the layout of a
//! task's address space and the codes the kernel hands to QEMU's
//! `isa-debug-exit` device live here, in one place, so that the kernel, the
//! user runtime and the host runner can never disagree about them.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

pub mod bench;
pub mod calendar;
pub mod cap;
pub mod devices;
pub mod durable;
pub mod error;
pub mod exit;
pub mod ipc;
pub mod layout;
pub mod pci;
pub mod syscall;
pub mod task_info;
pub mod time;

pub use error::SysError;
pub use syscall::Sysno;
