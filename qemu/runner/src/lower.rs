//! Manifest → boot image tables.
//!
//! The validated manifest already holds every decision (object ids, slot
//! numbers, rights, badges, map addresses), made once in
//! `conflux-manifest` so that the generated task constants and the image
//! cannot disagree. Lowering only re-encodes them as the kernel's typed records
//! (see `conflux_bootimg` for the layout); `encode` then checks the result
//! with the kernel's own parser.

use conflux_abi::pci::Bdf;
use conflux_bootimg::{CapRecord, Image, ObjectEntry, ObjectRecord, Restart, TaskRecord};
use conflux_manifest::{Manifest, Object, ObjectSpec};

/// The boot image for `manifest`, with `elfs[i]` the ELF of task `i` (start
/// order).
///
/// # Panics
///
/// If `elfs` is shorter than the task list, or a value the manifest's
/// validation bounds (task, slot, object counts) does not fit its field.
pub fn image<'a>(manifest: &'a Manifest, elfs: &'a [Vec<u8>]) -> Image<'a> {
    Image {
        system_name: &manifest.system.name,
        supervisor: manifest.supervisor().map(|(index, _)| narrow(index)),
        tasks: manifest
            .tasks
            .iter()
            .zip(elfs)
            .map(|(task, elf)| TaskRecord {
                name: &task.name,
                elf,
                stack_size: task.stack_size,
                heap_size: task.heap_size,
                priority: task.priority,
                cpu: narrow(task.cpu),
                restart: match task.restart {
                    conflux_manifest::Restart::Never => Restart::Never,
                    // The image's policy is informative (init decides,
                    // from its generated tables); it has no exit policy.
                    conflux_manifest::Restart::OnFault | conflux_manifest::Restart::Always => {
                        Restart::OnFault
                    }
                },
            })
            .collect(),
        objects: manifest.objects.iter().map(object).collect(),
        caps: caps(manifest),
    }
}

fn object(object: &Object) -> ObjectEntry<'_> {
    let record = match object.spec {
        ObjectSpec::Endpoint { server } | ObjectSpec::Faults { supervisor: server } => {
            ObjectRecord::Endpoint {
                server: narrow(server),
            }
        }
        ObjectSpec::Notification => ObjectRecord::Notification,
        ObjectSpec::Region { size } => ObjectRecord::Region { size },
        ObjectSpec::Mmio { phys, size } => ObjectRecord::Mmio { phys, size },
        ObjectSpec::Irq {
            line,
            notification,
            bit,
        } => ObjectRecord::Irq {
            line: narrow(line),
            notification: narrow(notification),
            bit: narrow(bit),
        },
        ObjectSpec::IoPorts {
            base,
            count,
            device,
        } => ObjectRecord::IoPorts {
            base: narrow(base),
            count: narrow(count),
            device,
        },
        ObjectSpec::PciConfig { bdf } => ObjectRecord::PciConfig { bdf: Bdf(bdf) },
        ObjectSpec::PciBar { bdf, bar } => ObjectRecord::PciBar { bdf: Bdf(bdf), bar },
    };
    ObjectEntry {
        name: &object.name,
        object: record,
    }
}

/// Every task's capabilities, task by task in slot order.
fn caps(manifest: &Manifest) -> Vec<CapRecord> {
    let records = manifest.tasks.iter().enumerate().flat_map(|(task, t)| {
        t.caps.iter().map(move |cap| CapRecord {
            task: narrow(task),
            slot: narrow(cap.slot),
            object: narrow(cap.object),
            rights: cap.rights,
            badge: cap.badge,
            map_vaddr: cap.map_vaddr.unwrap_or(0),
        })
    });
    records.collect()
}

/// A number the manifest's limits keep within `T`.
fn narrow<T: TryFrom<U>, U>(value: U) -> T {
    T::try_from(value)
        .ok()
        .expect("the manifest's limits keep indices within the image's fields")
}

