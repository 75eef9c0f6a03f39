//! Encode/parse round trips and one test per validation error, on a small
//! sample image whose bytes the tests corrupt one field at a time.

use crate::*;
use conflux_abi::cap::rights;
use conflux_abi::devices::KernelDevice;

fn task<'a>(name: &'a str, elf: &'a [u8]) -> TaskRecord<'a> {
    TaskRecord {
        name,
        elf,
        stack_size: 4096,
        heap_size: 8192,
        priority: 3,
        restart: Restart::OnFault,
        cpu: 1,
    }
}

fn entry(name: &str, object: ObjectRecord) -> ObjectEntry<'_> {
    ObjectEntry { name, object }
}

fn cap(task: u8, slot: u8, object: u16, rights: u8, badge: u64, map_vaddr: u64) -> CapRecord {
    CapRecord {
        task,
        slot,
        object,
        rights,
        badge,
        map_vaddr,
    }
}

/// One object of every kind.
fn image() -> Image<'static> {
    Image {
        system_name: "demo",
        supervisor: Some(0),
        tasks: vec![task("one", b"\x7fELF-one"), task("two", b"ELF2")],
        objects: vec![
            entry("echo", ObjectRecord::Endpoint { server: 1 }),
            entry("events", ObjectRecord::Notification),
            entry(
                "com2",
                ObjectRecord::Irq {
                    line: 3,
                    notification: 1,
                    bit: 5,
                },
            ),
            entry("shared", ObjectRecord::Region { size: 8192 }),
            entry(
                "uart",
                ObjectRecord::Mmio {
                    phys: 0xfebd_0000,
                    size: 4096,
                },
            ),
            entry(
                "com2-ports",
                ObjectRecord::IoPorts {
                    base: 0x2f8,
                    count: 8,
                    device: None,
                },
            ),
        ],
        caps: vec![
            cap(0, 1, 0, rights::WRITE, 7, 0),
            cap(1, 1, 0, rights::READ, 0, 0),
            cap(1, 2, 3, rights::READ, 0, 0x2000_0000_0000),
        ],
    }
}

fn sample() -> Vec<u8> {
    encode(&image()).unwrap()
}

fn parse_err(bytes: &[u8]) -> ImageError {
    BootImage::parse(bytes).unwrap_err()
}

/// Offset of object record `i` in `sample()`, and of capability record `i`.
fn obj(i: usize) -> usize {
    HEADER_LEN + 2 * RECORD_LEN + i * OBJECT_RECORD_LEN
}
fn cap_at(i: usize) -> usize {
    obj(6) + i * CAP_RECORD_LEN
}
/// Offsets of the fields inside an object record.
const KIND: usize = 32;
const REFERENCE: usize = 36;
const A: usize = 40;

#[test]
fn round_trip_keeps_every_field() {
    let bytes = sample();
    let img = BootImage::parse(&bytes).unwrap();
    assert_eq!(img.system_name(), "demo");
    assert_eq!(img.supervisor(), Some(0));
    let tasks: Vec<_> = img.tasks().collect();
    assert_eq!(tasks, image().tasks);
    assert_eq!(img.objects().collect::<Vec<_>>(), image().objects);
    assert_eq!(img.object(5), Some(image().objects[5]));
    assert_eq!(img.object(6), None);
    assert_eq!(img.caps().collect::<Vec<_>>(), image().caps);
}

#[test]
fn object_records_have_the_documented_layout() {
    let b = sample();
    let irq = &b[obj(2)..obj(3)];
    assert_eq!(&irq[..5], b"com2\0");
    assert_eq!(irq[KIND], 5);
    assert_eq!(irq[REFERENCE..REFERENCE + 4], 1u32.to_le_bytes());
    assert_eq!(irq[A..A + 8], 3u64.to_le_bytes());
    assert_eq!(irq[A + 8..A + 16], 5u64.to_le_bytes());
    assert!(irq[56..].iter().all(|&x| x == 0));
}

#[test]
fn rejects_bad_magic_version_and_truncation() {
    let mut b = sample();
    b[0] = b'X';
    assert_eq!(parse_err(&b), ImageError::BadMagic);
    let mut b = sample();
    b[8] = 9;
    assert_eq!(parse_err(&b), ImageError::BadVersion { found: 9 });
    let mut b = sample();
    b[8] = 2;
    assert_eq!(
        parse_err(&b).to_string(),
        "boot image format version 2, this kernel reads 3; rebuild kernel and image together with the runner"
    );
    let b = sample();
    assert!(matches!(
        parse_err(&b[..b.len() - 1]),
        ImageError::Truncated { .. }
    ));
    assert!(matches!(
        parse_err(&b[..10]),
        ImageError::Truncated { need: 64, have: 10 }
    ));
}

