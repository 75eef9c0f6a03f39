//! What a stage needs from the system: capabilities moved into place,
//! regions mapped and unmapped, doorbells rung. [`System`] does it with
//! system calls; the host tests do it with memory.

use crate::mem::Mapping;
#[cfg(feature = "system")]
use conflux_userlib::{
    ipc::{Notification, Slot},
    window::Window,
};

/// The system calls a stage makes, as a trait so the bookkeeping above
/// them runs on the host.
pub trait Os {
    /// Moves the capability that arrived in `from` to slot `to` (emptying
    /// whatever `to` held), and maps it writable at `vaddr`. `None` if it
    /// is not a writable region (the capability is deleted then).
    fn take_region(&mut self, from: usize, to: usize, vaddr: u64) -> Option<Mapping>;
    /// Moves the capability in `from` to slot `to`; `false` if there was
    /// none.
    fn take_cap(&mut self, from: usize, to: usize) -> bool;
    /// Unmaps `mapping` (if any) and deletes the capability in `slot`.
    fn release(&mut self, slot: usize, mapping: Option<Mapping>);
    /// Rings the doorbell (notification) in `slot`.
    fn ring(&mut self, slot: usize);
    /// The stage's clock, stamped on the edges' counters (the TSC).
    fn now(&mut self) -> u64;
}

/// The real system.
#[cfg(feature = "system")]
pub struct System;

#[cfg(feature = "system")]
impl System {
    /// A received message's words, registers first and then the IPC
    /// buffer, as many as it carried (at most `N`; the rest are ignored,
    /// and a stage message is never that long).
    pub fn words<const N: usize>(msg: &conflux_userlib::ipc::Message) -> ([u64; N], usize) {
        let mut words = [0; N];
        let len = msg.len.min(N);
        for (i, w) in words.iter_mut().enumerate().take(len) {
            *w = match msg.words.get(i) {
                Some(&r) => r,
                None => conflux_userlib::ipc::long_word(i),
            };
        }
        (words, len)
    }
}

#[cfg(feature = "system")]
impl Os for System {
    fn take_region(&mut self, from: usize, to: usize, vaddr: u64) -> Option<Mapping> {
        if !self.take_cap(from, to) {
            return None;
        }
        match Window::map(to, vaddr, true) {
            Ok(mut w) => {
                let bytes = w.bytes();
                Some(Mapping::new(bytes.as_mut_ptr(), bytes.len(), to))
            }
            Err(_) => {
                let _ = Slot(to).delete();
                None
            }
        }
    }

    fn take_cap(&mut self, from: usize, to: usize) -> bool {
        let _ = Slot(to).delete();
        let copied = Slot(from).copy(to).is_ok();
        let _ = Slot(from).delete();
        copied
    }

    fn release(&mut self, slot: usize, mapping: Option<Mapping>) {
        if mapping.is_some() {
            // `Window::unmap` by slot: the mapping is this slot's.
            let _ =
                conflux_userlib::sys::call(conflux_abi::Sysno::RegionUnmap, slot as u64, 0, 0, 0);
        }
        let _ = Slot(slot).delete();
    }

    fn ring(&mut self, slot: usize) {
        let _ = Notification(slot).signal();
    }

    fn now(&mut self) -> u64 {
        conflux_userlib::sys::rdtsc()
    }
}
