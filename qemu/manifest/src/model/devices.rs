//! PCI devices as the validated manifest holds them: what QEMU must
//! provide (kind, PCI address, backing image, port forwards) and which
//! kernel objects give the driver task its device.

use std::fmt;
use std::path::PathBuf;

use super::GeneratedFile;

/// One `[devices.NAME]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub name: String,
    pub kind: DeviceKind,
    /// The driver task's index in start order.
    pub driver: usize,
    /// Bus, device and function (`conflux_abi::pci::Bdf`): bus 0, the
    /// slot given by declaration order from `FIRST_DEVICE_SLOT`, function 0.
    pub bdf: u16,
    /// The GSI of the function's INTA# (`Bdf::inta_gsi`).
    pub gsi: u8,
    /// Bytes of the driver's DMA pool.
    pub dma_size: u64,
    /// The disk's contents (virtio-blk only).
    pub disk: Option<DiskImage>,
    /// Host TCP ports forwarded to the guest (virtio-net only).
    pub forwards: Vec<Forward>,
    /// Guest ports at 10.0.2.100 carried to host loopback ports (virtio-net
    /// only).
    pub guest_forwards: Vec<GuestForward>,
    /// The MAC address as written (virtio-net only), `52:54:00:12:34:56`.
    pub mac: Option<String>,
    /// The kernel objects made for the device.
    pub objects: DeviceObjects,
    /// The tasks the driver serves, each with its shared region
    /// (`NAME.clientI`) and completion notification (`NAME.clientI.done`).
    pub clients: Vec<DeviceClient>,
}

/// One client of a device's driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceClient {
    /// The client task's index in start order.
    pub task: usize,
    /// Object id of the region shared between client and driver.
    pub region: usize,
    /// Object id of the notification the driver signals on completions.
    pub done: usize,
}

/// What a device is, as QEMU names the kind (`virtio-blk` is QEMU's
/// `virtio-blk-pci`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    VirtioBlk,
    VirtioNet,
    VirtioCrypto,
}

/// Where a virtio-blk disk's contents come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiskImage {
    /// An existing raw image file, relative to the manifest's directory
    /// (joined with it here; not made absolute).
    File(PathBuf),
    /// A fresh zero-filled raw image of this many MiB, made for each run.
    Fresh { size_mib: u32 },
    /// An ext4 image of `size_mib` MiB that the runner builds from the
    /// host folder `folder` (joined with the manifest's directory) with
    /// `mke2fs -t ext4 -b 4096 -d`, and keeps across runs; `generate`
    /// files are added to a staging copy of the folder first.
    Folder {
        folder: PathBuf,
        size_mib: u32,
        generate: Vec<GeneratedFile>,
    },
}

/// `hostfwd=PROTO:127.0.0.1:HOST-:GUEST`: a host port on the loopback
/// address only, forwarded to a guest port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forward {
    pub host: u16,
    pub guest: u16,
    pub protocol: Protocol,
}

/// `guestfwd=tcp:10.0.2.100:GUEST_PORT-tcp:127.0.0.1:HOST`: a TCP port the
/// guest connects to at [`GUEST_FORWARD_ADDR`], carried to the host's
/// loopback port `host`. QEMU connects to the host port when it starts (the
/// guest's connection then runs over that one host connection), so
/// something must listen there before boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuestForward {
    pub guest_port: u16,
    pub host: u16,
}

/// The address the guest reaches the host's forwarded ports at (in QEMU's
/// user network 10.0.2.0/24, outside DHCP's range, not the gateway).
pub const GUEST_FORWARD_ADDR: [u8; 4] = [10, 0, 2, 100];

/// Which transport a forward carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    #[default]
    Tcp,
    Udp,
}

impl Protocol {
    pub const NAMES: &'static [&'static str] = &["tcp", "udp"];

    /// QEMU's (and the manifest's) name for it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tcp => "tcp",
            Self::Udp => "udp",
        }
    }
}

/// Object ids of a device's kernel objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceObjects {
    /// `NAME.config`: the function's configuration page.
    pub config: usize,
    /// `NAME.bar`: BAR 4, the virtio modern registers.
    pub bar: usize,
    /// `NAME.notify`: the notification the interrupt signals (bit 0).
    pub notify: usize,
    /// `NAME.irq`: the INTx line.
    pub irq: usize,
    /// `NAME.dma`: the DMA pool.
    pub dma: usize,
}

impl DeviceObjects {
    /// Every id, in the order they are made.
    pub fn all(&self) -> [usize; 5] {
        [self.config, self.bar, self.notify, self.irq, self.dma]
    }
}

impl Device {
    /// Every object made for the device and its clients.
    pub fn all_objects(&self) -> Vec<usize> {
        let mut all = self.objects.all().to_vec();
        all.extend(self.clients.iter().flat_map(|c| [c.region, c.done]));
        all
    }

    /// The doorbell badge of client `i`: bit `1 + i` of the device's
    /// notification (bit 0 is the interrupt).
    pub fn doorbell_badge(i: usize) -> u64 {
        1 << (1 + i)
    }

    /// The badge of the supervisor's "client `i` is gone" capability: bit
    /// `32 + i` of the device's notification (`device_gone`).
    pub fn gone_badge(i: usize) -> u64 {
        1 << (32 + i)
    }

    /// The device's PCI slot on bus 0.
    pub fn slot(&self) -> u8 {
        (self.bdf >> 3 & 0x1f) as u8
    }
}

impl DeviceKind {
    pub const ALL: [DeviceKind; 3] = [
        DeviceKind::VirtioBlk,
        DeviceKind::VirtioNet,
        DeviceKind::VirtioCrypto,
    ];
    pub const NAMES: &'static [&'static str] = &["virtio-blk", "virtio-net", "virtio-crypto"];

    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::VirtioBlk => "virtio-blk",
            DeviceKind::VirtioNet => "virtio-net",
            DeviceKind::VirtioCrypto => "virtio-crypto",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Self::ALL[i])
    }

    /// The PCI device id of the modern (virtio 1.0) device: 0x1040 + the
    /// virtio device type.
    pub fn pci_device_id(self) -> u16 {
        match self {
            DeviceKind::VirtioBlk => 0x1042,
            DeviceKind::VirtioNet => 0x1041,
            DeviceKind::VirtioCrypto => 0x1054,
        }
    }
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
