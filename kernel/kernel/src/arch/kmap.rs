//! Kernel W^X: the kernel's own mappings, each part with only the
//! permissions it needs.
//!
//! The PVH boot code maps everything read-write-execute with 2 MiB pages,
//! because it runs before anything is known about the image. Once in long
//! mode, [`init`] replaces those tables with ones built from the linker's
//! section symbols (`link.ld`), at 4 KiB granularity for the image:
//!
//! | range | permissions |
//! |---|---|
//! | kernel text | read-only, executable |
//! | kernel rodata | read-only, not executable |
//! | kernel data and bss | read-write, not executable |
//! | direct map (4 GiB at `paging::PHYS_OFFSET`) | read-write, not executable |
//! | the image's own frames inside the direct map | as the image, never executable |
//!
//! So no kernel page is both writable and executable, and text cannot be
//! rewritten through its direct-map alias either. The rest of the kernel
//! window (everything in the first GiB but the image) is left unmapped.
//! CR0.WP makes ring 0 obey read-only pages, and EFER.NXE makes the NX bit
//! valid (without it the bit is reserved and every access would fault).
//!
//! The tables live in the kernel's bss, because this runs before the frame
//! allocator exists. Every address space copies PML4 entries 256..512 from
//! the kernel template when it is created, so this must run before the
//! first task exists: `paging::init` calls it first thing.

use super::paging::DIRECT_MAP_SIZE;
use x86_64::registers::control::{Cr0, Cr0Flags, Cr3, Cr3Flags};
use x86_64::registers::model_specific::{Efer, EferFlags};
use x86_64::structures::paging::page_table::{PageTable, PageTableFlags as F};
use x86_64::structures::paging::PhysFrame;
use x86_64::PhysAddr;

/// The kernel's link base: virtual = physical + KERNEL_VMA for the image.
pub const KERNEL_VMA: u64 = 0xffff_ffff_8000_0000;
const PAGE: u64 = 4096;
/// What one page directory entry (and so one page table) covers.
const LARGE_PAGE: u64 = 2 << 20;
/// Page tables for the image, in each of its two views (kernel window and
/// direct map): each covers 2 MiB, so the image may span up to 8 MiB.
const IMAGE_PTS: usize = 4;
/// Page directories of the direct map, one per GiB.
const DIRECT_PDS: usize = (DIRECT_MAP_SIZE >> 30) as usize;

extern "C" {
    static __text_start: u8;
    static __text_end: u8;
    static __rodata_start: u8;
    static __rodata_end: u8;
    static __data_start: u8;
    static __kernel_virt_end: u8;
}

/// Every table of the kernel half, page aligned as the CPU requires.
#[repr(C, align(4096))]
struct Tables {
    pml4: PageTable,
    direct_pdpt: PageTable,
    direct_pd: [PageTable; DIRECT_PDS],
    direct_pt: [PageTable; IMAGE_PTS],
    image_pdpt: PageTable,
    image_pd: PageTable,
    image_pt: [PageTable; IMAGE_PTS],
}

static mut TABLES: Tables = Tables {
    pml4: PageTable::new(),
    direct_pdpt: PageTable::new(),
    direct_pd: [const { PageTable::new() }; DIRECT_PDS],
    direct_pt: [const { PageTable::new() }; IMAGE_PTS],
    image_pdpt: PageTable::new(),
    image_pd: PageTable::new(),
    image_pt: [const { PageTable::new() }; IMAGE_PTS],
};

/// The kernel image's parts as virtual ranges `[start, end)`, page aligned
/// by the linker script.
struct Layout {
    text: (u64, u64),
    rodata: (u64, u64),
    data: (u64, u64),
}

impl Layout {
    fn from_linker() -> Self {
        // Only the symbols' addresses are taken, never their contents.
        let addr = |s: *const u8| s as u64;
        Self {
            text: (
                addr(core::ptr::addr_of!(__text_start)),
                addr(core::ptr::addr_of!(__text_end)),
            ),
            rodata: (
                addr(core::ptr::addr_of!(__rodata_start)),
                addr(core::ptr::addr_of!(__rodata_end)),
            ),
            data: (
                addr(core::ptr::addr_of!(__data_start)),
                addr(core::ptr::addr_of!(__kernel_virt_end)),
            ),
        }
    }

    /// The image's physical range `[start, end)`.
    fn phys(&self) -> (u64, u64) {
        (self.text.0 - KERNEL_VMA, self.data.1 - KERNEL_VMA)
    }

    /// Leaf flags for the image page at virtual address `virt`, or `None`
    /// outside the image.
    fn flags(&self, virt: u64) -> Option<F> {
        let within = |(start, end): (u64, u64)| (start..end).contains(&virt);
        if within(self.text) {
            Some(F::PRESENT)
        } else if within(self.rodata) {
            Some(F::PRESENT | F::NO_EXECUTE)
        } else if within(self.data) {
            Some(F::PRESENT | F::WRITABLE | F::NO_EXECUTE)
        } else {
            None
        }
    }

