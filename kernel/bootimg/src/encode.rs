//! Writing a boot image (host side, used by the runner).

use alloc::vec::Vec;

use crate::{
    ImageError, TaskRecord, ELF_ALIGN, HEADER_LEN, MAGIC, MAX_TASKS, NAME_MAX, PAGE_SIZE,
    RECORD_LEN, VERSION,
};

fn put_name(out: &mut Vec<u8>, name: &str, task: Option<u32>) -> Result<(), ImageError> {
    if name.is_empty() || name.len() > NAME_MAX || name.contains('\0') {
        return Err(ImageError::BadName { task });
    }
    out.extend_from_slice(name.as_bytes());
    out.resize(out.len() + NAME_MAX + 1 - name.len(), 0);
    Ok(())
}

fn align_up(n: usize) -> usize {
    n.div_ceil(ELF_ALIGN) * ELF_ALIGN
}

/// Lays out `tasks` (already in start order) into an image.
pub fn encode(system_name: &str, tasks: &[TaskRecord<'_>]) -> Result<Vec<u8>, ImageError> {
    if tasks.is_empty() || tasks.len() > MAX_TASKS {
        return Err(ImageError::BadTaskCount {
            count: tasks.len() as u32,
        });
    }
    let table_end = HEADER_LEN + tasks.len() * RECORD_LEN;
    let mut offsets = Vec::with_capacity(tasks.len());
    let mut cursor = align_up(table_end);
    for t in tasks {
        offsets.push(cursor);
        cursor = align_up(cursor + t.elf.len());
    }
    let mut out = Vec::with_capacity(cursor);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(tasks.len() as u32).to_le_bytes());
    out.extend_from_slice(&(cursor as u64).to_le_bytes());
    put_name(&mut out, system_name, None)?;
    out.extend_from_slice(&0u64.to_le_bytes());
    for (i, (t, &off)) in tasks.iter().zip(&offsets).enumerate() {
        let task = i as u32;
        if t.stack_size == 0
            || !t.stack_size.is_multiple_of(PAGE_SIZE)
            || !t.heap_size.is_multiple_of(PAGE_SIZE)
        {
            return Err(ImageError::BadSize { task });
        }
        if t.elf.is_empty() {
            return Err(ImageError::BadElfRange { task });
        }
        put_name(&mut out, t.name, Some(task))?;
        out.extend_from_slice(&(off as u64).to_le_bytes());
        out.extend_from_slice(&(t.elf.len() as u64).to_le_bytes());
        out.extend_from_slice(&t.stack_size.to_le_bytes());
        out.extend_from_slice(&t.heap_size.to_le_bytes());
        out.push(t.priority);
        out.extend_from_slice(&[0; 7]);
    }
    for (t, &off) in tasks.iter().zip(&offsets) {
        out.resize(off, 0);
        out.extend_from_slice(t.elf);
    }
    out.resize(cursor, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BootImage;

    fn spec<'a>(name: &'a str, elf: &'a [u8]) -> TaskRecord<'a> {
        TaskRecord {
            name,
            elf,
            stack_size: 4096,
            heap_size: 8192,
            priority: 3,
        }
    }

    fn sample() -> Vec<u8> {
        encode("demo", &[spec("one", b"\x7fELF-one"), spec("two", b"ELF2")]).unwrap()
    }

    #[test]
    fn round_trip_keeps_every_field() {
        let bytes = sample();
        let img = BootImage::parse(&bytes).unwrap();
        assert_eq!(img.system_name(), "demo");
        let tasks: Vec<_> = img.tasks().collect();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].name, "one");
        assert_eq!(tasks[0].elf, b"\x7fELF-one");
        assert_eq!(tasks[1].elf, b"ELF2");
        assert_eq!(
            (tasks[1].stack_size, tasks[1].heap_size, tasks[1].priority),
            (4096, 8192, 3)
        );
    }

    #[test]
    fn rejects_bad_magic_version_and_truncation() {
        let mut b = sample();
        b[0] = b'X';
        assert_eq!(BootImage::parse(&b).unwrap_err(), ImageError::BadMagic);
        let mut b = sample();
        b[8] = 9;
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadVersion { found: 9 }
        );
        let b = sample();
        let short = &b[..b.len() - 1];
        assert!(matches!(
            BootImage::parse(short).unwrap_err(),
            ImageError::Truncated { .. }
        ));
        assert!(matches!(
            BootImage::parse(&b[..10]).unwrap_err(),
            ImageError::Truncated { need: 64, have: 10 }
        ));
    }

    #[test]
    fn rejects_bad_records() {
        let rec = HEADER_LEN;
        let mut b = sample();
        b[rec + 32] = 1; // misaligned ELF offset
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadElfRange { task: 0 }
        );
        let mut b = sample();
        b[rec + 40..rec + 48].copy_from_slice(&u64::MAX.to_le_bytes()); // length overflows
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadElfRange { task: 0 }
        );
        let mut b = sample();
        b[rec + RECORD_LEN + 48] = 1; // stack not page multiple
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadSize { task: 1 }
        );
        let mut b = sample();
        b[rec] = 0; // empty name
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadName { task: Some(0) }
        );
        let mut b = sample();
        b[rec + 60] = 1;
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::ReservedNotZero { task: Some(0) }
        );
        let mut b = sample();
        b[12] = 0;
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadTaskCount { count: 0 }
        );
    }

    #[test]
    fn encoder_refuses_what_it_cannot_represent() {
        let long = "x".repeat(32);
        assert_eq!(
            encode("demo", &[spec(&long, b"E")]).unwrap_err(),
            ImageError::BadName { task: Some(0) }
        );
        assert_eq!(
            encode("demo", &[]).unwrap_err(),
            ImageError::BadTaskCount { count: 0 }
        );
        let mut s = spec("a", b"E");
        s.stack_size = 100;
        assert_eq!(
            encode("demo", &[s]).unwrap_err(),
            ImageError::BadSize { task: 0 }
        );
    }

    #[test]
    fn parse_never_panics_on_any_prefix_or_bitflip() {
        let b = sample();
        for n in 0..b.len() {
            let _ = BootImage::parse(&b[..n]);
        }
        for i in 0..b.len() {
            for bit in 0..8 {
                let mut m = b.clone();
                m[i] ^= 1 << bit;
                if let Ok(img) = BootImage::parse(&m) {
                    for t in img.tasks() {
                        assert!(!t.name.is_empty());
                    }
                }
            }
        }
    }
}
