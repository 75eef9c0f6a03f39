//! The x86-64 machine under the portable kernel logic: implements
//! `conflux_kcore::Machine` with this kernel's contexts, page tables,
//! ports, I/O APIC and console.

use crate::arch::context::Context;
use crate::arch::paging::{AddressSpace, MapError};
use crate::arch::{ioapic, paging::phys_to_virt, port};
use crate::load::{self, LoadError};
use crate::usermem::UserSlice;
use conflux_abi::layout::PAGE_SIZE;
use conflux_abi::SysError;
use conflux_bootimg::TaskRecord;
use conflux_kcore::task::LoadedTask;
use conflux_kcore::{Machine, MapFailure};

/// This machine.
pub struct X86;

impl Machine for X86 {
    type Context = Context;
    type Space = AddressSpace;
    type LoadError = LoadError;

    fn load(rec: &TaskRecord<'static>) -> Result<LoadedTask<Self>, LoadError> {
        let (ctx, space, ipc_buf) = load::load(rec)?;
        Ok(LoadedTask {
            ctx,
            space,
            ipc_buf,
        })
    }

    fn destroy(space: AddressSpace, task: usize) {
        crate::shootdown::shootdown(space.root(), Some(task));
        crate::shootdown::assert_left(space.root());
        space.destroy();
    }

    fn map_shared(
        space: &mut AddressSpace,
        vaddr: u64,
        phys: u64,
        size: u64,
        writable: bool,
        device: bool,
    ) -> Result<(), MapFailure> {
        for off in (0..size).step_by(PAGE_SIZE as usize) {
            if let Err(e) = space.map_frame(vaddr + off, phys + off, writable, device) {
                space.unmap_range(vaddr, off);
                return Err(match e {
                    MapError::OutOfMemory => MapFailure::OutOfMemory,
                    MapError::AlreadyMapped => MapFailure::AlreadyMapped,
                });
            }
        }
        Ok(())
    }

    fn unmap_shared(space: &mut AddressSpace, vaddr: u64, size: u64) {
        space.unmap_range(vaddr, size);
        // The emptied page tables unmap_range freed are not reused before
        // this returns: every allocation happens under the kernel lock,
        // which this CPU holds.
        crate::shootdown::shootdown(space.root(), None);
    }

    fn copy_ipc_words(from_buf: u64, to_buf: u64, first: usize, end: usize) {
        if end <= first || end > conflux_abi::ipc::MAX_WORDS {
            return;
        }
        let (off, n) = (first * 8, (end - first) * 8);
        // Safety: both are IPC buffer frames owned by live tasks; `end` is at
        // most MAX_WORDS, so the copy stays inside one page.
        unsafe {
            core::ptr::copy(
                phys_to_virt(from_buf + off as u64),
                phys_to_virt(to_buf + off as u64),
                n,
            )
        };
    }

    fn debug_write(
        space: &mut AddressSpace,
        name: &str,
        line_state: &mut bool,
        addr: u64,
        len: u64,
    ) -> Result<(), SysError> {
        UserSlice::new(addr, len).read(space, |bytes| {
            crate::console::task_write(name, line_state, bytes)
        })
    }

    fn port_in(p: u16, width: u8) -> u32 {
        port::read(p, width)
    }

    fn port_out(p: u16, width: u8, value: u32) {
        port::write(p, width, value)
    }

    fn console_read(out: &mut [u8; 8]) -> usize {
        crate::arch::serial::read_typed(out)
    }

    fn irq_mask(line: u8, masked: bool) {
        if masked {
            ioapic::mask(line)
        } else {
            ioapic::unmask(line)
        }
    }

    fn log(args: core::fmt::Arguments<'_>) {
        crate::kprintln!("{}", args);
    }
}
