//! Address spaces: one 4-level page table per task.
//!
//! Every address space shares the kernel half (PML4 entries 256..512, which
//! point at the boot page tables: the direct map of physical memory at
//! [`PHYS_OFFSET`] and the kernel image at -2 GiB). The lower half belongs to
//! the task. The kernel reaches page-table frames and task memory through
//! the direct map, never through user addresses, so it cannot be tricked
//! into touching memory a task does not own.
//!
//! Ownership: a leaf entry carries the software bit [`OWNED`] when the
//! address space allocated its frame (ELF pages, stack, heap, IPC buffer)
//! and must free it on teardown. Region and device mappings never carry
//! it: their frames belong to the region object (or are not RAM at all),
//! so tearing a space down can never hand live shared memory or device
//! registers to the frame allocator. Page-table frames are always the
//! space's own.

use crate::mem;
use x86_64::registers::control::Cr3;
use x86_64::structures::paging::page_table::{PageTable, PageTableEntry, PageTableFlags as F};
use x86_64::structures::paging::{
    mapper::{CleanUp, TranslateResult},
    FrameAllocator, FrameDeallocator, Mapper, OffsetPageTable, Page, PhysFrame, Size4KiB,
    Translate,
};
use x86_64::{PhysAddr, VirtAddr};

/// Base of the direct map of physical memory (first 4 GiB).
pub const PHYS_OFFSET: u64 = 0xffff_8000_0000_0000;
/// How much physical memory the direct map covers.
pub const DIRECT_MAP_SIZE: u64 = 4 << 30;

/// Kernel-virtual pointer to physical address `phys` (must be below 4 GiB).
pub fn phys_to_virt(phys: u64) -> *mut u8 {
    (PHYS_OFFSET + phys) as *mut u8
}

/// Byte slice view of one physical frame through the direct map.
///
/// # Safety
/// The frame must be owned by the caller (allocated and not shared with a
/// live reference), and below [`DIRECT_MAP_SIZE`].
pub unsafe fn frame_bytes(phys: u64) -> &'static mut [u8; 4096] {
    // Safety: the caller owns the frame; the direct map covers it.
    unsafe { &mut *(phys_to_virt(phys) as *mut [u8; 4096]) }
}

/// Clears the frame at `phys` with plain 8-byte stores, eight to a turn
/// of the loop. Not `fill(0)`: that becomes `memset`'s `rep stosq`, which
/// QEMU's TCG runs as one translated block per 8 bytes, and clearing
/// frames is most of loading a system's tasks (their heaps are mapped
/// up front); the plain loop measured several times faster there, and is
/// as fast on hardware for a 4 KiB frame.
///
/// # Safety
/// As for [`frame_bytes`]: the caller owns the frame.
pub unsafe fn zero_frame(phys: u64) {
    let words = phys_to_virt(phys) as *mut u64;
    for turn in 0..512 / 8 {
        for i in 0..8 {
            // Safety: the caller owns the frame, which the direct map
            // covers; `turn * 8 + i` < 512 stays inside its 4 KiB. Volatile
            // keeps the compiler from turning the loop back into `memset`.
            unsafe { words.add(turn * 8 + i).write_volatile(0) };
        }
    }
}

/// Allocates frames for new page tables from the kernel's frame allocator.
struct Frames;

// Safety: page-table frames handed back here came from `allocate_frame`
// and are no longer referenced by any table.
impl FrameDeallocator<Size4KiB> for Frames {
    unsafe fn deallocate_frame(&mut self, frame: PhysFrame) {
        mem::release(frame.start_address().as_u64(), "an emptied page table");
    }
}

/// Software bit of a leaf entry: the address space owns the frame.
const OWNED: F = F::BIT_9;

// Safety: `mem::alloc_frame` returns frames no one else owns.
unsafe impl FrameAllocator<Size4KiB> for Frames {
    fn allocate_frame(&mut self) -> Option<PhysFrame> {
        mem::alloc_frame().map(|p| PhysFrame::containing_address(PhysAddr::new(p)))
    }
}

