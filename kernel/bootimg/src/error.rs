//! Why a boot image was rejected.
//!
//! The runner builds images, so a rejection in the kernel means a runner
//! and kernel from different versions, or a corrupted file: each variant
//! says which record was wrong so the mismatch can be found quickly.

use conflux_abi::devices::KernelDevice;
use core::fmt;

/// A malformed boot image, or data the encoder cannot represent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageError {
    /// The image is shorter than its header or than the length it claims.
    Truncated { need: u64, have: u64 },
    /// The first eight bytes are not `CFLXBOOT`.
    BadMagic,
    /// The image was written for another format version.
    BadVersion { found: u32 },
    /// A count is zero (tasks) or above its maximum.
    BadCount { what: &'static str, count: u32 },
    /// A name is empty, too long, not NUL-padded or not UTF-8
    /// (`task` is `None` for the system name).
    BadName { task: Option<u32> },
    /// A task's ELF file lies outside the image or is misaligned.
    BadElfRange { task: u32 },
    /// A task's stack or heap size is not a whole number of pages, or its
    /// stack is empty.
    BadSize { task: u32 },
    /// A task's restart policy or the supervisor index is not valid.
    BadPolicy { task: Option<u32> },
    /// A task's CPU is not below [`crate::MAX_CPUS`].
    BadCpu { task: u32 },
    /// An object record's fields do not fit its kind.
    BadObject { object: u32 },
    /// An object's name is empty, too long, not NUL-padded or not UTF-8.
    BadObjectName { object: u32 },
    /// An MMIO or I/O-port object overlaps a device the kernel keeps.
    KernelDevice { object: u32 },
    /// An I/O-port range overlaps `device`, a kernel device it does not
    /// name (the manifest's `kernel_device`).
    DeviceNotGranted { object: u32, device: KernelDevice },
    /// An I/O-port range that grants `device` reaches beyond its ports.
    DeviceOutside { object: u32, device: KernelDevice },
    /// A granted kernel device is held by `holders` tasks instead of one.
    DeviceHolders { device: KernelDevice, holders: u32 },
    /// A capability record names a bad task, slot, object, rights, badge or address.
    BadCap { cap: u32 },
    /// Two capability records fill the same slot of one task.
    DuplicateSlot { cap: u32 },
    /// A reserved field is not zero (`what` names the record).
    ReservedNotZero { what: &'static str, index: u32 },
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rebuild = "rebuild kernel and image together with the runner";
        match *self {
            Self::Truncated { need, have } => write!(f, "boot image truncated: needs {need} bytes, has {have}; {rebuild}"),
            Self::BadMagic => f.write_str("boot image has no CFLXBOOT magic: the initrd is not a Conflux boot image"),
            Self::BadVersion { found } => {
                write!(f, "boot image format version {found}, this kernel reads {}; {rebuild}", crate::VERSION)
            }
            Self::BadCount { what, count } => write!(f, "boot image lists {count} {what}: out of range"),
            Self::BadName { task: None } => f.write_str("boot image system name is empty, too long or not UTF-8"),
            Self::BadName { task: Some(i) } => write!(f, "boot image task record {i}: name is empty, too long or not UTF-8"),
            Self::BadElfRange { task } => {
                write!(f, "boot image task record {task}: ELF file lies outside the image or is misaligned")
            }
            Self::BadSize { task } => write!(
                f,
                "boot image task record {task}: stack/heap size is not a whole number of pages (or the stack is empty)"
            ),
            Self::BadPolicy { task: None } => f.write_str("boot image header: supervisor is not a task of the image"),
            Self::BadPolicy { task: Some(i) } => write!(f, "boot image task record {i}: unknown restart policy"),
            Self::BadCpu { task } => write!(
                f,
                "boot image task record {task}: CPU is not below {}",
                crate::MAX_CPUS
            ),
            Self::BadObject { object } => write!(f, "boot image object record {object}: fields do not fit its kind"),
            Self::BadObjectName { object } => write!(f, "boot image object record {object}: name is empty, too long or not UTF-8"),
            Self::KernelDevice { object } => write!(
                f,
                "boot image object record {object}: overlaps a device the kernel keeps for itself (console COM1, PIC, PIT, real-time clock, debug-exit port or an APIC); no task may be given it"
            ),
            Self::DeviceNotGranted { object, device } => {
                let (start, end) = device.ports();
                write!(
                    f,
                    "boot image object record {object}: overlaps ports {start:#x}..{end:#x}, {}, which the kernel keeps unless the record grants kernel device \"{}\"; {rebuild}",
                    device.description(),
                    device.name()
                )
            }
            Self::DeviceOutside { object, device } => {
                let (start, end) = device.ports();
                write!(
                    f,
                    "boot image object record {object}: grants kernel device \"{}\" but reaches beyond its ports {start:#x}..{end:#x}; {rebuild}",
                    device.name()
                )
            }
            Self::DeviceHolders { device, holders } => write!(
                f,
                "boot image grants kernel device \"{}\" to {holders} tasks; it must go to exactly one; {rebuild}",
                device.name()
            ),
            Self::BadCap { cap } => write!(
                f,
                "boot image capability record {cap}: bad task, slot, object, rights, badge or map address"
            ),
            Self::DuplicateSlot { cap } => {
                write!(f, "boot image capability record {cap}: fills a slot an earlier record already filled")
            }
            Self::ReservedNotZero { what, index } => write!(f, "boot image {what} {index}: reserved field is not zero"),
        }
    }
}
