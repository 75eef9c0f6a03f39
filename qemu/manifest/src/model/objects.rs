//! Kernel objects and capabilities as the validated manifest holds them.
//!
//! Objects are numbered by their place in [`Manifest::objects`]
//! (endpoints, notifications, regions, MMIO ranges, IRQs, I/O port ranges,
//! each in document order, then the supervisor's fault endpoint), and that
//! number is the object id in the boot image. A task's [`Cap`]s are its
//! filled slots, already numbered and, for regions and MMIO, placed in its
//! address space: the boot image and the generated constants both read
//! them from here, so they cannot disagree.
//!
//! [`Manifest::objects`]: crate::Manifest::objects

use std::fmt;
use std::str::FromStr;

use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::devices::KernelDevice;

use super::{variant, FileRights, UnknownVariant};

/// One declared kernel object (or the fault endpoint the supervisor gets);
/// `Ref` as in [`ObjectSpec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object<Ref = usize> {
    /// The key of its table (`echo` for `[endpoints.echo]`).
    pub name: String,
    pub spec: ObjectSpec<Ref>,
}

/// What an object is, with its fields. `Ref` is how it names a task or a
/// notification: an index (task index in start order, object id) once
/// validated, a name while being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectSpec<Ref = usize> {
    /// An IPC endpoint and the task that receives on it.
    Endpoint { server: Ref },
    /// A word of signal bits.
    Notification,
    /// Zeroed RAM, `size` bytes.
    Region { size: u64 },
    /// Device registers at physical address `phys`.
    Mmio { phys: u64, size: u64 },
    /// An interrupt line that sets `bit` of a notification.
    Irq {
        line: u64,
        notification: Ref,
        bit: u64,
    },
    /// I/O ports `base..base + count`; `device` is the kernel device the
    /// manifest grants through them (`kernel_device`), if any.
    IoPorts {
        base: u64,
        count: u64,
        device: Option<KernelDevice>,
    },
    /// The endpoint on which the kernel reports faults to the supervisor.
    Faults { supervisor: Ref },
    /// A PCI function's 4 KiB configuration page (ECAM); `bdf` as in
    /// `conflux_abi::pci::Bdf`. Made for a `[devices.*]` entry.
    PciConfig { bdf: u16 },
    /// A memory BAR of a PCI function, whose address and size the kernel
    /// reads at boot. Made for a `[devices.*]` entry.
    PciBar { bdf: u16, bar: u8 },
}

/// Virtual address space reserved for one BAR mapping: the kernel maps
/// the BAR's real size (16 KiB for QEMU's virtio BAR 4) at the start.
pub const BAR_WINDOW: u64 = 1024 * 1024;

/// One filled capability slot of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cap {
    /// The slot's name: the key in `[tasks.NAME.caps]`, the endpoint's name
    /// for a server's receive capability, `faults` for the supervisor's.
    pub name: String,
    /// 1 ..= `CAP_SLOTS - 1` (slot 0 stays empty).
    pub slot: usize,
    /// Index into [`crate::Manifest::objects`].
    pub object: usize,
    /// A bit set of `conflux_abi::cap::rights`.
    pub rights: u8,
    pub badge: u64,
    /// The client's quota of its server's resources, if the manifest
    /// gives one (endpoint capabilities only).
    pub quota: Option<u32>,
    /// Where a region or MMIO capability is mapped at start.
    pub map_vaddr: Option<u64>,
    /// What a client may do to a file server's tree through this
    /// capability (`root`, `access`; only written on a client's endpoint
    /// capability, the default everywhere else).
    pub files: FileRights,
}

/// What the supervisor does after a task ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Restart {
    /// The task stays stopped.
    #[default]
    Never,
    /// The supervisor starts a fresh instance after a fault or panic; an
    /// exit is the task's own decision and is left alone.
    OnFault,
    /// The supervisor starts a fresh instance after an exit too (a task
    /// that serves in rounds, or a test of departures).
    Always,
}

impl<Ref> ObjectSpec<Ref> {
    /// The kernel object kind this becomes.
    pub fn kind(&self) -> ObjectKind {
        match self {
            Self::Endpoint { .. } | Self::Faults { .. } => ObjectKind::Endpoint,
            Self::Notification => ObjectKind::Notification,
            Self::Region { .. } => ObjectKind::Region,
            Self::Mmio { .. } | Self::PciConfig { .. } | Self::PciBar { .. } => ObjectKind::Mmio,
            Self::Irq { .. } => ObjectKind::Irq,
            Self::IoPorts { .. } => ObjectKind::IoPorts,
        }
    }

