//! Object records: the kernel objects a manifest declares, typed.
//!
//! On disk every object record is the same 64 bytes (see the crate docs);
//! in memory it is an [`ObjectRecord`] whose variant holds exactly the
//! fields its kind has, so neither the runner nor the kernel ever reads a
//! field whose meaning depends on the kind. Bytes become a record only
//! through [`ObjectRecord::decode`], which checks every field of the kind
//! and that unused fields are zero; links between records (an IRQ's
//! notification) and the devices the kernel keeps are checked by
//! [`ObjectRecord::check_links`] once every kind is known. An I/O-port
//! range may cover a [`KernelDevice`] only if it names that device (the
//! manifest's `kernel_device`) and stays inside its ports.

use crate::{is_irq_line, ImageError, MAX_OBJECTS, MAX_REGION, MAX_TASKS, PAGE_SIZE};
use conflux_abi::cap::ObjectKind;
use conflux_abi::devices::{
    kernel_devices_in, overlaps, KernelDevice, RESERVED_MMIO, RESERVED_PORTS,
};
use conflux_abi::pci::Bdf;

/// Device byte of an MMIO record that is a PCI configuration page.
const MMIO_PCI_CONFIG: u8 = 1;
/// Device byte of an MMIO record that is a PCI BAR.
const MMIO_PCI_BAR: u8 = 2;

/// Size of one object record in bytes.
pub const OBJECT_RECORD_LEN: usize = 64;
/// Offsets inside an object record (after the 32-byte name).
const KIND: usize = 32;
const DEVICE: usize = 33;
const REFERENCE: usize = 36;
const A: usize = 40;
const B: usize = 48;
/// Byte ranges that must be zero.
const RESERVED: [core::ops::Range<usize>; 2] = [34..36, 56..64];

/// One kernel object, with the fields of its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectRecord {
    /// An IPC endpoint and the task (index in start order) that serves it.
    Endpoint { server: u8 },
    /// A word of signal bits.
    Notification,
    /// `size` bytes of zeroed RAM (whole pages).
    Region { size: u64 },
    /// Device registers at physical `phys` (page aligned, below 4 GiB).
    Mmio { phys: u64, size: u64 },
    /// Interrupt `line`, which sets `bit` of object `notification`.
    Irq {
        line: u8,
        notification: u16,
        bit: u8,
    },
    /// I/O ports `base..base + count`; `device` is the kernel device the
    /// manifest grants through them, if any.
    IoPorts {
        base: u16,
        count: u32,
        device: Option<KernelDevice>,
    },
    /// The configuration page of PCI function `bdf` (device memory; the
    /// kernel checks at boot that the function exists).
    PciConfig { bdf: Bdf },
    /// Memory BAR `bar` (0..6) of PCI function `bdf`: where the firmware
    /// put it is read, and its size probed, by the kernel at boot.
    PciBar { bdf: Bdf, bar: u8 },
}

/// An object record with the manifest's name for it, as the image holds
/// it (and as the encoder takes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectEntry<'a> {
    /// The object's name in the manifest (`echo` for `[endpoints.echo]`).
    pub name: &'a str,
    pub object: ObjectRecord,
}

