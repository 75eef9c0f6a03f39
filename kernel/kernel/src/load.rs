//! Loading a task from its boot-image record into a fresh address space:
//! ELF segments, stack (with an unmapped guard page below), heap and IPC
//! buffer, every frame owned by the space.

use crate::arch::context::Context;
use crate::arch::paging::{frame_bytes, AddressSpace, MapError, UserPerms};
use conflux_abi::layout::{HEAP_BASE, IPC_BUFFER, PAGE_SIZE, USER_STACK_TOP};
use conflux_bootimg::TaskRecord;
use conflux_kcore::elf::{self, ElfError, Segment};
use core::fmt;

/// Why a task could not be created.
#[derive(Debug)]
pub enum LoadError {
    Elf(ElfError),
    Map(MapError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Elf(e) => write!(f, "bad ELF file: {e}"),
            Self::Map(MapError::OutOfMemory) => {
                f.write_str("out of physical memory (raise system.memory_mib)")
            }
            Self::Map(MapError::AlreadyMapped) => {
                f.write_str("two mappings of one page (kernel bug)")
            }
        }
    }
}

impl From<MapError> for LoadError {
    fn from(e: MapError) -> Self {
        Self::Map(e)
    }
}

/// Maps one ELF segment and copies its file bytes in.
fn load_segment(space: &mut AddressSpace, seg: &Segment<'_>) -> Result<(), MapError> {
    let perms = UserPerms {
        writable: seg.writable,
        executable: seg.executable,
    };
    let (start, end) = seg.page_range();
    let data_end = seg.vaddr + seg.data.len() as u64;
    for page in (start..end).step_by(PAGE_SIZE as usize) {
        let phys = space.map_zeroed(page, perms)?;
        let lo = page.max(seg.vaddr);
        let hi = (page + PAGE_SIZE).min(data_end);
        if lo < hi {
            let src = &seg.data[(lo - seg.vaddr) as usize..(hi - seg.vaddr) as usize];
            // Safety: `phys` is the frame just mapped for this task; the
            // kernel is its only writer during loading.
            let dst = unsafe { frame_bytes(phys) };
            dst[(lo - page) as usize..(hi - page) as usize].copy_from_slice(src);
        }
    }
    Ok(())
}

fn map_anonymous(space: &mut AddressSpace, start: u64, len: u64) -> Result<(), MapError> {
    let perms = UserPerms {
        writable: true,
        executable: false,
    };
    for page in (start..start + len).step_by(PAGE_SIZE as usize) {
        space.map_zeroed(page, perms)?;
    }
    Ok(())
}

/// Maps the task's image, stack, heap and IPC buffer; returns the entry
/// point and the IPC buffer's physical address.
fn build_space(
    rec: &TaskRecord<'static>,
    space: &mut AddressSpace,
) -> Result<(u64, u64), LoadError> {
    let plan = elf::plan(rec.elf).map_err(LoadError::Elf)?;
    for seg in plan.segments() {
        load_segment(space, seg)?;
    }
    map_anonymous(
        space,
        USER_STACK_TOP - rec.stack_size as u64,
        rec.stack_size as u64,
    )?;
    map_anonymous(space, HEAP_BASE, rec.heap_size as u64)?;
    let ipc_buf = space.map_zeroed(
        IPC_BUFFER,
        UserPerms {
            writable: true,
            executable: false,
        },
    )?;
    Ok((plan.entry, ipc_buf))
}

/// Builds a task's context and address space; returns them with the IPC
/// buffer's physical address.
pub fn load(rec: &TaskRecord<'static>) -> Result<(Context, AddressSpace, u64), LoadError> {
    let mut space = AddressSpace::new()?;
    match build_space(rec, &mut space) {
        // The System V ABI expects rsp+8 to be 16-byte aligned at a
        // function's first instruction, as right after a `call`.
        Ok((entry, ipc_buf)) => Ok((Context::new_user(entry, USER_STACK_TOP - 8), space, ipc_buf)),
        Err(e) => {
            space.destroy();
            Err(e)
        }
    }
}