/// Why a mapping could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    OutOfMemory,
    AlreadyMapped,
}

/// Permissions of a user page.
#[derive(Debug, Clone, Copy)]
pub struct UserPerms {
    pub writable: bool,
    pub executable: bool,
}

/// The physical address of the kernel's template PML4 (the boot tables).
static KERNEL_PML4: spin::Once<u64> = spin::Once::new();

/// Records the boot PML4 as the kernel template and drops the identity map
/// of low memory that the boot code needed, so that the lower half is empty
/// for tasks and a stray kernel access to a low address faults.
pub fn init() {
    super::kmap::init();
    let (frame, _) = Cr3::read();
    let phys = frame.start_address().as_u64();
    // Safety: CR3 points at the boot PML4, reachable through the direct map
    // and used only by this CPU during boot.
    let pml4 = unsafe { &mut *(phys_to_virt(phys) as *mut PageTable) };
    pml4[0].set_unused();
    x86_64::instructions::tlb::flush_all();
    KERNEL_PML4.call_once(|| phys);
}

/// One task's address space.
pub struct AddressSpace {
    pml4: u64,
}

impl AddressSpace {
    /// A new address space with the kernel half mapped and nothing below.
    pub fn new() -> Result<Self, MapError> {
        let pml4 = mem::alloc_frame().ok_or(MapError::OutOfMemory)?;
        let template = *KERNEL_PML4
            .get()
            .expect("paging::init runs before any address space is made");
        // Safety: `pml4` is a fresh frame we own; the template is the boot
        // PML4, only read here.
        unsafe {
            let new = &mut *(phys_to_virt(pml4) as *mut PageTable);
            let old = &*(phys_to_virt(template) as *const PageTable);
            for i in 0..256 {
                new[i] = PageTableEntry::new();
            }
            for i in 256..512 {
                new[i] = old[i].clone();
            }
        }
        Ok(Self { pml4 })
    }