#[test]
fn rejects_bad_task_records() {
    let rec = HEADER_LEN;
    let mut b = sample();
    b[rec + 32] = 1; // misaligned ELF offset
    assert_eq!(parse_err(&b), ImageError::BadElfRange { task: 0 });
    let mut b = sample();
    b[rec + RECORD_LEN + 48] = 1; // stack not page multiple
    assert_eq!(parse_err(&b), ImageError::BadSize { task: 1 });
    let mut b = sample();
    b[rec] = 0; // empty name
    assert_eq!(parse_err(&b), ImageError::BadName { task: Some(0) });
    let mut b = sample();
    b[rec + 57] = 9; // restart policy
    assert_eq!(parse_err(&b), ImageError::BadPolicy { task: Some(0) });
    let mut b = sample();
    b[60] = 5; // supervisor out of range
    assert_eq!(parse_err(&b), ImageError::BadPolicy { task: None });
    let mut b = sample();
    b[12] = 0;
    assert_eq!(
        parse_err(&b),
        ImageError::BadCount {
            what: "tasks",
            count: 0
        }
    );
}

#[test]
fn rejects_object_fields_that_do_not_fit_the_kind() {
    let bad = |object| ImageError::BadObject { object };
    let cases: [(usize, u8, u32); 8] = [
        (obj(0) + REFERENCE, 9, 0),    // endpoint served by task 9
        (obj(0) + A, 1, 0),            // endpoint with a field it does not use
        (obj(1) + A, 1, 1),            // notification with a size
        (obj(2) + REFERENCE, 0, 2),    // IRQ bound to object 0, an endpoint
        (obj(2) + A, 15, 2),           // IRQ line 15 is not routed
        (obj(3) + A, 1, 3),            // region size not a page multiple
        (obj(4) + A, 0x10, 4),         // MMIO base not page aligned
        (obj(5) + A + 8 + 2, 0x01, 5), // I/O ports past 0xffff
    ];
    for (offset, value, object) in cases {
        let mut b = sample();
        b[offset] = value;
        assert_eq!(parse_err(&b), bad(object), "byte {offset} = {value:#x}");
    }
    let mut b = sample();
    b[obj(0) + KIND] = 7; // a reply object is never declared
    assert_eq!(parse_err(&b), bad(0));
    let mut b = sample();
    b[obj(0) + KIND] = 0;
    assert_eq!(parse_err(&b), bad(0));
    assert_eq!(
        bad(3).to_string(),
        "boot image object record 3: fields do not fit its kind"
    );
}

#[test]
fn rejects_bad_object_names_and_reserved_bytes() {
    let mut b = sample();
    b[obj(1)] = 0;
    assert_eq!(parse_err(&b), ImageError::BadObjectName { object: 1 });
    let mut b = sample();
    b[obj(1) + 31] = b'x'; // no terminating NUL
    assert_eq!(parse_err(&b), ImageError::BadObjectName { object: 1 });
    for offset in [34, 35, 56, 63] {
        let mut b = sample();
        b[obj(2) + offset] = 1;
        assert_eq!(
            parse_err(&b),
            ImageError::ReservedNotZero {
                what: "object record",
                index: 2
            }
        );
    }
}

#[test]
fn rejects_bad_caps() {
    let mut b = sample();
    b[cap_at(0) + 4] = rights::DMA; // DMA right on an endpoint
    assert_eq!(parse_err(&b), ImageError::BadCap { cap: 0 });
    let mut b = sample();
    b[cap_at(0) + 1] = 64; // slot out of range
    assert_eq!(parse_err(&b), ImageError::BadCap { cap: 0 });
    let mut b = sample();
    b[cap_at(2) + 1] = 1; // second cap in task 1 slot 1
    assert_eq!(parse_err(&b), ImageError::DuplicateSlot { cap: 2 });
    let mut b = sample();
    b[cap_at(2) + 16] = 1; // map address not page aligned
    assert_eq!(parse_err(&b), ImageError::BadCap { cap: 2 });
    let mut b = sample();
    b[cap_at(0) + 30] = 1;
    assert_eq!(
        parse_err(&b),
        ImageError::ReservedNotZero {
            what: "capability record",
            index: 0
        }
    );
}