    /// The 2 MiB chunks (page-directory indices, the same in both views
    /// because the image lies in the first GiB) the image touches.
    fn chunks(&self) -> core::ops::RangeInclusive<usize> {
        let (start, end) = self.phys();
        (start / LARGE_PAGE) as usize..=((end - 1) / LARGE_PAGE) as usize
    }
}

/// Physical address of a table in the kernel's bss.
fn phys_of(table: &PageTable) -> PhysAddr {
    PhysAddr::new(table as *const PageTable as u64 - KERNEL_VMA)
}

/// Points `parent[index]` at `child`. Parents allow everything; the leaf
/// entries alone decide permissions.
fn link(parent: &mut PageTable, index: usize, child: &PageTable) {
    parent[index].set_addr(phys_of(child), F::PRESENT | F::WRITABLE);
}

/// The direct map: 2 MiB pages, read-write and NX, except the chunks
/// holding the image, which get 4 KiB pages with the image's permissions
/// (minus execute) for its own frames.
fn build_direct_map(t: &mut Tables, layout: &Layout) {
    link(&mut t.pml4, 256, &t.direct_pdpt);
    let data = F::PRESENT | F::WRITABLE | F::NO_EXECUTE;
    for (gib, pd) in t.direct_pd.iter_mut().enumerate() {
        link(&mut t.direct_pdpt, gib, pd);
        for (i, entry) in pd.iter_mut().enumerate() {
            let phys = ((gib as u64) << 30) + (i as u64) * LARGE_PAGE;
            entry.set_addr(PhysAddr::new(phys), data | F::HUGE_PAGE);
        }
    }
    for (chunk, pt) in layout.chunks().zip(t.direct_pt.iter_mut()) {
        link(&mut t.direct_pd[0], chunk, pt);
        for (i, entry) in pt.iter_mut().enumerate() {
            let phys = chunk as u64 * LARGE_PAGE + i as u64 * PAGE;
            let flags = layout
                .flags(phys + KERNEL_VMA)
                .map_or(data, |f| f | F::NO_EXECUTE);
            entry.set_addr(PhysAddr::new(phys), flags);
        }
    }
}

/// The kernel window: the image's pages only, each with its part's flags.
fn build_image(t: &mut Tables, layout: &Layout) {
    link(&mut t.pml4, 511, &t.image_pdpt);
    link(&mut t.image_pdpt, 510, &t.image_pd);
    for (chunk, pt) in layout.chunks().zip(t.image_pt.iter_mut()) {
        link(&mut t.image_pd, chunk, pt);
        for (i, entry) in pt.iter_mut().enumerate() {
            let phys = chunk as u64 * LARGE_PAGE + i as u64 * PAGE;
            if let Some(flags) = layout.flags(phys + KERNEL_VMA) {
                entry.set_addr(PhysAddr::new(phys), flags);
            }
        }
    }
}

/// Builds the kernel's W^X tables and switches to them; also turns on
/// EFER.NXE and CR0.WP.
///
/// # Panics
///
/// If the image outgrew the page tables reserved for it ([`IMAGE_PTS`]):
/// a build problem, found on the first boot.
pub fn init() {
    let layout = Layout::from_linker();
    let chunks = layout.chunks().count();
    assert!(
        chunks <= IMAGE_PTS,
        "kmap: the kernel image spans {chunks} 2-MiB chunks but kmap has page tables for {IMAGE_PTS}; raise IMAGE_PTS in src/arch/kmap.rs"
    );
    // Safety: runs once, on the boot CPU, before any other code refers to
    // TABLES; afterwards they are reached only as the CPU's and `paging`'s
    // page tables.
    let t = unsafe { &mut *core::ptr::addr_of_mut!(TABLES) };
    build_direct_map(t, &layout);
    build_image(t, &layout);
    let pml4 = phys_of(&t.pml4);
    // Safety: NX bits are reserved until EFER.NXE is set, so it must be on
    // before the new tables are loaded; main checked the CPU has NX.
    unsafe { Efer::update(|e| *e |= EferFlags::NO_EXECUTE_ENABLE) };
    // Safety: the new tables map the kernel image at the same virtual
    // addresses (the code running now, its stack and data) and the direct
    // map at the same place, so execution continues unchanged.
    unsafe { Cr3::write(PhysFrame::containing_address(pml4), Cr3Flags::empty()) };
    // Safety: with WP set the kernel honours read-only pages; every page
    // it writes is mapped writable above.
    unsafe { Cr0::update(|c| *c |= Cr0Flags::WRITE_PROTECT) };
}
