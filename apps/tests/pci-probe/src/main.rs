//! PCI probe: the driver of the three devices in `qemu/tests/pci-probe.toml`
//! (a virtio-blk, a virtio-net and a virtio-crypto). Through the
//! capabilities the manifest gives a driver, for each device it reads the
//! vendor and device id from its configuration page, walks the capability
//! list to the virtio common-configuration structure in BAR 4, reads the
//! device's feature bits through the mapped BAR (and, selecting the high
//! word, that it offers VIRTIO_F_VERSION_1), checks its IRQ and
//! notification capabilities with `cap_info`, and learns its DMA pool's
//! physical address.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::cap::{rights, ObjectKind};
use conflux_userlib::ipc::{Region, Slot};
use conflux_userlib::println;
use conflux_userlib::region::Mapped;

conflux_userlib::entry!(main);

use config::{caps, devices};

/// Red Hat's PCI vendor id, which virtio devices carry.
const VIRTIO_VENDOR: u64 = 0x1af4;
/// Configuration space: status register (bit 4: capability list) and the
/// capability pointer.
const STATUS: u64 = 0x06;
const CAP_POINTER: u64 = 0x34;
/// Vendor-specific capability; virtio's structures are such capabilities.
const CAP_VENDOR: u64 = 0x09;
/// `cfg_type` of the common-configuration structure.
const VIRTIO_PCI_CAP_COMMON_CFG: u64 = 1;
/// The feature bit of a modern (1.0) device: bit 32, so bit 0 of word 1.
const VIRTIO_F_VERSION_1_HIGH: u64 = 1;

/// One device's capabilities, as generated for this task.
struct Device {
    name: &'static str,
    kind: &'static str,
    bdf: u16,
    device_id: u16,
    config: (usize, u64, usize),
    bar: (usize, u64, usize),
    irq: usize,
    notify: usize,
    dma: (usize, u64, usize),
}

fn main() {
    let all = [
        Device {
            name: "disk0",
            kind: devices::DISK0_KIND,
            bdf: devices::DISK0_BDF,
            device_id: devices::DISK0_DEVICE_ID,
            config: (
                caps::DISK0_CONFIG,
                caps::DISK0_CONFIG_ADDR,
                caps::DISK0_CONFIG_SIZE,
            ),
            bar: (
                caps::DISK0_BAR,
                caps::DISK0_BAR_ADDR,
                caps::DISK0_BAR_WINDOW,
            ),
            irq: caps::DISK0_IRQ,
            notify: caps::DISK0_IRQ_NOTIFY,
            dma: (caps::DISK0_DMA, caps::DISK0_DMA_ADDR, caps::DISK0_DMA_SIZE),
        },
        Device {
            name: "net0",
            kind: devices::NET0_KIND,
            bdf: devices::NET0_BDF,
            device_id: devices::NET0_DEVICE_ID,
            config: (
                caps::NET0_CONFIG,
                caps::NET0_CONFIG_ADDR,
                caps::NET0_CONFIG_SIZE,
            ),
            bar: (caps::NET0_BAR, caps::NET0_BAR_ADDR, caps::NET0_BAR_WINDOW),
            irq: caps::NET0_IRQ,
            notify: caps::NET0_IRQ_NOTIFY,
            dma: (caps::NET0_DMA, caps::NET0_DMA_ADDR, caps::NET0_DMA_SIZE),
        },
        Device {
            name: "crypto0",
            kind: devices::CRYPTO0_KIND,
            bdf: devices::CRYPTO0_BDF,
            device_id: devices::CRYPTO0_DEVICE_ID,
            config: (
                caps::CRYPTO0_CONFIG,
                caps::CRYPTO0_CONFIG_ADDR,
                caps::CRYPTO0_CONFIG_SIZE,
            ),
            bar: (
                caps::CRYPTO0_BAR,
                caps::CRYPTO0_BAR_ADDR,
                caps::CRYPTO0_BAR_WINDOW,
            ),
            irq: caps::CRYPTO0_IRQ,
            notify: caps::CRYPTO0_IRQ_NOTIFY,
            dma: (
                caps::CRYPTO0_DMA,
                caps::CRYPTO0_DMA_ADDR,
                caps::CRYPTO0_DMA_SIZE,
            ),
        },
    ];
    let mut failed = 0;
    for device in &all {
        failed += probe(device);
    }
    if failed == 0 {
        println!("all {} devices probed", all.len());
    } else {
        println!("CHECK FAILED: {failed} checks failed");
    }
}

