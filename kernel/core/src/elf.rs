//! Load planning for task ELF files.
//!
//! Turns a task's ELF file into a list of segments to map: where, how big,
//! which bytes to copy, and with what permissions. Everything the kernel
//! will act on is checked here first: the file is a static x86-64
//! executable, each segment lies inside the user image window and inside
//! the file, no segment is both writable and executable (W^X: a task can
//! never write code it then runs), segments do not share pages, and the
//! entry point is in an executable segment. Parsing is done by `xmas-elf`; the bounds that it
//! leaves to its callers are checked before it is asked to slice anything.

use conflux_abi::layout::{PAGE_SIZE, USER_IMAGE_MAX, USER_IMAGE_MIN};
use core::fmt;
use xmas_elf::{header, program, ElfFile};

/// Most loadable segments a task may have.
pub const MAX_SEGMENTS: usize = 8;

/// One segment to map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    /// First virtual address of the segment (not necessarily page-aligned).
    pub vaddr: u64,
    /// Bytes of address space the segment covers.
    pub mem_size: u64,
    /// Bytes to copy from the file; the rest up to `mem_size` is zero.
    pub data: &'a [u8],
    pub writable: bool,
    pub executable: bool,
}

impl Segment<'_> {
    /// The page-aligned address range `[start, end)` this segment touches.
    pub fn page_range(&self) -> (u64, u64) {
        let start = self.vaddr & !(PAGE_SIZE - 1);
        let end = (self.vaddr + self.mem_size).div_ceil(PAGE_SIZE) * PAGE_SIZE;
        (start, end)
    }
}

/// A validated plan for loading one ELF file.
#[derive(Debug)]
pub struct LoadPlan<'a> {
    pub entry: u64,
    segments: [Option<Segment<'a>>; MAX_SEGMENTS],
}

impl<'a> LoadPlan<'a> {
    /// The segments in file order.
    pub fn segments(&self) -> impl Iterator<Item = &Segment<'a>> {
        self.segments.iter().flatten()
    }
}

/// Why a task's ELF file cannot be loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfError {
    /// Not a parseable ELF64 file.
    Malformed(&'static str),
    /// An ELF file, but not a static x86-64 executable.
    NotX86_64Executable,
    /// Segment `index` lies outside the file or outside the user image window.
    SegmentOutOfBounds { index: usize },
    /// Segment `index` asks to be both writable and executable.
    WritableAndExecutable { index: usize },
    /// Two segments map the same page.
    SegmentsOverlap { index: usize },
    /// More than [`MAX_SEGMENTS`] loadable segments, or none.
    SegmentCount,
    /// The entry point is not inside an executable segment.
    BadEntry { entry: u64 },
}

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Malformed(why) => write!(f, "not a valid ELF64 file: {why}"),
            Self::NotX86_64Executable => f.write_str("not a static x86-64 executable (build it for x86_64-unknown-none with relocation-model=static)"),
            Self::SegmentOutOfBounds { index } => write!(
                f,
                "load segment {index} lies outside the file or outside the user image window {USER_IMAGE_MIN:#x}..{USER_IMAGE_MAX:#x}"
            ),
            Self::WritableAndExecutable { index } => write!(
                f,
                "load segment {index} is both writable and executable (flags RWX); W^X forbids it: link the task with separate code and data segments (the linker's default; do not pass -N/--omagic)"
            ),
            Self::SegmentsOverlap { index } => write!(f, "load segment {index} shares a page with an earlier segment"),
            Self::SegmentCount => write!(f, "a task needs 1..={MAX_SEGMENTS} load segments"),
            Self::BadEntry { entry } => write!(f, "entry point {entry:#x} is not inside an executable segment"),
        }
    }
}

fn check_header_bounds(bytes: &[u8]) -> Result<(), ElfError> {
    // e_phoff at 0x20 (u64), e_phentsize at 0x36 (u16), e_phnum at 0x38 (u16).
    let b = bytes
        .get(..64)
        .ok_or(ElfError::Malformed("shorter than an ELF64 header"))?;
    let phoff = u64::from_le_bytes(b[0x20..0x28].try_into().unwrap_or([0xff; 8]));
    let phentsize = u16::from_le_bytes([b[0x36], b[0x37]]) as u64;
    let phnum = u16::from_le_bytes([b[0x38], b[0x39]]) as u64;
    // xmas-elf reads headers in place as typed structs: a misaligned file
    // or program-header table would trip its alignment assertion (a panic).
    if !(bytes.as_ptr() as usize).is_multiple_of(8) || !phoff.is_multiple_of(8) {
        return Err(ElfError::Malformed("ELF headers are not 8-byte aligned"));
    }
    if phentsize != 56 {
        return Err(ElfError::Malformed(
            "program header entries are not 56 bytes",
        ));
    }
    match phoff.checked_add(phentsize * phnum) {
        Some(end) if end <= bytes.len() as u64 => Ok(()),
        _ => Err(ElfError::Malformed("program headers lie outside the file")),
    }
}