fn page_multiple(n: u64) -> bool {
    n > 0 && n.is_multiple_of(PAGE_SIZE as u64)
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

impl ObjectRecord {
    /// The kind of kernel object this record makes.
    pub fn kind(&self) -> ObjectKind {
        match self {
            Self::Endpoint { .. } => ObjectKind::Endpoint,
            Self::Notification => ObjectKind::Notification,
            Self::Region { .. } => ObjectKind::Region,
            Self::Mmio { .. } | Self::PciConfig { .. } | Self::PciBar { .. } => ObjectKind::Mmio,
            Self::Irq { .. } => ObjectKind::Irq,
            Self::IoPorts { .. } => ObjectKind::IoPorts,
        }
    }

    /// The kernel device this record grants, if any.
    pub fn granted_device(&self) -> Option<KernelDevice> {
        match *self {
            Self::IoPorts { device, .. } => device,
            _ => None,
        }
    }

    /// The generic on-disk fields: (device, reference, a, b). For MMIO the
    /// device byte says where the range comes from: 0 fixed, 1 a PCI
    /// function's configuration page, 2 one of its BARs.
    fn fields(&self) -> (u8, u32, u64, u64) {
        match *self {
            Self::Endpoint { server } => (0, server.into(), 0, 0),
            Self::Notification => (0, 0, 0, 0),
            Self::Region { size } => (0, 0, size, 0),
            Self::Mmio { phys, size } => (0, 0, phys, size),
            Self::PciConfig { bdf } => (MMIO_PCI_CONFIG, 0, bdf.0.into(), 0),
            Self::PciBar { bdf, bar } => (MMIO_PCI_BAR, 0, bdf.0.into(), bar.into()),
            Self::Irq {
                line,
                notification,
                bit,
            } => (0, notification.into(), line.into(), bit.into()),
            Self::IoPorts {
                base,
                count,
                device,
            } => (device.map_or(0, |d| d as u8), 0, base.into(), count.into()),
        }
    }

    /// Writes the record's bytes after the name (`record[32..64]`).
    #[cfg(any(test, feature = "alloc"))]
    pub(crate) fn encode(&self, record: &mut [u8]) {
        let (device, reference, a, b) = self.fields();
        record[KIND] = self.kind() as u8;
        record[DEVICE] = device;
        record[REFERENCE..A].copy_from_slice(&reference.to_le_bytes());
        record[A..B].copy_from_slice(&a.to_le_bytes());
        record[B..B + 8].copy_from_slice(&b.to_le_bytes());
    }

    /// Reads and checks record `index` (the 64 bytes of `record`) of an
    /// image with `tasks` tasks: every field in range for its kind, unused
    /// fields and reserved bytes zero.
    pub(crate) fn decode(index: u32, record: &[u8], tasks: usize) -> Result<Self, ImageError> {
        let bad = ImageError::BadObject { object: index };
        if RESERVED
            .iter()
            .any(|r| record[r.clone()].iter().any(|&b| b != 0))
        {
            return Err(ImageError::ReservedNotZero {
                what: "object record",
                index,
            });
        }
        let kind = ObjectKind::from_raw(record[KIND]).ok_or(bad)?;
        let (device, reference, a, b) = (
            record[DEVICE],
            u32_at(record, REFERENCE),
            u64_at(record, A),
            u64_at(record, B),
        );
        let object = match kind {
            ObjectKind::Endpoint if (reference as usize) < tasks.min(MAX_TASKS) => Self::Endpoint {
                server: reference as u8,
            },
            ObjectKind::Notification => Self::Notification,
            ObjectKind::Region if page_multiple(a) && a <= MAX_REGION => Self::Region { size: a },
            ObjectKind::Mmio if device == MMIO_PCI_CONFIG && a <= u16::MAX as u64 => {
                Self::PciConfig { bdf: Bdf(a as u16) }
            }
            ObjectKind::Mmio if device == MMIO_PCI_BAR && a <= u16::MAX as u64 && b < 6 => {
                Self::PciBar {
                    bdf: Bdf(a as u16),
                    bar: b as u8,
                }
            }
            ObjectKind::Mmio
                if a.is_multiple_of(PAGE_SIZE as u64)
                    && page_multiple(b)
                    && b <= MAX_REGION
                    && a.checked_add(b).is_some_and(|end| end <= 1 << 32) =>
            {
                Self::Mmio { phys: a, size: b }
            }
            ObjectKind::Irq if is_irq_line(a) && b < 64 && (reference as usize) < MAX_OBJECTS => {
                Self::Irq {
                    line: a as u8,
                    notification: reference as u16,
                    bit: b as u8,
                }
            }
            ObjectKind::IoPorts if b > 0 && a.checked_add(b).is_some_and(|e| e <= 0x1_0000) => {
                Self::IoPorts {
                    base: a as u16,
                    count: b as u32,
                    device: KernelDevice::from_raw(device),
                }
            }
            // Replies are made only by `recv`, never declared.
            _ => return Err(bad),
        };
        // Fields the kind does not use must be zero, so that one record
        // has one reading.
        if object.fields() != (device, reference, a, b) {
            return Err(bad);
        }
        Ok(object)
    }

    /// Checks what one record cannot know alone: that an IRQ's
    /// notification is one (`kinds` is the whole table), and that no MMIO
    /// or port range touches a device the kernel keeps.
    pub(crate) fn check_links(
        &self,
        index: u32,
        kinds: &[Option<ObjectKind>],
    ) -> Result<(), ImageError> {
        let kernel_device = ImageError::KernelDevice { object: index };
        match *self {
            Self::Irq { notification, .. }
                if kinds.get(notification as usize) != Some(&Some(ObjectKind::Notification)) =>
            {
                Err(ImageError::BadObject { object: index })
            }
            Self::Mmio { phys, size } if overlaps(&RESERVED_MMIO, phys, size) => Err(kernel_device),
            Self::IoPorts { base, count, .. }
                if overlaps(&RESERVED_PORTS, base.into(), count.into()) =>
            {
                Err(kernel_device)
            }
            Self::IoPorts {
                base,
                count,
                device,
            } => check_grant(index, base.into(), count.into(), device),
            _ => Ok(()),
        }
    }
}

/// A port range may touch a kernel device only by naming it, and a range
/// that names one must stay inside that device's ports.
fn check_grant(
    index: u32,
    base: u64,
    count: u64,
    granted: Option<KernelDevice>,
) -> Result<(), ImageError> {
    let object = index;
    if let Some(device) = kernel_devices_in(base, count).find(|d| Some(*d) != granted) {
        return Err(ImageError::DeviceNotGranted { object, device });
    }
    match granted {
        Some(device) if !device.contains(base, count) => {
            Err(ImageError::DeviceOutside { object, device })
        }
        _ => Ok(()),
    }
}

/// Which tasks hold, through initial capabilities, the objects that grant
/// each kernel device (one bit per task), and which devices are granted.
#[derive(Default)]
pub(crate) struct DeviceHolders {
    tasks: [u64; KernelDevice::ALL.len()],
    granted: [bool; KernelDevice::ALL.len()],
}

impl DeviceHolders {
    /// Notes that `object` exists, held or not.
    pub(crate) fn object(&mut self, object: &ObjectRecord) {
        if let Some(d) = object.granted_device() {
            self.granted[d as usize - 1] = true;
        }
    }

    /// Notes that `task` holds `object`.
    pub(crate) fn held(&mut self, task: u8, object: &ObjectRecord) {
        if let Some(d) = object.granted_device() {
            self.tasks[d as usize - 1] |= 1 << (task as usize % MAX_TASKS);
        }
    }

    /// Every granted device goes to exactly one task.
    pub(crate) fn check(&self) -> Result<(), ImageError> {
        for (i, device) in KernelDevice::ALL.into_iter().enumerate() {
            let holders = self.tasks[i].count_ones();
            if self.granted[i] && holders != 1 {
                return Err(ImageError::DeviceHolders { device, holders });
            }
        }
        Ok(())
    }
}