#[test]
fn kernel_devices_are_never_given_out() {
    let with = |object| {
        let mut img = image();
        img.objects.push(entry("dev", object));
        encode(&img)
    };
    let com1 = ObjectRecord::IoPorts {
        base: 0x3f8,
        count: 8,
        device: None,
    };
    assert_eq!(
        with(com1).unwrap_err(),
        ImageError::KernelDevice { object: 6 }
    );
    let lapic = ObjectRecord::Mmio {
        phys: 0xfee0_0000,
        size: 4096,
    };
    assert_eq!(
        with(lapic).unwrap_err(),
        ImageError::KernelDevice { object: 6 }
    );
    let com3 = ObjectRecord::IoPorts {
        base: 0x3e8,
        count: 8,
        device: None,
    };
    assert!(with(com3).is_ok(), "COM3 is not the kernel's");
}

fn ports(base: u16, count: u32, device: Option<KernelDevice>) -> ObjectRecord {
    ObjectRecord::IoPorts {
        base,
        count,
        device,
    }
}

/// `image()` plus object 6, `object`, held by each task in `holders`.
fn granting(object: ObjectRecord, holders: &[u8]) -> Result<Vec<u8>, ImageError> {
    let mut img = image();
    img.objects.push(entry("dev", object));
    for &task in holders {
        img.caps.push(cap(task, 9, 6, rights::READ, 0, 0));
    }
    encode(&img)
}

#[test]
fn kernel_devices_need_an_explicit_grant() {
    use KernelDevice::*;
    let cases = [
        (ports(0xcf8, 8, None), PciConfig),
        (ports(0xcf9, 1, None), PciConfig), // the reset control register
        (ports(0x92, 1, None), SystemControl),
        (ports(0x600, 0x80, None), AcpiPm),
        (ports(0x604, 2, Some(PciConfig)), AcpiPm), // grants another device
    ];
    for (object, device) in cases {
        assert_eq!(
            granting(object, &[1]).unwrap_err(),
            ImageError::DeviceNotGranted { object: 6, device },
            "{object:?}"
        );
    }
    assert_eq!(
        ImageError::DeviceNotGranted {
            object: 6,
            device: PciConfig
        }
        .to_string(),
        "boot image object record 6: overlaps ports 0xcf8..0xd00, the PCI configuration ports (0xcf9 among them also resets the machine), which the kernel keeps unless the record grants kernel device \"pci-config\"; rebuild kernel and image together with the runner"
    );
}

#[test]
fn a_granted_kernel_device_round_trips() {
    let object = ports(0xcfc, 4, Some(KernelDevice::PciConfig));
    let bytes = granting(object, &[1]).unwrap();
    let img = BootImage::parse(&bytes).unwrap();
    assert_eq!(img.object(6).map(|o| o.object), Some(object));
    assert_eq!(bytes[obj(6) + KIND + 1], KernelDevice::PciConfig as u8);
}

#[test]
fn a_grant_stays_inside_its_device() {
    let beyond = ports(0xcf8, 16, Some(KernelDevice::PciConfig));
    assert_eq!(
        granting(beyond, &[1]).unwrap_err(),
        ImageError::DeviceOutside {
            object: 6,
            device: KernelDevice::PciConfig
        }
    );
    let elsewhere = ports(0x3e8, 8, Some(KernelDevice::AcpiPm));
    assert_eq!(
        granting(elsewhere, &[1]).unwrap_err(),
        ImageError::DeviceOutside {
            object: 6,
            device: KernelDevice::AcpiPm
        }
    );
}

#[test]
fn a_granted_kernel_device_goes_to_exactly_one_task() {
    let object = ports(0x92, 1, Some(KernelDevice::SystemControl));
    let holders = |holders| ImageError::DeviceHolders {
        device: KernelDevice::SystemControl,
        holders,
    };
    assert_eq!(granting(object, &[]).unwrap_err(), holders(0));
    assert_eq!(granting(object, &[0, 1]).unwrap_err(), holders(2));
    assert_eq!(
        holders(2).to_string(),
        "boot image grants kernel device \"system-control\" to 2 tasks; it must go to exactly one; rebuild kernel and image together with the runner"
    );
}

