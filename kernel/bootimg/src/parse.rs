//! The checked view of a boot image that the kernel reads.

use crate::objects::{DeviceHolders, ObjectEntry, ObjectRecord, OBJECT_RECORD_LEN};
use crate::tables::{CapRecord, Restart};
use crate::{
    ImageError, CAP_RECORD_LEN, ELF_ALIGN, HEADER_LEN, MAGIC, MAX_CAPS, MAX_OBJECTS, MAX_TASKS,
    NAME_MAX, NO_SUPERVISOR, PAGE_SIZE, RECORD_LEN, VERSION,
};
use conflux_abi::cap::CAP_SLOTS;

/// A boot image whose every field has been validated.
#[derive(Clone, Copy, Debug)]
pub struct BootImage<'a> {
    bytes: &'a [u8],
    tasks: usize,
    objects: usize,
    caps: usize,
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
    /// What the supervisor does when this task faults.
    pub restart: Restart,
    /// The CPU that runs the task (below [`crate::MAX_CPUS`]).
    pub cpu: u8,
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
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

fn zero(b: &[u8]) -> bool {
    b.iter().all(|&c| c == 0)
}

fn count(
    value: u64,
    max: usize,
    what: &'static str,
    allow_zero: bool,
) -> Result<usize, ImageError> {
    if (value == 0 && !allow_zero) || value > max as u64 {
        return Err(ImageError::BadCount {
            what,
            count: value as u32,
        });
    }
    Ok(value as usize)
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
        let tasks = count(u32_at(bytes, 12) as u64, MAX_TASKS, "tasks", false)?;
        let objects = count(u16_at(bytes, 56) as u64, MAX_OBJECTS, "objects", true)?;
        let caps = count(u16_at(bytes, 58) as u64, MAX_CAPS, "capabilities", true)?;
        let total = u64_at(bytes, 16);
        let image = Self {
            bytes,
            tasks,
            objects,
            caps,
        };
        let tables_end = image.cap_offset(caps) as u64;
        if total > have || total < tables_end {
            return Err(ImageError::Truncated {
                need: total.max(tables_end),
                have,
            });
        }
        let image = Self {
            bytes: &bytes[..total as usize],
            ..image
        };
        name_at(bytes, 24).ok_or(ImageError::BadName { task: None })?;
        let sup = bytes[60];
        if sup != NO_SUPERVISOR && sup as usize >= tasks {
            return Err(ImageError::BadPolicy { task: None });
        }
        if !zero(&bytes[61..64]) {
            return Err(ImageError::ReservedNotZero {
                what: "header",
                index: 0,
            });
        }
        for i in 0..tasks {
            image.check_task(i, tables_end)?;
        }
        image.check_tables()?;
        Ok(image)
    }

    fn object_offset(&self, i: usize) -> usize {
        HEADER_LEN + self.tasks * RECORD_LEN + i * OBJECT_RECORD_LEN
    }

    fn cap_offset(&self, i: usize) -> usize {
        self.object_offset(self.objects) + i * CAP_RECORD_LEN
    }

    /// The 64 bytes of object record `i`.
    fn object_bytes(&self, i: usize) -> &'a [u8] {
        let off = self.object_offset(i);
        &self.bytes[off..off + OBJECT_RECORD_LEN]
    }

    fn check_task(&self, i: usize, tables_end: u64) -> Result<(), ImageError> {
        let task = i as u32;
        let off = HEADER_LEN + i * RECORD_LEN;
        let b = self.bytes;
        name_at(b, off).ok_or(ImageError::BadName { task: Some(task) })?;
        let (start, len) = (u64_at(b, off + 32), u64_at(b, off + 40));
        let end = start
            .checked_add(len)
            .ok_or(ImageError::BadElfRange { task })?;
        if start < tables_end
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
        Restart::from_raw(b[off + 57]).ok_or(ImageError::BadPolicy { task: Some(task) })?;
        if b[off + 58] as usize >= crate::MAX_CPUS {
            return Err(ImageError::BadCpu { task });
        }
        if !zero(&b[off + 59..off + RECORD_LEN]) {
            return Err(ImageError::ReservedNotZero {
                what: "task record",
                index: task,
            });
        }
        Ok(())
    }

    fn check_tables(&self) -> Result<(), ImageError> {
        let b = self.bytes;
        let mut kinds = [None; MAX_OBJECTS];
        for (i, k) in kinds.iter_mut().enumerate().take(self.objects) {
            let object = i as u32;
            name_at(self.object_bytes(i), 0).ok_or(ImageError::BadObjectName { object })?;
            *k = Some(ObjectRecord::decode(object, self.object_bytes(i), self.tasks)?.kind());
        }
        let kinds = &kinds[..self.objects];
        let mut holders = DeviceHolders::default();
        for (i, entry) in self.objects().enumerate() {
            entry.object.check_links(i as u32, kinds)?;
            holders.object(&entry.object);
        }
        let mut filled = [0u64; MAX_TASKS];
        for i in 0..self.caps {
            let off = self.cap_offset(i);
            if !zero(&b[off + 5..off + 8]) || !zero(&b[off + 24..off + 32]) {
                return Err(ImageError::ReservedNotZero {
                    what: "capability record",
                    index: i as u32,
                });
            }
            let c = self.cap_at(i);
            c.check(i as u32, kinds, self.tasks)?;
            let bit = 1u64 << (c.slot as usize % CAP_SLOTS);
            if filled[c.task as usize] & bit != 0 {
                return Err(ImageError::DuplicateSlot { cap: i as u32 });
            }
            filled[c.task as usize] |= bit;
            if let Some(held) = self.object(c.object as usize) {
                holders.held(c.task, &held.object);
            }
        }
        holders.check()
    }

    /// Object `i`, or `None` past the end.
    pub fn object(&self, i: usize) -> Option<ObjectEntry<'a>> {
        if i >= self.objects {
            return None;
        }
        let bytes = self.object_bytes(i);
        Some(ObjectEntry {
            name: name_at(bytes, 0).unwrap_or("?"),
            // `parse` decoded every record once, so this cannot fail.
            object: ObjectRecord::decode(i as u32, bytes, self.tasks)
                .unwrap_or(ObjectRecord::Notification),
        })
    }

    fn cap_at(&self, i: usize) -> CapRecord {
        let off = self.cap_offset(i);
        let b = self.bytes;
        CapRecord {
            task: b[off],
            slot: b[off + 1],
            object: u16_at(b, off + 2),
            rights: b[off + 4],
            badge: u64_at(b, off + 8),
            map_vaddr: u64_at(b, off + 16),
        }
    }

    /// The system's name from the manifest.
    pub fn system_name(&self) -> &'a str {
        name_at(self.bytes, 24).unwrap_or("?")
    }

    /// The task that receives fault messages, if the system has one.
    pub fn supervisor(&self) -> Option<usize> {
        let s = self.bytes[60];
        (s != NO_SUPERVISOR).then_some(s as usize)
    }

    /// Number of tasks.
    pub fn task_count(&self) -> usize {
        self.tasks
    }

    /// Task `i` in start order, or `None` past the end.
    pub fn task(&self, i: usize) -> Option<TaskRecord<'a>> {
        if i >= self.tasks {
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
            restart: Restart::from_raw(b[off + 57]).unwrap_or(Restart::Never),
            cpu: b[off + 58],
        })
    }

    /// All tasks in start order.
    pub fn tasks(&self) -> impl Iterator<Item = TaskRecord<'a>> + '_ {
        (0..self.tasks).filter_map(|i| self.task(i))
    }

    /// All kernel objects, in declaration order (their index is their id).
    pub fn objects(&self) -> impl Iterator<Item = ObjectEntry<'a>> + '_ {
        (0..self.objects).filter_map(|i| self.object(i))
    }

    /// All initial capabilities.
    pub fn caps(&self) -> impl Iterator<Item = CapRecord> + '_ {
        (0..self.caps).map(|i| self.cap_at(i))
    }
}
