//! Creating the kernel objects the boot image declares (the object table
//! itself, and what the kernel does with objects, live in
//! `conflux_kcore::object`).

use conflux_abi::cap::ObjectKind;
use conflux_bootimg::ObjectRecord;
use conflux_kcore::object::Object;

/// Why an object could not be created at boot.
#[derive(Debug)]
pub struct NoMemory;

/// Makes the object `rec` describes; RAM regions get zeroed frames.
pub fn create(rec: &ObjectRecord) -> Result<Object, NoMemory> {
    Ok(match rec.kind {
        ObjectKind::Endpoint => Object::Endpoint {
            server: rec.owner as u8,
        },
        ObjectKind::Notification => Object::Notification { word: 0 },
        ObjectKind::Region => {
            let frames = rec.a / 4096;
            let phys = crate::mem::alloc_contiguous(frames as usize).ok_or(NoMemory)?;
            for f in 0..frames {
                // Safety: the frames were just allocated for this region.
                unsafe { crate::arch::paging::frame_bytes(phys + f * 4096).fill(0) };
            }
            Object::Memory {
                phys,
                size: rec.a,
                device: false,
            }
        }
        ObjectKind::Mmio => Object::Memory {
            phys: rec.a,
            size: rec.b,
            device: true,
        },
        ObjectKind::Irq => Object::Irq {
            line: rec.a as u8,
            notification: rec.owner as u16,
            bit: rec.b as u8,
        },
        ObjectKind::IoPorts => Object::IoPorts {
            base: rec.a as u16,
            count: rec.b as u32,
        },
        ObjectKind::Reply => Object::None,
    })
}