    /// Bytes a capability to this object maps into its holder, if any.
    /// For a BAR, whose size only the kernel learns at boot, the window
    /// reserved for it ([`BAR_WINDOW`]).
    pub fn map_size(&self) -> Option<u64> {
        match self {
            Self::Region { size } | Self::Mmio { size, .. } => Some(*size),
            Self::PciConfig { .. } => Some(conflux_abi::pci::CONFIG_PAGE),
            Self::PciBar { .. } => Some(BAR_WINDOW),
            _ => None,
        }
    }
}

impl<R> ObjectSpec<R> {
    /// The same object with its references converted: `task` for an
    /// endpoint's server (or the supervisor), `notification` for an IRQ's.
    pub fn map_refs<S, E>(
        self,
        task: impl FnOnce(R) -> Result<S, E>,
        notification: impl FnOnce(R) -> Result<S, E>,
    ) -> Result<ObjectSpec<S>, E> {
        Ok(match self {
            Self::Endpoint { server } => ObjectSpec::Endpoint {
                server: task(server)?,
            },
            Self::Faults { supervisor } => ObjectSpec::Faults {
                supervisor: task(supervisor)?,
            },
            Self::Irq {
                line,
                notification: n,
                bit,
            } => ObjectSpec::Irq {
                line,
                notification: notification(n)?,
                bit,
            },
            Self::Notification => ObjectSpec::Notification,
            Self::Region { size } => ObjectSpec::Region { size },
            Self::Mmio { phys, size } => ObjectSpec::Mmio { phys, size },
            Self::IoPorts {
                base,
                count,
                device,
            } => ObjectSpec::IoPorts {
                base,
                count,
                device,
            },
            Self::PciConfig { bdf } => ObjectSpec::PciConfig { bdf },
            Self::PciBar { bdf, bar } => ObjectSpec::PciBar { bdf, bar },
        })
    }
}

impl ObjectSpec {
    /// The task that receives on this endpoint (declared or fault endpoint).
    pub fn server(&self) -> Option<usize> {
        match self {
            Self::Endpoint { server } | Self::Faults { supervisor: server } => Some(*server),
            _ => None,
        }
    }
}

impl Cap {
    /// The name of the slot's constant in the task's `caps` module.
    pub fn constant(&self) -> String {
        constant_name(&self.name)
    }
}

/// `name` as a Rust constant: upper case, `-` as `_`.
pub fn constant_name(name: &str) -> String {
    name.to_ascii_uppercase().replace('-', "_")
}

/// Rights letters in the order they are written back: r, w, g, d.
pub const RIGHT_LETTERS: [(char, u8, &str); 4] = [
    ('r', rights::READ, "read"),
    ('w', rights::WRITE, "write"),
    ('g', rights::GRANT, "grant"),
    ('d', rights::DMA, "dma"),
];

/// `rights` as the manifest writes it (`"rw"`; `""` for none).
pub fn rights_text(rights: u8) -> String {
    RIGHT_LETTERS
        .iter()
        .filter(|(_, bit, _)| rights & bit != 0)
        .map(|(letter, _, _)| letter)
        .collect()
}

impl Restart {
    pub const ALL: [Restart; 3] = [Restart::Never, Restart::OnFault, Restart::Always];
    pub const NAMES: &'static [&'static str] = &["never", "on-fault", "always"];

    pub fn as_str(self) -> &'static str {
        match self {
            Restart::Never => "never",
            Restart::OnFault => "on-fault",
            Restart::Always => "always",
        }
    }

    /// Restarted after a fault or panic.
    pub fn on_fault(self) -> bool {
        self != Restart::Never
    }

    /// Restarted after an exit.
    pub fn on_exit(self) -> bool {
        self == Restart::Always
    }
}

impl FromStr for Restart {
    type Err = UnknownVariant;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        variant(&Restart::ALL, Restart::NAMES, "restart policy", text)
    }
}

impl fmt::Display for Restart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restart_names_follow_variants() {
        let names: Vec<&str> = Restart::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names, Restart::NAMES);
    }

    #[test]
    fn rights_are_written_in_a_fixed_order() {
        assert_eq!(rights_text(rights::DMA | rights::READ), "rd");
        assert_eq!(rights_text(rights::ALL), "rwgd");
        assert_eq!(rights_text(0), "");
    }
}