#[test]
fn only_port_ranges_carry_a_device() {
    let mut b = sample();
    b[obj(1) + KIND + 1] = KernelDevice::PciConfig as u8; // on a notification
    assert_eq!(parse_err(&b), ImageError::BadObject { object: 1 });
    let mut b = sample();
    b[obj(5) + KIND + 1] = 9; // no such device
    assert_eq!(parse_err(&b), ImageError::BadObject { object: 5 });
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
    img.objects[4].name = &long;
    assert_eq!(
        encode(&img).unwrap_err(),
        ImageError::BadObjectName { object: 4 }
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
    let mut img = image();
    img.objects[3].object = ObjectRecord::Region { size: 100 };
    assert_eq!(
        encode(&img).unwrap_err(),
        ImageError::BadObject { object: 3 }
    );
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
                assert!(img.objects().all(|o| !o.name.is_empty() && o.name != "?"));
                assert!(img
                    .caps()
                    .all(|c| (c.slot as usize) < conflux_abi::cap::CAP_SLOTS));
            }
        }
    }
}

fn pci_image(objects: Vec<ObjectEntry<'static>>) -> Image<'static> {
    Image {
        objects,
        caps: vec![],
        ..image()
    }
}

#[test]
fn pci_config_pages_bars_and_intx_lines_round_trip() {
    let bdf = conflux_abi::pci::Bdf::new(0, 8, 0).unwrap();
    let objects = vec![
        entry("events", ObjectRecord::Notification),
        entry("disk0-config", ObjectRecord::PciConfig { bdf }),
        entry("disk0-bar4", ObjectRecord::PciBar { bdf, bar: 4 }),
        entry(
            "disk0-irq",
            ObjectRecord::Irq {
                line: bdf.inta_gsi(),
                notification: 0,
                bit: 0,
            },
        ),
    ];
    let bytes = encode(&pci_image(objects.clone())).unwrap();
    let img = BootImage::parse(&bytes).unwrap();
    assert_eq!(img.objects().collect::<Vec<_>>(), objects);
    assert_eq!(objects[1].object.kind(), conflux_abi::cap::ObjectKind::Mmio);
    assert_eq!(objects[2].object.kind(), conflux_abi::cap::ObjectKind::Mmio);
}

#[test]
fn pci_records_with_impossible_fields_are_refused() {
    let bdf = conflux_abi::pci::Bdf::new(0, 8, 0).unwrap();
    let objects = vec![entry("bar", ObjectRecord::PciBar { bdf, bar: 4 })];
    let good = encode(&pci_image(objects)).unwrap();
    let at = HEADER_LEN + 2 * RECORD_LEN;
    let bad = ImageError::BadObject { object: 0 };
    let mut b = good.clone();
    b[at + A + 8] = 6; // there are six BARs, 0..=5
    assert_eq!(parse_err(&b), bad);
    let mut b = good.clone();
    b[at + A + 2] = 1; // a function address past 16 bits
    assert_eq!(parse_err(&b), bad);
    let mut b = good;
    b[at + 33] = 3; // an MMIO source that does not exist
    assert_eq!(parse_err(&b), bad);
    // Line 15 (the APIC's spurious vector) and lines past 23 are refused.
    for line in [15u8, 24] {
        let irq = ObjectRecord::Irq {
            line,
            notification: 0,
            bit: 0,
        };
        let img = pci_image(vec![
            entry("n", ObjectRecord::Notification),
            entry("i", irq),
        ]);
        assert!(encode(&img).is_err(), "line {line}");
    }
}

#[test]
fn the_pci_configuration_window_is_the_kernels() {
    let ecam = ObjectRecord::Mmio {
        phys: conflux_abi::pci::ECAM_BASE + 0x4_0000,
        size: 4096,
    };
    assert_eq!(
        encode(&pci_image(vec![entry("ecam", ecam)])).unwrap_err(),
        ImageError::KernelDevice { object: 0 }
    );
}

#[test]
fn a_task_s_cpu_travels_and_is_checked() {
    let b = sample();
    assert_eq!(BootImage::parse(&b).unwrap().task(0).unwrap().cpu, 1);
    let at = HEADER_LEN + 58; // task 0's CPU byte
    assert_eq!(b[at], 1);
    let mut bad = b.clone();
    bad[at] = MAX_CPUS as u8;
    assert_eq!(parse_err(&bad), ImageError::BadCpu { task: 0 });
    assert_eq!(
        ImageError::BadCpu { task: 0 }.to_string(),
        "boot image task record 0: CPU is not below 8"
    );
    let mut reserved = b.clone();
    reserved[HEADER_LEN + 59] = 1;
    assert_eq!(
        parse_err(&reserved),
        ImageError::ReservedNotZero {
            what: "task record",
            index: 0
        }
    );
    let mut img = image();
    img.tasks[1].cpu = MAX_CPUS as u8;
    assert_eq!(encode(&img), Err(ImageError::BadCpu { task: 1 }));
}