fn segment<'a>(
    bytes: &'a [u8],
    ph: &program::ProgramHeader64,
    index: usize,
) -> Result<Segment<'a>, ElfError> {
    let oob = ElfError::SegmentOutOfBounds { index };
    let (vaddr, mem_size) = (ph.virtual_addr, ph.mem_size);
    let end = vaddr.checked_add(mem_size).ok_or(oob)?;
    if vaddr < USER_IMAGE_MIN || end > USER_IMAGE_MAX || ph.file_size > mem_size || mem_size == 0 {
        return Err(oob);
    }
    let file_end = ph.offset.checked_add(ph.file_size).ok_or(oob)?;
    let data = bytes
        .get(ph.offset as usize..file_end as usize)
        .ok_or(oob)?;
    let (writable, executable) = (ph.flags.is_write(), ph.flags.is_execute());
    if writable && executable {
        return Err(ElfError::WritableAndExecutable { index });
    }
    Ok(Segment {
        vaddr,
        mem_size,
        data,
        writable,
        executable,
    })
}

/// Validates `bytes` and plans its loading.
pub fn plan(bytes: &[u8]) -> Result<LoadPlan<'_>, ElfError> {
    check_header_bounds(bytes)?;
    let elf = ElfFile::new(bytes).map_err(ElfError::Malformed)?;
    let h = &elf.header;
    let is_exec = h.pt1.class() == header::Class::SixtyFour
        && h.pt1.data() == header::Data::LittleEndian
        && matches!(h.pt2.type_().as_type(), header::Type::Executable)
        && h.pt2.machine().as_machine() == header::Machine::X86_64;
    if !is_exec {
        return Err(ElfError::NotX86_64Executable);
    }
    let mut plan = LoadPlan {
        entry: h.pt2.entry_point(),
        segments: [None; MAX_SEGMENTS],
    };
    let mut n = 0;
    for (index, ph) in elf.program_iter().enumerate() {
        let program::ProgramHeader::Ph64(ph) = ph else {
            return Err(ElfError::NotX86_64Executable);
        };
        if ph.get_type() != Ok(program::Type::Load) {
            continue;
        }
        let seg = segment(bytes, ph, index)?;
        let (s, e) = seg.page_range();
        if plan.segments().any(|o| {
            let (os, oe) = o.page_range();
            s < oe && os < e
        }) {
            return Err(ElfError::SegmentsOverlap { index });
        }
        *plan.segments.get_mut(n).ok_or(ElfError::SegmentCount)? = Some(seg);
        n += 1;
    }
    if n == 0 {
        return Err(ElfError::SegmentCount);
    }
    let entry = plan.entry;
    if !plan
        .segments()
        .any(|s| s.executable && entry >= s.vaddr && entry < s.vaddr + s.mem_size)
    {
        return Err(ElfError::BadEntry { entry });
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a minimal ELF64 executable with the given (vaddr, memsz, filesz, flags) segments.
    fn elf(entry: u64, segs: &[(u64, u64, u64, u32)]) -> Vec<u8> {
        let phoff = 64u64;
        let data_off = phoff + 56 * segs.len() as u64;
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2; // 64-bit
        b[5] = 1; // little-endian
        b[6] = 1; // version
        b[0x10..0x12].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
        b[0x12..0x14].copy_from_slice(&62u16.to_le_bytes()); // x86-64
        b[0x14..0x18].copy_from_slice(&1u32.to_le_bytes());
        b[0x18..0x20].copy_from_slice(&entry.to_le_bytes());
        b[0x20..0x28].copy_from_slice(&phoff.to_le_bytes());
        b[0x34..0x36].copy_from_slice(&64u16.to_le_bytes());
        b[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        b[0x38..0x3a].copy_from_slice(&(segs.len() as u16).to_le_bytes());
        let mut off = data_off;
        for &(vaddr, memsz, filesz, flags) in segs {
            let mut ph = vec![0u8; 56];
            ph[0..4].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
            ph[4..8].copy_from_slice(&flags.to_le_bytes());
            ph[8..16].copy_from_slice(&off.to_le_bytes());
            ph[16..24].copy_from_slice(&vaddr.to_le_bytes());
            ph[24..32].copy_from_slice(&vaddr.to_le_bytes());
            ph[32..40].copy_from_slice(&filesz.to_le_bytes());
            ph[40..48].copy_from_slice(&memsz.to_le_bytes());
            b.extend_from_slice(&ph);
            off += filesz;
        }
        for &(_, _, filesz, _) in segs {
            b.extend(std::iter::repeat_n(0xcc, filesz as usize));
        }
        b
    }

    const RX: u32 = 5;
    const RW: u32 = 6;

    #[test]
    fn plans_text_and_data() {
        let f = elf(
            0x20_0010,
            &[(0x20_0000, 0x100, 0x100, RX), (0x20_1000, 0x2000, 0x10, RW)],
        );
        let p = plan(&f).unwrap();
        assert_eq!(p.entry, 0x20_0010);
        let s: Vec<_> = p.segments().collect();
        assert_eq!(s.len(), 2);
        assert!(s[0].executable && !s[0].writable);
        assert_eq!(s[1].data.len(), 0x10);
        assert_eq!(s[1].page_range(), (0x20_1000, 0x20_3000));
    }

    #[test]
    fn rejects_segments_outside_the_user_window() {
        let f = elf(0x10, &[(0x0, 0x100, 0x100, RX)]);
        assert_eq!(
            plan(&f).unwrap_err(),
            ElfError::SegmentOutOfBounds { index: 0 }
        );
        let kernel = 0xffff_ffff_8000_0000;
        let f = elf(kernel, &[(kernel, 0x100, 0x100, RX)]);
        assert_eq!(
            plan(&f).unwrap_err(),
            ElfError::SegmentOutOfBounds { index: 0 }
        );
    }

    #[test]
    fn rejects_overlap_bad_entry_and_file_overrun() {
        let f = elf(
            0x20_0000,
            &[(0x20_0000, 0x100, 0x100, RX), (0x20_0800, 0x100, 0x10, RW)],
        );
        assert_eq!(
            plan(&f).unwrap_err(),
            ElfError::SegmentsOverlap { index: 1 }
        );
        let f = elf(0x30_0000, &[(0x20_0000, 0x100, 0x100, RX)]);
        assert_eq!(
            plan(&f).unwrap_err(),
            ElfError::BadEntry { entry: 0x30_0000 }
        );
        let f = elf(
            0x20_1000,
            &[(0x20_0000, 0x100, 0x100, RX), (0x20_1000, 0x100, 0x10, RW)],
        );
        assert_eq!(
            plan(&f).unwrap_err(),
            ElfError::BadEntry { entry: 0x20_1000 }
        );
        let mut f = elf(0x20_0000, &[(0x20_0000, 0x100, 0x100, RX)]);
        f.truncate(f.len() - 1);
        assert_eq!(
            plan(&f).unwrap_err(),
            ElfError::SegmentOutOfBounds { index: 0 }
        );
    }

    #[test]
    fn rejects_writable_and_executable_segments() {
        const RWX: u32 = 7;
        let f = elf(
            0x20_0010,
            &[
                (0x20_0000, 0x100, 0x100, RX),
                (0x20_1000, 0x100, 0x100, RWX),
            ],
        );
        let e = plan(&f).unwrap_err();
        assert_eq!(e, ElfError::WritableAndExecutable { index: 1 });
        assert_eq!(
            e.to_string(),
            "load segment 1 is both writable and executable (flags RWX); \
             W^X forbids it: link the task with separate code and data segments \
             (the linker's default; do not pass -N/--omagic)"
        );
    }

    #[test]
    fn rejects_non_executables() {
        let mut f = elf(0x20_0000, &[(0x20_0000, 0x100, 0x100, RX)]);
        f[0x10] = 3; // ET_DYN
        assert_eq!(plan(&f).unwrap_err(), ElfError::NotX86_64Executable);
        assert!(matches!(
            plan(b"\x7fELF").unwrap_err(),
            ElfError::Malformed(_)
        ));
        assert!(matches!(
            plan(&[0u8; 200]).unwrap_err(),
            ElfError::Malformed(_)
        ));
    }

    #[test]
    fn never_panics_on_corrupted_files() {
        let f = elf(
            0x20_0010,
            &[(0x20_0000, 0x100, 0x100, RX), (0x20_1000, 0x2000, 0x10, RW)],
        );
        for i in 0..f.len().min(64 + 2 * 56) {
            for v in [0u8, 0xff, 0x80, 1] {
                let mut m = f.clone();
                m[i] = v;
                let _ = plan(&m);
            }
        }
        for n in 0..f.len() {
            let _ = plan(&f[..n]);
        }
    }
}