/// The byte, 16-bit or 32-bit value at `offset` (read as the aligned word
/// around it: `Mapped` reads whole words).
fn read(mapped: &Mapped, offset: u64, bytes: u32) -> u64 {
    let word = mapped.read_u64(offset & !7).unwrap_or(u64::MAX);
    let value = word >> ((offset & 7) * 8);
    value & (u64::MAX >> (64 - 8 * bytes))
}

/// Checks one device; returns the number of failed checks.
fn probe(d: &Device) -> u32 {
    let mut failed = 0;
    let mut check = |ok: bool, what: core::fmt::Arguments<'_>| {
        if ok {
            println!("ok: {}: {what}", d.name);
        } else {
            println!("CHECK FAILED: {}: {what}", d.name);
            failed += 1;
        }
    };
    let config = Region(d.config.0).premapped(d.config.1, d.config.2);
    let (vendor, device_id) = (read(&config, 0, 2), read(&config, 2, 2));
    check(
        vendor == VIRTIO_VENDOR && device_id == u64::from(d.device_id),
        format_args!(
            "{} at bdf {:#06x}: vendor {vendor:#06x} device {device_id:#06x}",
            d.kind, d.bdf
        ),
    );
    // Walk the capability list to the common configuration in BAR 4.
    let mut common = None;
    if read(&config, STATUS, 2) & 0x10 != 0 {
        let mut at = read(&config, CAP_POINTER, 1) & !3;
        for _ in 0..48 {
            if at < 0x40 {
                break;
            }
            let (id, next) = (read(&config, at, 1), read(&config, at + 1, 1));
            if id == CAP_VENDOR && read(&config, at + 3, 1) == VIRTIO_PCI_CAP_COMMON_CFG {
                let bar = read(&config, at + 4, 1);
                let offset = read(&config, at + 8, 4);
                let length = read(&config, at + 12, 4);
                common = Some((bar, offset, length));
                break;
            }
            at = next & !3;
        }
    }
    let Some((bar, offset, length)) = common else {
        check(
            false,
            format_args!("no virtio common-configuration capability"),
        );
        return failed;
    };
    check(
        bar == 4 && offset + length <= d.bar.2 as u64,
        format_args!("common configuration in BAR {bar} at {offset:#x}, {length} bytes"),
    );
    if bar != 4 {
        return failed;
    }
    let common = Region(d.bar.0).premapped(d.bar.1 + offset, 8);
    // device_feature_select (u32 at 0) then device_feature (u32 at 4);
    // select each word explicitly (the firmware may have left word 1
    // selected: SeaBIOS probes virtio-blk disks).
    let _ = common.write_u64(0, 0);
    let low = common.read_u64(0).unwrap_or(0) >> 32;
    let _ = common.write_u64(0, 1);
    let high = common.read_u64(0).unwrap_or(0) >> 32;
    check(
        high & VIRTIO_F_VERSION_1_HIGH != 0 && low != 0,
        format_args!(
            "device_feature through the BAR: low {low:#010x} high {high:#010x} (VERSION_1)"
        ),
    );
    let irq = Slot(d.irq).info();
    let rw = rights::READ | rights::WRITE;
    check(
        matches!(irq, Ok((kind, r, _)) if kind == ObjectKind::Irq as u8 && r == rw),
        format_args!("IRQ capability: {irq:?}"),
    );
    let notify = Slot(d.notify).info();
    check(
        matches!(notify, Ok((kind, r, _)) if kind == ObjectKind::Notification as u8 && r == rights::READ),
        format_args!("IRQ notification capability: {notify:?}"),
    );
    let dma = Region(d.dma.0);
    let pool = dma.premapped(d.dma.1, d.dma.2);
    let _ = pool.write_u64(0, 0x5a5a_0000 | u64::from(d.bdf));
    let phys = dma.phys(0);
    check(
        matches!(phys, Ok(p) if p != 0 && p % 4096 == 0)
            && pool.read_u64(0) == Ok(0x5a5a_0000 | u64::from(d.bdf)),
        format_args!("DMA pool of {} bytes, physical address known", d.dma.2),
    );
    failed
}
