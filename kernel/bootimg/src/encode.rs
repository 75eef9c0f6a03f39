//! Writing a boot image (host side, used by the runner).
//!
//! The encoder lays the records out and then parses its own output, so the
//! kernel's validation is the only definition of a well-formed image.

use alloc::vec::Vec;

use crate::tables::{CapRecord, ObjectRecord};
use crate::{
    BootImage, ImageError, TaskRecord, ELF_ALIGN, HEADER_LEN, MAGIC, NAME_MAX, NO_SUPERVISOR,
    RECORD_LEN, TABLE_RECORD_LEN, VERSION,
};

/// Everything a boot image holds.
#[derive(Clone, Debug)]
pub struct Image<'a> {
    pub system_name: &'a str,
    /// Index of the supervisor task, if any.
    pub supervisor: Option<u8>,
    /// Tasks in start order.
    pub tasks: Vec<TaskRecord<'a>>,
    pub objects: Vec<ObjectRecord>,
    pub caps: Vec<CapRecord>,
}

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

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
}

/// Lays out `image` and checks the result exactly as the kernel will.
pub fn encode(image: &Image<'_>) -> Result<Vec<u8>, ImageError> {
    let tables_end = HEADER_LEN
        + image.tasks.len() * RECORD_LEN
        + (image.objects.len() + image.caps.len()) * TABLE_RECORD_LEN;
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
    put_name(&mut out, image.system_name, None)?;
    put(&mut out, &(image.objects.len() as u16).to_le_bytes());
    put(&mut out, &(image.caps.len() as u16).to_le_bytes());
    out.push(image.supervisor.unwrap_or(NO_SUPERVISOR));
    put(&mut out, &[0; 3]);
    for (i, (t, &off)) in image.tasks.iter().zip(&offsets).enumerate() {
        put_name(&mut out, t.name, Some(i as u32))?;
        put(&mut out, &(off as u64).to_le_bytes());
        put(&mut out, &(t.elf.len() as u64).to_le_bytes());
        put(&mut out, &t.stack_size.to_le_bytes());
        put(&mut out, &t.heap_size.to_le_bytes());
        out.push(t.priority);
        out.push(t.restart as u8);
        put(&mut out, &[0; 6]);
    }
    for o in &image.objects {
        out.push(o.kind as u8);
        put(&mut out, &[0; 3]);
        put(&mut out, &o.owner.to_le_bytes());
        put(&mut out, &o.a.to_le_bytes());
        put(&mut out, &o.b.to_le_bytes());
        put(&mut out, &[0; 8]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Restart, TABLE_RECORD_LEN};
    use conflux_abi::cap::{rights, ObjectKind};

    fn task<'a>(name: &'a str, elf: &'a [u8]) -> TaskRecord<'a> {
        TaskRecord {
            name,
            elf,
            stack_size: 4096,
            heap_size: 8192,
            priority: 3,
            restart: Restart::OnFault,
        }
    }

    fn image() -> Image<'static> {
        Image {
            system_name: "demo",
            supervisor: Some(0),
            tasks: vec![task("one", b"\x7fELF-one"), task("two", b"ELF2")],
            objects: vec![
                ObjectRecord {
                    kind: ObjectKind::Endpoint,
                    owner: 1,
                    a: 0,
                    b: 0,
                },
                ObjectRecord {
                    kind: ObjectKind::Notification,
                    owner: 0,
                    a: 0,
                    b: 0,
                },
                ObjectRecord {
                    kind: ObjectKind::Irq,
                    owner: 1,
                    a: 3,
                    b: 5,
                },
                ObjectRecord {
                    kind: ObjectKind::Region,
                    owner: 0,
                    a: 8192,
                    b: 0,
                },
            ],
            caps: vec![
                CapRecord {
                    task: 0,
                    slot: 1,
                    object: 0,
                    rights: rights::WRITE,
                    badge: 7,
                    map_vaddr: 0,
                },
                CapRecord {
                    task: 1,
                    slot: 1,
                    object: 0,
                    rights: rights::READ,
                    badge: 0,
                    map_vaddr: 0,
                },
                CapRecord {
                    task: 1,
                    slot: 2,
                    object: 3,
                    rights: rights::READ,
                    badge: 0,
                    map_vaddr: 0x2000_0000_0000,
                },
            ],
        }
    }

    fn sample() -> Vec<u8> {
        encode(&image()).unwrap()
    }

    /// Offset of the first object record in `sample()`.
    const OBJ: usize = HEADER_LEN + 2 * RECORD_LEN;
    const CAP: usize = OBJ + 4 * TABLE_RECORD_LEN;

    #[test]
    fn round_trip_keeps_every_field() {
        let bytes = sample();
        let img = BootImage::parse(&bytes).unwrap();
        assert_eq!(img.system_name(), "demo");
        assert_eq!(img.supervisor(), Some(0));
        let tasks: Vec<_> = img.tasks().collect();
        assert_eq!(tasks, image().tasks);
        assert_eq!(img.objects().collect::<Vec<_>>(), image().objects);
        assert_eq!(img.caps().collect::<Vec<_>>(), image().caps);
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
        assert!(matches!(
            BootImage::parse(&b[..b.len() - 1]).unwrap_err(),
            ImageError::Truncated { .. }
        ));
        assert!(matches!(
            BootImage::parse(&b[..10]).unwrap_err(),
            ImageError::Truncated { need: 64, have: 10 }
        ));
    }

    #[test]
    fn rejects_bad_task_records() {
        let rec = HEADER_LEN;
        let mut b = sample();
        b[rec + 32] = 1; // misaligned ELF offset
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
        b[rec + 57] = 9; // restart policy
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadPolicy { task: Some(0) }
        );
        let mut b = sample();
        b[60] = 5; // supervisor out of range
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadPolicy { task: None }
        );
        let mut b = sample();
        b[12] = 0;
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadCount {
                what: "tasks",
                count: 0
            }
        );
    }

    #[test]
    fn rejects_bad_objects_and_caps() {
        let mut b = sample();
        b[OBJ + 4] = 9; // endpoint served by task 9
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadObject { object: 0 }
        );
        let mut b = sample();
        b[OBJ + 2 * TABLE_RECORD_LEN + 4] = 0; // IRQ bound to object 0, an endpoint
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadObject { object: 2 }
        );
        let mut b = sample();
        b[OBJ + 3 * TABLE_RECORD_LEN + 8] = 1; // region size not a page multiple
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadObject { object: 3 }
        );
        let mut b = sample();
        b[CAP + 4] = rights::DMA; // DMA right on an endpoint
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadCap { cap: 0 }
        );
        let mut b = sample();
        b[CAP + 1] = 64; // slot out of range
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadCap { cap: 0 }
        );
        let mut b = sample();
        b[CAP + 2 * TABLE_RECORD_LEN + 1] = 1; // second cap in task 1 slot 1
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::DuplicateSlot { cap: 2 }
        );
        let mut b = sample();
        b[CAP + 2 * TABLE_RECORD_LEN + 16] = 1; // map address not page aligned
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::BadCap { cap: 2 }
        );
        let mut b = sample();
        b[CAP + 30] = 1;
        assert_eq!(
            BootImage::parse(&b).unwrap_err(),
            ImageError::ReservedNotZero {
                what: "capability record",
                index: 0
            }
        );
    }

    #[test]
    fn kernel_devices_are_never_given_out() {
        let mut img = image();
        img.objects.push(ObjectRecord {
            kind: ObjectKind::IoPorts,
            owner: 0,
            a: 0x3f8,
            b: 8,
        });
        assert_eq!(
            encode(&img).unwrap_err(),
            ImageError::KernelDevice { object: 4 }
        );
        let mut img = image();
        img.objects.push(ObjectRecord {
            kind: ObjectKind::Mmio,
            owner: 0,
            a: 0xfee0_0000,
            b: 4096,
        });
        assert_eq!(
            encode(&img).unwrap_err(),
            ImageError::KernelDevice { object: 4 }
        );
        let mut img = image();
        img.objects.push(ObjectRecord {
            kind: ObjectKind::IoPorts,
            owner: 0,
            a: 0x2f8,
            b: 8,
        });
        assert!(encode(&img).is_ok(), "COM2 is not the kernel's");
    }

    #[test]
    fn encoder_refuses_what_it_cannot_represent() {
        let long = "x".repeat(32);
        let mut img = image();
        img.tasks[0].name = &long;
        assert_eq!(
            encode(&img).unwrap_err(),
            ImageError::BadName { task: Some(0) }
        );
        let mut img = image();
        img.tasks.clear();
        img.caps.clear();
        img.objects.clear();
        img.supervisor = None;
        assert_eq!(
            encode(&img).unwrap_err(),
            ImageError::BadCount {
                what: "tasks",
                count: 0
            }
        );
        let mut img = image();
        img.tasks[1].stack_size = 100;
        assert_eq!(encode(&img).unwrap_err(), ImageError::BadSize { task: 1 });
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
                    assert!(img.tasks().all(|t| !t.name.is_empty()));
                    assert!(img
                        .caps()
                        .all(|c| (c.slot as usize) < conflux_abi::cap::CAP_SLOTS));
                }
            }
        }
    }
}
