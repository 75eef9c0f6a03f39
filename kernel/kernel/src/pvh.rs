//! The PVH `hvm_start_info` structure: memory map and boot modules.
//!
//! Written by the firmware, read once at boot. It is still checked (magic,
//! entry counts, addresses inside the direct map) because a wrong QEMU
//! invocation should produce a message, not a wild read. The RAM ranges
//! are copied into the kernel when parsed ([`ram_overlapping`]), because the
//! firmware's copy lies in memory the kernel may later hand out.

use crate::arch::paging::{phys_to_virt, DIRECT_MAP_SIZE};

const MAGIC: u32 = 0x336e_c578;
/// E820 type of usable RAM.
const RAM: u32 = 1;
const MAX_MEMMAP: u32 = 128;

/// Usable RAM ranges `[start, end)` from the memory map, kept for checks
/// made after the frame allocator may have reused the firmware's copy.
static RAM_MAP: spin::Once<RamMap> = spin::Once::new();

struct RamMap {
    ranges: [(u64, u64); MAX_MEMMAP as usize],
    len: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct StartInfo {
    magic: u32,
    version: u32,
    flags: u32,
    nr_modules: u32,
    modlist_paddr: u64,
    cmdline_paddr: u64,
    rsdp_paddr: u64,
    memmap_paddr: u64,
    memmap_entries: u32,
    reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct ModEntry {
    paddr: u64,
    size: u64,
    cmdline_paddr: u64,
    reserved: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct MemmapEntry {
    addr: u64,
    size: u64,
    kind: u32,
    reserved: u32,
}

/// What the kernel needs from the start info, checked.
pub struct BootInfo {
    info: StartInfo,
    /// Physical range of the boot image (the first module).
    pub image: (u64, u64),
}

fn in_direct_map(addr: u64, len: u64) -> bool {
    addr.checked_add(len)
        .is_some_and(|end| end <= DIRECT_MAP_SIZE)
}

fn read<T: Copy>(phys: u64) -> T {
    // Safety: callers check `phys..phys+size_of::<T>()` lies in the direct
    // map; the firmware structures are plain data, read by value.
    unsafe { core::ptr::read_unaligned(phys_to_virt(phys) as *const T) }
}

/// Parses the start info at physical `addr`.
pub fn parse(addr: u64) -> Result<BootInfo, &'static str> {
    if !in_direct_map(addr, core::mem::size_of::<StartInfo>() as u64) {
        return Err("start info pointer is outside low memory: not booted through PVH?");
    }
    let info: StartInfo = read(addr);
    if info.magic != MAGIC {
        return Err(
            "start info magic is wrong: the kernel must be booted through PVH (QEMU -kernel)",
        );
    }
    if info.version < 1 || info.memmap_entries == 0 || info.memmap_entries > MAX_MEMMAP {
        return Err("start info has no usable memory map (needs PVH version 1)");
    }
    let memmap_len = info.memmap_entries as u64 * core::mem::size_of::<MemmapEntry>() as u64;
    if !in_direct_map(info.memmap_paddr, memmap_len) {
        return Err("memory map lies outside low memory");
    }
    if info.nr_modules == 0 {
        return Err("no boot image: pass the image built by the runner with QEMU -initrd");
    }
    if !in_direct_map(info.modlist_paddr, core::mem::size_of::<ModEntry>() as u64) {
        return Err("module list lies outside low memory");
    }
    let module: ModEntry = read(info.modlist_paddr);
    if !in_direct_map(module.paddr, module.size) || module.size == 0 {
        return Err("boot image lies outside the first 4 GiB or is empty");
    }
    let boot = BootInfo {
        info,
        image: (module.paddr, module.size),
    };
    RAM_MAP.call_once(|| {
        let mut map = RamMap {
            ranges: [(0, 0); MAX_MEMMAP as usize],
            len: 0,
        };
        for (slot, range) in map.ranges.iter_mut().zip(boot.ram()) {
            *slot = range;
            map.len += 1;
        }
        map
    });
    Ok(boot)
}

/// The first RAM range in the firmware's memory map that overlaps
/// `[start, end)`, if any (none before [`parse`] has run).
pub fn ram_overlapping(start: u64, end: u64) -> Option<(u64, u64)> {
    let map = RAM_MAP.get()?;
    map.ranges[..map.len]
        .iter()
        .copied()
        .find(|&(s, e)| start < e && s < end)
}

impl BootInfo {
    /// Usable RAM ranges `[start, end)` from the memory map.
    pub fn ram(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.info.memmap_entries as u64).filter_map(move |i| {
            let e: MemmapEntry =
                read(self.info.memmap_paddr + i * core::mem::size_of::<MemmapEntry>() as u64);
            (e.kind == RAM).then(|| (e.addr, e.addr.saturating_add(e.size)))
        })
    }

    /// The kernel command line (QEMU `-append`), or "" if absent or not
    /// text. Bounded so a missing terminator cannot run through memory.
    pub fn cmdline(&self) -> &'static str {
        const MAX: u64 = 1024;
        let p = self.info.cmdline_paddr;
        if p == 0 || !in_direct_map(p, MAX) {
            return "";
        }
        // Safety: the range lies in the direct map (checked above) and the
        // firmware's command line is never written after boot.
        let bytes = unsafe { core::slice::from_raw_parts(phys_to_virt(p), MAX as usize) };
        let len = bytes.iter().position(|&b| b == 0).unwrap_or(0);
        core::str::from_utf8(&bytes[..len]).unwrap_or("")
    }

    /// Physical address of the ACPI RSDP the loader found, or 0 for none.
    pub fn rsdp(&self) -> u64 {
        self.info.rsdp_paddr
    }

    /// The boot image bytes.
    pub fn image_bytes(&self) -> &'static [u8] {
        // Safety: `parse` checked the range lies in the direct map; the
        // frames are reserved in the allocator and never written.
        unsafe { core::slice::from_raw_parts(phys_to_virt(self.image.0), self.image.1 as usize) }
    }
}