    fn mapper(&mut self) -> OffsetPageTable<'_> {
        // Safety: `self.pml4` is this address space's PML4 frame, borrowed
        // mutably through `&mut self`; the direct map covers it.
        unsafe {
            OffsetPageTable::new(
                &mut *(phys_to_virt(self.pml4) as *mut PageTable),
                VirtAddr::new(PHYS_OFFSET),
            )
        }
    }

    /// Maps frame `phys` at user page `vaddr` with leaf `flags` and flushes
    /// the page's TLB entry (harmless when this space is not live).
    ///
    /// # Safety
    /// The caller must own `phys` for as long as the mapping exists (a fresh
    /// frame, or a region frame unmapped before its capability goes away).
    unsafe fn map(&mut self, vaddr: u64, phys: u64, flags: F) -> Result<(), MapError> {
        let page = Page::<Size4KiB>::containing_address(VirtAddr::new(vaddr));
        let frame = PhysFrame::containing_address(PhysAddr::new(phys));
        // Parent tables allow everything; the leaf entry alone sets permissions.
        let parents = F::PRESENT | F::WRITABLE | F::USER_ACCESSIBLE;
        // Safety: the caller owns the frame; the page is in the user half,
        // which the kernel never uses for its own data.
        let result = unsafe {
            self.mapper().map_to_with_table_flags(
                page,
                frame,
                flags | F::PRESENT | F::USER_ACCESSIBLE,
                parents,
                &mut Frames,
            )
        };
        match result {
            Ok(flush) => {
                flush.flush();
                Ok(())
            }
            Err(x86_64::structures::paging::mapper::MapToError::FrameAllocationFailed) => {
                Err(MapError::OutOfMemory)
            }
            Err(_) => Err(MapError::AlreadyMapped),
        }
    }

    /// Maps a fresh zeroed frame at user page `vaddr`; returns its physical address.
    pub fn map_zeroed(&mut self, vaddr: u64, perms: UserPerms) -> Result<u64, MapError> {
        let phys = mem::alloc_frame().ok_or(MapError::OutOfMemory)?;
        // Safety: a fresh frame is ours to clear.
        unsafe { zero_frame(phys) };
        let mut flags = OWNED;
        if perms.writable {
            flags |= F::WRITABLE;
        }
        if !perms.executable {
            flags |= F::NO_EXECUTE;
        }
        // Safety: the frame is fresh; the address space owns it from now on.
        match unsafe { self.map(vaddr, phys, flags) } {
            Ok(()) => Ok(phys),
            Err(e) => {
                mem::release(phys, "a page that could not be mapped");
                Err(e)
            }
        }
    }

    /// Maps the existing frame `phys` at user page `vaddr` (shared memory or
    /// device registers; `device` makes it uncached).
    pub fn map_frame(
        &mut self,
        vaddr: u64,
        phys: u64,
        writable: bool,
        device: bool,
    ) -> Result<(), MapError> {
        let mut flags = F::NO_EXECUTE;
        if writable {
            flags |= F::WRITABLE;
        }
        if device {
            flags |= F::NO_CACHE | F::WRITE_THROUGH;
        }
        // Safety: `phys` belongs to a region object that outlives the
        // mapping (it is unmapped before the capability goes away).
        unsafe { self.map(vaddr, phys, flags) }
    }

    /// Removes the mappings of `[start, start + len)` (the frames are not
    /// freed: they belong to their region) and frees the page tables that
    /// became empty, so mapping and unmapping at ever new addresses cannot
    /// exhaust the kernel's memory.
    pub fn unmap_range(&mut self, start: u64, len: u64) {
        if len == 0 {
            return;
        }
        let mut mapper = self.mapper();
        for off in (0..len).step_by(4096) {
            let page = Page::<Size4KiB>::containing_address(VirtAddr::new(start + off));
            if let Ok((_, flush)) = mapper.unmap(page) {
                // INVLPG also drops the paging-structure caches, so the
                // tables freed below are no longer cached either.
                flush.flush();
            }
        }
        let first = Page::<Size4KiB>::containing_address(VirtAddr::new(start));
        let last = Page::<Size4KiB>::containing_address(VirtAddr::new(start + len - 1));
        // Safety: every table below the PML4's user half belongs to this
        // address space alone (the kernel half is never in a user range),
        // and the range's translations were just flushed.
        unsafe { mapper.clean_up_addr_range(Page::range_inclusive(first, last), &mut Frames) };
    }

    /// Physical address behind user address `vaddr`, if the page is mapped
    /// user-accessible (and writable when `write` is asked).
    pub fn translate_user(&mut self, vaddr: u64, write: bool) -> Option<u64> {
        if !conflux_abi::layout::is_user_range(vaddr, 1) {
            return None;
        }
        match self.mapper().translate(VirtAddr::new(vaddr)) {
            TranslateResult::Mapped {
                frame,
                offset,
                flags,
            } if flags.contains(F::USER_ACCESSIBLE) && (!write || flags.contains(F::WRITABLE)) => {
                Some(frame.start_address().as_u64() + offset)
            }
            _ => None,
        }
    }

    /// Maps physical 0..2 MiB at virtual 0, kernel-only, writable and
    /// executable: the identity map an AP needs while it switches to long
    /// mode (`trampoline`). Returns the physical PML4 for CR3. The tables
    /// are the space's own, so `destroy` frees them; the 2 MiB page is not
    /// owned, so it is not.
    pub fn map_boot_identity(&mut self) -> Result<u64, MapError> {
        let pdpt = mem::alloc_frame().ok_or(MapError::OutOfMemory)?;
        let Some(pd) = mem::alloc_frame() else {
            mem::release(pdpt, "an unused page table");
            return Err(MapError::OutOfMemory);
        };
        // Safety: both frames are fresh from the allocator (owned here),
        // and the PML4 is this space's, borrowed through `&mut self`.
        unsafe {
            frame_bytes(pdpt).fill(0);
            frame_bytes(pd).fill(0);
            let pd_t = &mut *(phys_to_virt(pd) as *mut PageTable);
            pd_t[0].set_addr(PhysAddr::new(0), F::PRESENT | F::WRITABLE | F::HUGE_PAGE);
            let pdpt_t = &mut *(phys_to_virt(pdpt) as *mut PageTable);
            pdpt_t[0].set_addr(PhysAddr::new(pd), F::PRESENT | F::WRITABLE);
            let pml4 = &mut *(phys_to_virt(self.pml4) as *mut PageTable);
            pml4[0].set_addr(PhysAddr::new(pdpt), F::PRESENT | F::WRITABLE);
        }
        Ok(self.pml4)
    }

    /// The physical address of this space's PML4 (what CR3 holds while it
    /// is active).
    pub fn root(&self) -> u64 {
        self.pml4
    }

    /// Makes this the current address space on this CPU; whether CR3
    /// changed (false: it was already this space).
    #[inline]
    pub fn activate(&self) -> bool {
        load_cr3(self.pml4)
    }

    /// Frees the frames this space owns — its own pages (marked [`OWNED`])
    /// and every page table of the lower half — and the PML4. If the CPU
    /// still runs on these tables, it moves to the kernel's own first.
    pub fn destroy(self) {
        if Cr3::read().0.start_address().as_u64() == self.pml4 {
            activate_kernel_tables();
        }
        // The kernel half is shared and must not be freed.
        free_table(self.pml4, 4, 256);
    }
}