#[cfg(test)]
mod tests {
    use super::*;
    use conflux_abi::cap::rights;
    use conflux_abi::layout::{PAGE_SIZE, REGION_BASE};
    use conflux_bootimg::{encode, BootImage};

    const MANIFEST: &str = r#"
        [system]
        name = "every-kind"
        supervisor = "init"

        [tasks.client]
        crate = "client"
        priority = 3
        start_order = 3
        restart = "on-fault"

        [tasks.client.caps]
        echo = { endpoint = "echo", rights = "wg", badge = 7 }
        events = { notification = "events", rights = "r" }
        shared = { region = "shared", rights = "rwd" }
        dev = { mmio = "uart" }

        [tasks.init]
        crate = "init"
        priority = 1
        start_order = 1

        [tasks.driver]
        crate = "driver"
        priority = 2
        start_order = 2

        [tasks.driver.caps]
        irq = { irq = "com2" }
        io = { ioports = "com2" }
        shared = { region = "shared", rights = "r" }

        [endpoints.echo]
        server = "driver"

        [notifications.events]

        [regions.shared]
        size = 8192

        [mmio.uart]
        phys = 0xfebd0000
        size = 4096

        [irqs.com2]
        line = 3
        notification = "events"
        bit = 5

        [ioports.com2]
        base = 0x2f8
        count = 8
    "#;

