//! What the kernel logic needs from the machine, as two traits.
//!
//! Everything in this crate is hardware-free: capability tables, IPC
//! rendezvous, notifications, the scheduler's choice and task life cycles.
//! Where that logic must touch the machine — a task's saved registers, its
//! page tables, I/O ports, interrupt lines, the console — it goes through
//! [`Machine`] and [`UserRegs`]. The kernel binary implements them for
//! x86-64; the host tests implement them with a recording mock. This is
//! Hubris's split between its portable kernel and its `arch` module.

use crate::task::LoadedTask;
use conflux_abi::ipc::RawMessage;
use conflux_abi::SysError;
use conflux_bootimg::TaskRecord;

/// A task's saved user registers, seen through the syscall ABI
/// (`conflux_abi::syscall`) rather than by register name.
pub trait UserRegs {
    /// The syscall number the task asked for.
    fn sysno(&self) -> u64;
    /// Syscall argument `i` (0..6).
    fn arg(&self, i: usize) -> u64;
    /// The message a `call`/`send`/`reply` carries (info and data words).
    fn outgoing(&self) -> RawMessage;
    /// Success with a value.
    fn set_ok(&mut self, value: u64);
    /// Success with two values (`cap_info`).
    fn set_ok2(&mut self, value: u64, extra: u64);
    /// Failure with an error code.
    fn set_err(&mut self, e: SysError);
    /// Success, delivering a received message.
    fn set_incoming(&mut self, msg: &RawMessage);
}

/// Why a mapping could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapFailure {
    OutOfMemory,
    AlreadyMapped,
}

impl From<MapFailure> for SysError {
    fn from(e: MapFailure) -> Self {
        match e {
            MapFailure::OutOfMemory => SysError::OutOfMemory,
            MapFailure::AlreadyMapped => SysError::AlreadyMapped,
        }
    }
}

/// The machine underneath the kernel logic.
///
/// The functions take no `self`: there is one machine, and its state (page
/// tables, frames, devices) lives outside the kernel's data structures.
pub trait Machine {
    /// A task's saved registers (and whatever else a context switch keeps).
    type Context: UserRegs;
    /// A task's address space.
    type Space;
    /// Why a task could not be loaded.
    type LoadError: core::fmt::Display;

    /// Builds a task from its boot-image record: a fresh address space with
    /// the ELF image, stack, heap and IPC buffer, all owned by the space.
    fn load(rec: &TaskRecord<'static>) -> Result<LoadedTask<Self>, Self::LoadError>
    where
        Self: Sized;
    /// Tears task `task`'s address space down, freeing exactly the frames
    /// it owns. The caller has already removed every region and device
    /// mapping. (With several CPUs the machine first makes every other CPU
    /// leave the space and forget the task's FPU state.)
    fn destroy(space: Self::Space, task: usize);
    /// Maps `[phys, phys + size)` (a region or device range the space does
    /// not own) at `vaddr`; all or nothing.
    fn map_shared(
        space: &mut Self::Space,
        vaddr: u64,
        phys: u64,
        size: u64,
        writable: bool,
        device: bool,
    ) -> Result<(), MapFailure>;
    /// Removes the mappings of `[vaddr, vaddr + size)` without freeing the
    /// frames; when it returns, no CPU can use them any more (TLB shootdown).
    fn unmap_shared(space: &mut Self::Space, vaddr: u64, size: u64);
    /// Copies IPC buffer words `from..to` between two tasks' buffer pages.
    fn copy_ipc_words(from_buf: u64, to_buf: u64, first: usize, end: usize);
    /// Prints a task's bytes from its memory, line-prefixed with its name.
    fn debug_write(
        space: &mut Self::Space,
        name: &str,
        line_state: &mut bool,
        addr: u64,
        len: u64,
    ) -> Result<(), SysError>;
    /// Reads `width` bytes from an I/O port the caller checked.
    fn port_in(port: u16, width: u8) -> u32;
    /// Writes `width` bytes to an I/O port the caller checked.
    fn port_out(port: u16, width: u8, value: u32);
    /// Takes up to `out.len()` bytes typed on the console; returns how many.
    fn console_read(out: &mut [u8; 8]) -> usize;
    /// Masks or unmasks an interrupt line.
    fn irq_mask(line: u8, masked: bool);
    /// A line on the kernel console (the kernel's own voice).
    fn log(args: core::fmt::Arguments<'_>);
}
