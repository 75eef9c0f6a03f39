//! A task's ELF as the boot image carries it: only what the kernel loads.
//!
//! Release builds keep their debug information (`debug = true`), which is
//! most of each file (the file server's ELF is 19 MiB, of which under
//! 1 MiB is code and data). The kernel reads nothing but the ELF header,
//! the program headers and the bytes they point at, and every byte of the
//! boot image is copied by the firmware at every boot, so the image keeps
//! the file up to the end of the last of those and drops the rest: the
//! section headers, the symbol tables and the debug sections, which are
//! all laid out after the segments. The section header fields are zeroed
//! so that the shorter file is still a well-formed ELF. Symbolizing a
//! task's fault uses the full ELF under `target/`, not this copy.

/// Offsets in an ELF64 header.
const E_PHOFF: usize = 0x20;
const E_SHOFF: usize = 0x28;
const E_PHENTSIZE: usize = 0x36;
const E_PHNUM: usize = 0x38;
const E_SHNUM: usize = 0x3c;
const E_SHSTRNDX: usize = 0x3e;
const HEADER_LEN: usize = 0x40;
/// Offsets in an ELF64 program header.
const P_OFFSET: usize = 0x08;
const P_FILESZ: usize = 0x20;
const PHDR_LEN: usize = 0x38;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(v)
}

/// `elf` cut after its last program-header-covered byte, without section
/// headers. An error names what is wrong with a file that is not a
/// little-endian ELF64 or whose program headers point outside it.
pub fn loadable_only(elf: &[u8]) -> Result<Vec<u8>, String> {
    if elf.len() < HEADER_LEN || &elf[..4] != b"\x7fELF" || elf[4] != 2 || elf[5] != 1 {
        return Err("not a little-endian 64-bit ELF file".into());
    }
    let phoff =
        usize::try_from(u64_at(elf, E_PHOFF)).map_err(|_| "program header offset too large")?;
    let phentsize = usize::from(u16_at(elf, E_PHENTSIZE));
    let phnum = usize::from(u16_at(elf, E_PHNUM));
    if phentsize < PHDR_LEN {
        return Err(format!(
            "program headers of {phentsize} bytes (an ELF64 one is {PHDR_LEN})"
        ));
    }
    let table_end = phnum
        .checked_mul(phentsize)
        .and_then(|n| n.checked_add(phoff))
        .filter(|&end| end <= elf.len())
        .ok_or("the program header table runs past the end of the file")?;
    let mut end = table_end.max(HEADER_LEN);
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        let seg_end = u64_at(elf, ph + P_OFFSET)
            .checked_add(u64_at(elf, ph + P_FILESZ))
            .and_then(|e| usize::try_from(e).ok())
            .filter(|&e| e <= elf.len())
            .ok_or_else(|| format!("program header {i} points past the end of the file"))?;
        end = end.max(seg_end);
    }
    let mut out = elf[..end].to_vec();
    out[E_SHOFF..E_SHOFF + 8].fill(0);
    out[E_SHNUM..E_SHNUM + 2].fill(0);
    out[E_SHSTRNDX..E_SHSTRNDX + 2].fill(0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header, one program header covering bytes 0x78..0x80, then 32
    /// bytes standing for debug sections, and section headers named.
    fn elf() -> Vec<u8> {
        let mut b = vec![0u8; 0xa0];
        b[..6].copy_from_slice(b"\x7fELF\x02\x01");
        b[E_PHOFF..E_PHOFF + 8].copy_from_slice(&0x40u64.to_le_bytes());
        b[E_SHOFF..E_SHOFF + 8].copy_from_slice(&0x80u64.to_le_bytes());
        b[E_PHENTSIZE..E_PHENTSIZE + 2].copy_from_slice(&(PHDR_LEN as u16).to_le_bytes());
        b[E_PHNUM..E_PHNUM + 2].copy_from_slice(&1u16.to_le_bytes());
        b[E_SHNUM..E_SHNUM + 2].copy_from_slice(&3u16.to_le_bytes());
        b[E_SHSTRNDX..E_SHSTRNDX + 2].copy_from_slice(&2u16.to_le_bytes());
        let ph = 0x40;
        b[ph + P_OFFSET..ph + P_OFFSET + 8].copy_from_slice(&0x78u64.to_le_bytes());
        b[ph + P_FILESZ..ph + P_FILESZ + 8].copy_from_slice(&8u64.to_le_bytes());
        b[0x78..0x80].copy_from_slice(b"segment!");
        b
    }

    #[test]
    fn keeps_the_segments_and_drops_what_follows() {
        let out = loadable_only(&elf()).unwrap();
        assert_eq!(out.len(), 0x80);
        assert_eq!(&out[0x78..], b"segment!");
        assert_eq!(u64_at(&out, E_SHOFF), 0);
        assert_eq!((u16_at(&out, E_SHNUM), u16_at(&out, E_SHSTRNDX)), (0, 0));
        assert_eq!(out[..E_SHOFF], elf()[..E_SHOFF]);
    }

    #[test]
    fn a_segment_past_the_end_is_refused() {
        let mut b = elf();
        b[0x40 + P_FILESZ..0x40 + P_FILESZ + 8].copy_from_slice(&0x100u64.to_le_bytes());
        let e = loadable_only(&b).unwrap_err();
        assert!(e.contains("program header 0 points past the end"), "{e}");
    }

    #[test]
    fn other_files_are_refused() {
        assert!(loadable_only(b"\x7fELF")
            .unwrap_err()
            .contains("64-bit ELF"));
        let mut b = elf();
        b[4] = 1;
        assert!(loadable_only(&b).unwrap_err().contains("64-bit ELF"));
        let mut b = elf();
        b[E_PHNUM..E_PHNUM + 2].copy_from_slice(&100u16.to_le_bytes());
        assert!(loadable_only(&b).unwrap_err().contains("runs past the end"));
    }
}