    fn named(name: &str, object: ObjectRecord) -> ObjectEntry<'_> {
        ObjectEntry { name, object }
    }

    fn cap(task: u8, slot: u8, object: u16, rights: u8, badge: u64, map: u64) -> CapRecord {
        CapRecord {
            task,
            slot,
            object,
            rights,
            badge,
            map_vaddr: map,
        }
    }

    #[test]
    fn lowers_every_kind_and_encodes() {
        let manifest = conflux_manifest::parse(MANIFEST, "every-kind.toml").unwrap();
        let elfs = vec![
            b"\x7fELF-init".to_vec(),
            b"\x7fELF-drv".to_vec(),
            b"\x7fELF".to_vec(),
        ];
        let image = image(&manifest, &elfs);
        let names: Vec<&str> = image.tasks.iter().map(|t| t.name).collect();
        assert_eq!(names, ["init", "driver", "client"]);
        assert_eq!(image.supervisor, Some(0));
        assert_eq!(image.tasks[2].restart, Restart::OnFault);
        assert_eq!(image.tasks[0].restart, Restart::Never);
        // Endpoints, notifications, regions, MMIO, IRQs, I/O ports, then the
        // supervisor's fault endpoint.
        assert_eq!(
            image.objects,
            [
                named("echo", ObjectRecord::Endpoint { server: 1 }),
                named("events", ObjectRecord::Notification),
                named("shared", ObjectRecord::Region { size: 8192 }),
                named(
                    "uart",
                    ObjectRecord::Mmio {
                        phys: 0xfebd_0000,
                        size: 4096
                    }
                ),
                named(
                    "com2",
                    ObjectRecord::Irq {
                        line: 3,
                        notification: 1,
                        bit: 5
                    }
                ),
                named(
                    "com2",
                    ObjectRecord::IoPorts {
                        base: 0x2f8,
                        count: 8,
                        device: None
                    }
                ),
                named("faults", ObjectRecord::Endpoint { server: 0 }),
            ]
        );
        let (r, w, g, d) = (rights::READ, rights::WRITE, rights::GRANT, rights::DMA);
        let second_map = REGION_BASE + 8192 + PAGE_SIZE;
        assert_eq!(
            image.caps,
            [
                // init: the fault endpoint in slot 1.
                cap(0, 1, 6, r, 0, 0),
                // driver: its caps, then a receive cap for the endpoint it serves.
                cap(1, 1, 4, r | w, 0, 0),
                cap(1, 2, 5, r | w, 0, 0),
                cap(1, 3, 2, r, 0, REGION_BASE),
                cap(1, 4, 0, r, 0, 0),
                // client: mappings in slot order with a guard page between.
                cap(2, 1, 0, w | g, 7, 0),
                cap(2, 2, 1, r, 0, 0),
                cap(2, 3, 2, r | w | d, 0, REGION_BASE),
                cap(2, 4, 3, r | w, 0, second_map),
            ]
        );
        let bytes = encode(&image).unwrap();
        let parsed = BootImage::parse(&bytes).unwrap();
        assert_eq!(parsed.caps().collect::<Vec<_>>(), image.caps);
        assert_eq!(parsed.objects().collect::<Vec<_>>(), image.objects);
    }

    #[test]
    fn a_kernel_device_grant_reaches_the_image() {
        let text =
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
            [tasks.a.caps]\npci = { ioports = \"pci\" }\n\
            [ioports.pci]\nbase = 0xcf8\ncount = 8\nkernel_device = \"pci-config\"\n";
        let manifest = conflux_manifest::parse(text, "t.toml").unwrap();
        let elfs = vec![b"\x7fELF".to_vec()];
        let bytes = encode(&image(&manifest, &elfs)).unwrap();
        let parsed = BootImage::parse(&bytes).unwrap();
        assert_eq!(
            parsed.object(0).map(|o| o.object),
            Some(ObjectRecord::IoPorts {
                base: 0xcf8,
                count: 8,
                device: Some(conflux_abi::devices::KernelDevice::PciConfig)
            })
        );
    }

    #[test]
    fn a_system_without_objects_lowers_to_empty_tables() {
        let text =
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n";
        let manifest = conflux_manifest::parse(text, "t.toml").unwrap();
        let elfs = vec![b"\x7fELF".to_vec()];
        let image = image(&manifest, &elfs);
        assert_eq!((image.objects.len(), image.caps.len()), (0, 0));
        assert_eq!(image.supervisor, None);
        assert!(encode(&image).is_ok());
    }

    #[test]
    fn a_device_lowers_to_pci_objects_resolved_at_boot() {
        let text = "[system]\nname = \"t\"\nsupervisor = \"a\"\n\
            [tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
            [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"a\"\nsize_mib = 1\n";
        let manifest = conflux_manifest::parse(text, "t.toml").unwrap();
        let elfs = vec![b"\x7fELF".to_vec()];
        let image = image(&manifest, &elfs);
        let bdf = Bdf(0x40);
        assert_eq!(
            image.objects,
            [
                named("disk0.config", ObjectRecord::PciConfig { bdf }),
                named("disk0.bar", ObjectRecord::PciBar { bdf, bar: 4 }),
                named("disk0.notify", ObjectRecord::Notification),
                named(
                    "disk0.irq",
                    ObjectRecord::Irq {
                        line: 20,
                        notification: 2,
                        bit: 0
                    }
                ),
                named("disk0.dma", ObjectRecord::Region { size: 256 * 1024 }),
                // The fault endpoint stays last.
                named("faults", ObjectRecord::Endpoint { server: 0 }),
            ]
        );
        let (r, w, d) = (rights::READ, rights::WRITE, rights::DMA);
        let bar = REGION_BASE + 2 * PAGE_SIZE;
        let dma = bar + conflux_manifest::BAR_WINDOW + PAGE_SIZE;
        assert_eq!(
            image.caps,
            [
                cap(0, 1, 5, r, 0, 0),
                cap(0, 2, 0, r | w, 0, REGION_BASE),
                cap(0, 3, 1, r | w, 0, bar),
                cap(0, 4, 3, r | w, 0, 0),
                cap(0, 5, 2, r, 0, 0),
                cap(0, 6, 4, r | w | d, 0, dma),
            ]
        );
        let bytes = encode(&image).unwrap();
        let parsed = BootImage::parse(&bytes).unwrap();
        assert_eq!(parsed.objects().collect::<Vec<_>>(), image.objects);
    }
}
