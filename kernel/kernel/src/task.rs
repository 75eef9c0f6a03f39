//! Tasks: creation from the boot image, and their saved state.

use crate::arch::paging::{frame_bytes, AddressSpace, MapError, UserPerms};
use crate::arch::trap::TrapFrame;
use crate::cap::{Cap, CapTable};
use conflux_abi::layout::{HEAP_BASE, IPC_BUFFER, PAGE_SIZE, USER_STACK_TOP};
use conflux_bootimg::TaskRecord;
use conflux_kcore::elf::{self, ElfError, Segment};
use core::fmt;

/// Where a task is in its life.
#[derive(Clone, Copy, Debug)]
pub enum State {
    Ready,
    /// Blocked until a receiver takes its message from endpoint `obj`; a
    /// call then waits for the reply. `seq` orders senders (FIFO).
    Sending {
        obj: u16,
        call: bool,
        badge: u64,
        seq: u64,
        cap: Option<Cap>,
    },
    /// Blocked until a message arrives on endpoint `obj`.
    Receiving {
        obj: u16,
        reply_slot: u8,
        cap_slot: u8,
    },
    /// Called `server` and waits for its reply.
    AwaitingReply {
        server: u8,
    },
    /// Blocked on notification `obj`.
    Waiting {
        obj: u16,
    },
    /// Faulted; its fault message waits on the supervisor's endpoint `obj`.
    FaultSending {
        obj: u16,
        seq: u64,
    },
    /// Faulted; the supervisor has the message and will decide.
    FaultAwaiting,
    /// Ended with `exit` (the code was reported then).
    Exited,
    /// Faulted and not restarted.
    Stopped,
}

impl State {
    /// Ended for good (as far as anyone can call it now).
    pub fn is_dead(&self) -> bool {
        matches!(
            self,
            Self::Exited | Self::Stopped | Self::FaultSending { .. } | Self::FaultAwaiting
        )
    }
}

/// One task: its identity, scheduling state, saved registers and memory.
pub struct Task {
    pub name: &'static str,
    pub priority: u8,
    /// Incremented on every restart; capabilities to the task's endpoints
    /// made for an older generation get `DeadPeer`.
    pub generation: u32,
    pub state: State,
    pub ctx: TrapFrame,
    pub space: Option<AddressSpace>,
    pub caps: CapTable,
    /// Physical address of the task's IPC buffer page.
    pub ipc_buf: u64,
    /// The fault message words, while the supervisor has not taken them.
    pub fault: [u64; 4],
    /// Whether the task's next console byte starts a line (for prefixes).
    pub at_line_start: bool,
}

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

impl Task {
    /// Builds a task from its boot-image record: address space, ELF
    /// segments, stack (with an unmapped guard page below) and heap.
    pub fn load(rec: &TaskRecord<'static>) -> Result<Self, LoadError> {
        let mut space = AddressSpace::new()?;
        match build_space(rec, &mut space) {
            Ok((entry, ipc_buf)) => Ok(Self {
                name: rec.name,
                priority: rec.priority,
                generation: 0,
                state: State::Ready,
                // The System V ABI expects rsp+8 to be 16-byte aligned at
                // a function's first instruction, as right after a `call`.
                ctx: TrapFrame::new_user(entry, USER_STACK_TOP - 8),
                space: Some(space),
                caps: CapTable::new(),
                ipc_buf,
                fault: [0; 4],
                at_line_start: true,
            }),
            Err(e) => {
                space.destroy();
                Err(e)
            }
        }
    }
}
