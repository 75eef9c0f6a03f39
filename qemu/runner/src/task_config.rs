//! Filling each task's configuration section at image time.
//!
//! Every task links `conflux-userlib`, which reserves a `.conflux_config`
//! section of `conflux_task_config::SIZE` zero bytes. For each task of the
//! manifest, the runner writes into its copy of the ELF that task's name,
//! index and every integer constant the manifest gives it
//! (`conflux_manifest::task_values`), keyed by the task's name in the
//! manifest — so one crate's ELF becomes several tasks, each with its own
//! values. The file's bytes are patched in place: the section is plain
//! data inside a loaded segment, so nothing else in the ELF moves.

use conflux_manifest::Manifest;
use conflux_task_config::{encode, SECTION};
use std::ops::Range;

/// Writes the configuration of the task at `index` into `elf`.
pub fn fill(elf: &mut [u8], manifest: &Manifest, index: usize) -> Result<(), String> {
    let task = &manifest.tasks[index];
    let range = section(elf, SECTION).map_err(|e| {
        format!(
            "task `{}` (crate `{}`): {e}; every task must be built with conflux-userlib's `entry!`, which reserves the section",
            task.name, task.crate_name
        )
    })?;
    let values = conflux_manifest::task_values(manifest, index);
    let entries = values.iter().map(|(k, v)| (k.as_str(), *v));
    encode(&mut elf[range], index as u32, &task.name, entries).map_err(|e| {
        format!(
            "task `{}` (crate `{}`): cannot write its configuration: {e}",
            task.name, task.crate_name
        )
    })
}

/// The file bytes of section `name` of a little-endian ELF64 file.
fn section(elf: &[u8], name: &str) -> Result<Range<usize>, String> {
    let field = |at: usize, len: usize| -> Result<u64, String> {
        let bytes = elf
            .get(at..at + len)
            .ok_or_else(|| format!("the ELF is cut short at byte {at}"))?;
        let mut v = [0u8; 8];
        v[..len].copy_from_slice(bytes);
        Ok(u64::from_le_bytes(v))
    };
    if elf.get(0..6) != Some(&[0x7f, b'E', b'L', b'F', 2, 1][..]) {
        return Err("not a little-endian ELF64 file".into());
    }
    let (shoff, shentsize, shnum, shstrndx) = (
        field(0x28, 8)? as usize,
        field(0x3a, 2)? as usize,
        field(0x3c, 2)? as usize,
        field(0x3e, 2)? as usize,
    );
    let header = |i: usize| shoff + i * shentsize;
    let names = field(header(shstrndx) + 0x18, 8)? as usize;
    for i in 0..shnum {
        let h = header(i);
        let name_at = names + field(h, 4)? as usize;
        let found = elf
            .get(name_at..)
            .and_then(|rest| rest.split(|&b| b == 0).next())
            .is_some_and(|n| n == name.as_bytes());
        if !found {
            continue;
        }
        const NOBITS: u64 = 8;
        if field(h + 4, 4)? == NOBITS {
            return Err(format!(
                "its section {name} has no bytes in the file (NOBITS)"
            ));
        }
        let (offset, size) = (field(h + 0x18, 8)? as usize, field(h + 0x20, 8)? as usize);
        if elf.len() < offset + size {
            return Err(format!("its section {name} runs past the end of the ELF"));
        }
        return Ok(offset..offset + size);
    }
    Err(format!("its ELF has no {name} section"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 with a null section, `.conflux_config` of `size`
    /// bytes at offset 0x100, and the section-name table.
    fn elf(size: usize) -> Vec<u8> {
        let names = b"\0.conflux_config\0.shstrtab\0";
        let shoff = 0x100 + size + names.len();
        let mut e = vec![0u8; shoff + 3 * 64];
        e[..6].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1]);
        e[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
        e[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        e[0x3c..0x3e].copy_from_slice(&3u16.to_le_bytes());
        e[0x3e..0x40].copy_from_slice(&2u16.to_le_bytes());
        let strtab = 0x100 + size;
        e[strtab..strtab + names.len()].copy_from_slice(names);
        let mut header = |i: usize, name: u32, ty: u32, offset: usize, len: usize| {
            let h = shoff + i * 64;
            e[h..h + 4].copy_from_slice(&name.to_le_bytes());
            e[h + 4..h + 8].copy_from_slice(&ty.to_le_bytes());
            e[h + 0x18..h + 0x20].copy_from_slice(&(offset as u64).to_le_bytes());
            e[h + 0x20..h + 0x28].copy_from_slice(&(len as u64).to_le_bytes());
        };
        header(1, 1, 1, 0x100, size);
        header(2, 17, 3, strtab, names.len());
        e
    }

    fn manifest() -> Manifest {
        conflux_manifest::parse(
            "[system]\nname = \"t\"\n\
             [tasks.a]\ncrate = \"c\"\npriority = 1\nstart_order = 1\n\
             [tasks.b]\ncrate = \"c\"\npriority = 2\nstart_order = 2\nheap_size = 8192\n",
            "t.toml",
        )
        .unwrap()
    }

    #[test]
    fn each_task_of_one_elf_gets_its_own_values() {
        let m = manifest();
        let built = elf(conflux_task_config::SIZE);
        let mut a = built.clone();
        let mut b = built;
        fill(&mut a, &m, 0).unwrap();
        fill(&mut b, &m, 1).unwrap();
        let range = 0x100..0x100 + conflux_task_config::SIZE;
        let a = conflux_task_config::Config::parse(&a[range.clone()]).unwrap();
        let b = conflux_task_config::Config::parse(&b[range]).unwrap();
        assert_eq!((a.name(), a.index()), ("a", 0));
        assert_eq!((b.name(), b.index()), ("b", 1));
        assert_eq!(a.get("PRIORITY"), Some(1));
        assert_eq!(b.get("PRIORITY"), Some(2));
        assert_eq!(b.get("HEAP_SIZE"), Some(8192));
    }

    #[test]
    fn a_section_of_another_size_is_refused() {
        let mut e = elf(4096);
        let error = fill(&mut e, &manifest(), 1).unwrap_err();
        assert_eq!(error, "task `b` (crate `c`): cannot write its configuration: the configuration section is 4096 bytes where 8192 were expected: the runner and the task come from different trees; rebuild both from one checkout");
    }

    #[test]
    fn an_elf_without_the_section_is_refused() {
        let mut e = elf(16);
        // Rename the section: `.conflux_config` -> `.conflux_cfxxxx`.
        let at = 0x100 + 16 + 1 + ".conflux_cf".len();
        e[at..at + 4].copy_from_slice(b"xxxx");
        let error = fill(&mut e, &manifest(), 0).unwrap_err();
        assert_eq!(error, "task `a` (crate `c`): its ELF has no .conflux_config section; every task must be built with conflux-userlib's `entry!`, which reserves the section");
        let error = fill(&mut [0u8; 64], &manifest(), 0).unwrap_err();
        assert!(error.ends_with("not a little-endian ELF64 file; every task must be built with conflux-userlib's `entry!`, which reserves the section"));
    }
}
