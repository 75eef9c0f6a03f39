//! The checked view of a boot image that the kernel reads.

use crate::{
    ImageError, ELF_ALIGN, HEADER_LEN, MAGIC, MAX_TASKS, NAME_MAX, PAGE_SIZE, RECORD_LEN, VERSION,
};

/// A boot image whose every field has been validated.
#[derive(Clone, Copy, Debug)]
pub struct BootImage<'a> {
    bytes: &'a [u8],
    count: usize,
}

/// One task as the image describes it (and as the encoder takes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskRecord<'a> {
    /// The task's name from the manifest.
    pub name: &'a str,
    /// The task's ELF file.
    pub elf: &'a [u8],
    /// Bytes of stack to map.
    pub stack_size: u32,
    /// Bytes of heap to map.
    pub heap_size: u32,
    /// Scheduling priority, 0 most urgent.
    pub priority: u8,
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(w)
}

/// Reads a NUL-padded name field of `NAME_MAX + 1` bytes.
fn name_at(b: &[u8], off: usize) -> Option<&str> {
    let field = &b[off..off + NAME_MAX + 1];
    let len = field.iter().position(|&c| c == 0)?;
    if len == 0 || field[len..].iter().any(|&c| c != 0) {
        return None;
    }
    core::str::from_utf8(&field[..len]).ok()
}

impl<'a> BootImage<'a> {
    /// Validates `bytes` as a boot image.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ImageError> {
        let have = bytes.len() as u64;
        if bytes.len() < HEADER_LEN {
            return Err(ImageError::Truncated {
                need: HEADER_LEN as u64,
                have,
            });
        }
        if bytes[..8] != MAGIC {
            return Err(ImageError::BadMagic);
        }
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(ImageError::BadVersion { found: version });
        }
        let count = u32_at(bytes, 12);
        if count == 0 || count as usize > MAX_TASKS {
            return Err(ImageError::BadTaskCount { count });
        }
        let total = u64_at(bytes, 16);
        let table_end = (HEADER_LEN + count as usize * RECORD_LEN) as u64;
        if total > have || total < table_end {
            return Err(ImageError::Truncated {
                need: total.max(table_end),
                have,
            });
        }
        let image = Self {
            bytes: &bytes[..total as usize],
            count: count as usize,
        };
        name_at(bytes, 24).ok_or(ImageError::BadName { task: None })?;
        if u64_at(bytes, 56) != 0 {
            return Err(ImageError::ReservedNotZero { task: None });
        }
        for i in 0..image.count {
            image.check_record(i, table_end)?;
        }
        Ok(image)
    }

    fn check_record(&self, i: usize, table_end: u64) -> Result<(), ImageError> {
        let task = i as u32;
        let off = HEADER_LEN + i * RECORD_LEN;
        let b = self.bytes;
        name_at(b, off).ok_or(ImageError::BadName { task: Some(task) })?;
        let (start, len) = (u64_at(b, off + 32), u64_at(b, off + 40));
        let end = start
            .checked_add(len)
            .ok_or(ImageError::BadElfRange { task })?;
        if start < table_end
            || end > b.len() as u64
            || !start.is_multiple_of(ELF_ALIGN as u64)
            || len == 0
        {
            return Err(ImageError::BadElfRange { task });
        }
        let (stack, heap) = (u32_at(b, off + 48), u32_at(b, off + 52));
        if stack == 0 || !stack.is_multiple_of(PAGE_SIZE) || !heap.is_multiple_of(PAGE_SIZE) {
            return Err(ImageError::BadSize { task });
        }
        if b[off + 57..off + RECORD_LEN].iter().any(|&c| c != 0) {
            return Err(ImageError::ReservedNotZero { task: Some(task) });
        }
        Ok(())
    }

    /// The system's name from the manifest.
    pub fn system_name(&self) -> &'a str {
        name_at(self.bytes, 24).unwrap_or("?")
    }

    /// Number of tasks.
    pub fn task_count(&self) -> usize {
        self.count
    }

    /// Task `i` in start order, or `None` past the end.
    pub fn task(&self, i: usize) -> Option<TaskRecord<'a>> {
        if i >= self.count {
            return None;
        }
        let off = HEADER_LEN + i * RECORD_LEN;
        let b = self.bytes;
        let start = u64_at(b, off + 32) as usize;
        let len = u64_at(b, off + 40) as usize;
        Some(TaskRecord {
            name: name_at(b, off).unwrap_or("?"),
            elf: b.get(start..start + len).unwrap_or(&[]),
            stack_size: u32_at(b, off + 48),
            heap_size: u32_at(b, off + 52),
            priority: b[off + 56],
        })
    }

    /// All tasks in start order.
    pub fn tasks(&self) -> impl Iterator<Item = TaskRecord<'a>> + '_ {
        (0..self.count).filter_map(|i| self.task(i))
    }
}
