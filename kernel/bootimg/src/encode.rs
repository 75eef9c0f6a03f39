//! Writing a boot image (host side, used by the runner).
//!
//! The encoder lays the records out and then parses its own output, so the
//! kernel's validation is the only definition of a well-formed image.

use alloc::vec::Vec;

use crate::objects::{ObjectEntry, OBJECT_RECORD_LEN};
use crate::tables::CapRecord;
use crate::{
    BootImage, ImageError, TaskRecord, CAP_RECORD_LEN, ELF_ALIGN, HEADER_LEN, MAGIC, NAME_MAX,
    NO_SUPERVISOR, RECORD_LEN, VERSION,
};

/// Everything a boot image holds.
#[derive(Clone, Debug)]
pub struct Image<'a> {
    pub system_name: &'a str,
    /// Index of the supervisor task, if any.
    pub supervisor: Option<u8>,
    /// Tasks in start order.
    pub tasks: Vec<TaskRecord<'a>>,
    /// Kernel objects; their index is their id.
    pub objects: Vec<ObjectEntry<'a>>,
    pub caps: Vec<CapRecord>,
}

/// Appends `name` as a NUL-padded name field, or fails with `error`.
fn put_name(out: &mut Vec<u8>, name: &str, error: ImageError) -> Result<(), ImageError> {
    if name.is_empty() || name.len() > NAME_MAX || name.contains('\0') {
        return Err(error);
    }
    out.extend_from_slice(name.as_bytes());
    out.resize(out.len() + NAME_MAX + 1 - name.len(), 0);
    Ok(())
}

fn align_up(n: usize) -> usize {
    n.div_ceil(ELF_ALIGN) * ELF_ALIGN
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
}

/// Lays out `image` and checks the result exactly as the kernel will.
pub fn encode(image: &Image<'_>) -> Result<Vec<u8>, ImageError> {
    let tables_end = HEADER_LEN
        + image.tasks.len() * RECORD_LEN
        + image.objects.len() * OBJECT_RECORD_LEN
        + image.caps.len() * CAP_RECORD_LEN;
    let mut offsets = Vec::with_capacity(image.tasks.len());
    let mut cursor = align_up(tables_end);
    for t in &image.tasks {
        offsets.push(cursor);
        cursor = align_up(cursor + t.elf.len());
    }
    let mut out = Vec::with_capacity(cursor);
    put(&mut out, &MAGIC);
    put(&mut out, &VERSION.to_le_bytes());
    put(&mut out, &(image.tasks.len() as u32).to_le_bytes());
    put(&mut out, &(cursor as u64).to_le_bytes());
    put_name(
        &mut out,
        image.system_name,
        ImageError::BadName { task: None },
    )?;
    put(&mut out, &(image.objects.len() as u16).to_le_bytes());
    put(&mut out, &(image.caps.len() as u16).to_le_bytes());
    out.push(image.supervisor.unwrap_or(NO_SUPERVISOR));
    put(&mut out, &[0; 3]);
    for (i, (t, &off)) in image.tasks.iter().zip(&offsets).enumerate() {
        let task = Some(i as u32);
        put_name(&mut out, t.name, ImageError::BadName { task })?;
        put(&mut out, &(off as u64).to_le_bytes());
        put(&mut out, &(t.elf.len() as u64).to_le_bytes());
        put(&mut out, &t.stack_size.to_le_bytes());
        put(&mut out, &t.heap_size.to_le_bytes());
        out.push(t.priority);
        out.push(t.restart as u8);
        if t.cpu as usize >= crate::MAX_CPUS {
            return Err(ImageError::BadCpu { task: i as u32 });
        }
        out.push(t.cpu);
        put(&mut out, &[0; 5]);
    }
    for (i, o) in image.objects.iter().enumerate() {
        let start = out.len();
        let object = i as u32;
        put_name(&mut out, o.name, ImageError::BadObjectName { object })?;
        out.resize(start + OBJECT_RECORD_LEN, 0);
        o.object.encode(&mut out[start..]);
    }
    for c in &image.caps {
        put(&mut out, &[c.task, c.slot]);
        put(&mut out, &c.object.to_le_bytes());
        out.push(c.rights);
        put(&mut out, &[0; 3]);
        put(&mut out, &c.badge.to_le_bytes());
        put(&mut out, &c.map_vaddr.to_le_bytes());
        put(&mut out, &[0; 8]);
    }
    for (t, &off) in image.tasks.iter().zip(&offsets) {
        out.resize(off, 0);
        put(&mut out, t.elf);
    }
    out.resize(cursor, 0);
    BootImage::parse(&out)?;
    Ok(out)
}
