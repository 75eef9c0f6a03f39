//! Kernel logic that needs no hardware, so it runs (and is tested) on the host.
//!
//! The kernel binary wires these pieces to page tables and physical memory;
//! here they only compute: which frames are free, and where a task's ELF
//! segments go and with what permissions.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

pub mod elf;
pub mod frames;