/// Physical address of the PML4 this CPU runs on.
pub fn current_root() -> u64 {
    let now: u64;
    // Safety: reading CR3 has no side effect.
    unsafe {
        core::arch::asm!("mov {}, cr3", out(reg) now, options(nostack, nomem, preserves_flags))
    };
    now & !0xfff
}

/// Drops this CPU's cached translations of the current address space
/// (the kernel maps nothing global, so a CR3 reload drops them all).
pub fn flush_tlb() {
    x86_64::instructions::tlb::flush_all();
}

/// Loads `pml4` into CR3 unless it is there already; whether it loaded.
#[inline]
fn load_cr3(pml4: u64) -> bool {
    let now: u64;
    // Safety: reading CR3 has no side effect. (Raw, because this is on the
    // IPC path and the typed wrapper re-validates an address we made.)
    unsafe {
        core::arch::asm!("mov {}, cr3", out(reg) now, options(nostack, nomem, preserves_flags))
    };
    if now & !0xfff == pml4 {
        return false;
    }
    // Safety: `pml4` is a page-aligned PML4 frame this kernel built; every
    // PML4 maps the kernel half identically, so the kernel keeps running.
    unsafe { core::arch::asm!("mov cr3, {}", in(reg) pml4, options(nostack, preserves_flags)) };
    true
}

/// Runs on the kernel's own tables (no task's): when idling, and before a
/// task's tables are freed, so CR3 never points at freed memory.
pub fn activate_kernel_tables() {
    if let Some(&pml4) = KERNEL_PML4.get() {
        load_cr3(pml4);
    }
}

/// Frees the user part of a page table at `level` (4 = PML4), then the table.
fn free_table(phys: u64, level: u8, entries: usize) {
    // Safety: the table belongs to an address space being destroyed; no
    // CPU runs on it (the caller switched away), so we own its frames.
    let table = unsafe { &*(phys_to_virt(phys) as *const PageTable) };
    for entry in table.iter().take(entries) {
        if !entry.flags().contains(F::PRESENT) {
            continue;
        }
        let child = entry.addr().as_u64();
        if level > 1 && !entry.flags().contains(F::HUGE_PAGE) {
            free_table(child, level - 1, 512);
        } else if entry.flags().contains(OWNED) {
            mem::release(child, "a task page");
        }
    }
    mem::release(phys, "a page table");
}
