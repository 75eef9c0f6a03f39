//! `[devices.*]`: one test per rule, each asserting the exact message, and
//! what a valid device becomes (objects, the driver's capabilities, the
//! generated constants).

mod common;

use common::{message, ok, SYSTEM};
use conflux_abi::cap::rights::{DMA, READ, WRITE};
use conflux_manifest::{DeviceKind, DiskImage, Forward, ObjectSpec, Protocol, BAR_WINDOW};

/// A driver and an idle task.
const TASKS: &str = "[tasks.drv]\ncrate = \"drv\"\npriority = 2\nstart_order = 1\n\
                     [tasks.other]\ncrate = \"other\"\npriority = 2\nstart_order = 2\n";

fn with(rest: &str) -> String {
    format!("{SYSTEM}{TASKS}{rest}")
}

/// `[devices.NAME]` of `kind` driven by `drv`, plus `body`.
fn device(name: &str, kind: &str, body: &str) -> String {
    format!("[devices.{name}]\nkind = \"{kind}\"\ndriver = \"drv\"\n{body}")
}

fn disk(name: &str) -> String {
    device(name, "virtio-blk", "size_mib = 1\n")
}

const ALL: &str = "[devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"drv\"\nsize_mib = 1\n\
    [devices.net0]\nkind = \"virtio-net\"\ndriver = \"drv\"\nforwards = [{ host = 5555, guest = 80 }]\n\
    dma_pool = \"64KiB\"\n\
    [devices.crypto0]\nkind = \"virtio-crypto\"\ndriver = \"drv\"\n\
    [notifications.ev]\n\
    [tasks.other.caps]\nev = { notification = \"ev\" }\n";

#[test]
fn devices_get_slots_objects_and_driver_caps() {
    let m = ok(&with(ALL));
    let names: Vec<&str> = m.objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ev",
            "disk0.config",
            "disk0.bar",
            "disk0.notify",
            "disk0.irq",
            "disk0.dma",
            "net0.config",
            "net0.bar",
            "net0.notify",
            "net0.irq",
            "net0.dma",
            "crypto0.config",
            "crypto0.bar",
            "crypto0.notify",
            "crypto0.irq",
            "crypto0.dma",
        ]
    );
    let kinds: Vec<DeviceKind> = m.devices.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [
            DeviceKind::VirtioBlk,
            DeviceKind::VirtioNet,
            DeviceKind::VirtioCrypto
        ]
    );
    let bdfs: Vec<(u16, u8)> = m.devices.iter().map(|d| (d.bdf, d.gsi)).collect();
    assert_eq!(bdfs, [(0x40, 20), (0x48, 21), (0x50, 22)]);
    assert_eq!(m.devices[0].disk, Some(DiskImage::Fresh { size_mib: 1 }));
    assert_eq!(
        m.devices[1].forwards,
        [Forward {
            host: 5555,
            guest: 80,
            protocol: Protocol::Tcp,
        }]
    );
    assert_eq!(m.objects[2].spec, ObjectSpec::PciBar { bdf: 0x40, bar: 4 });
    assert_eq!(
        m.objects[4].spec,
        ObjectSpec::Irq {
            line: 20,
            notification: 3,
            bit: 0
        }
    );
    assert_eq!(m.objects[5].spec, ObjectSpec::Region { size: 256 * 1024 });
    assert_eq!(m.objects[10].spec, ObjectSpec::Region { size: 64 * 1024 });
    let drv = &m.tasks[0];
    let caps: Vec<(&str, usize, usize, u8)> = drv
        .caps
        .iter()
        .map(|c| (c.name.as_str(), c.slot, c.object, c.rights))
        .collect();
    let rw = READ | WRITE;
    assert_eq!(
        caps[..5],
        [
            ("disk0_config", 1, 1, rw),
            ("disk0_bar", 2, 2, rw),
            ("disk0_irq", 3, 4, rw),
            ("disk0_irq_notify", 4, 3, READ),
            ("disk0_dma", 5, 5, rw | DMA),
        ]
    );
    assert_eq!(caps.len(), 15);
    // Mappings: the config page, then a BAR window, then the pool, each
    // followed by a guard page.
    let base = conflux_manifest::limits::REGION_BASE;
    let page = 4096;
    let maps: Vec<Option<u64>> = drv.caps[..5].iter().map(|c| c.map_vaddr).collect();
    let bar = base + page + page;
    let dma = bar + BAR_WINDOW + page;
    assert_eq!(maps, [Some(base), Some(bar), None, None, Some(dma)]);
    // The other task holds only what it declared.
    assert_eq!(m.tasks[1].caps.len(), 1);
}

#[test]
fn a_driver_gets_device_constants() {
    let m = ok(&with(ALL));
    let text = conflux_manifest::task_constants(&m, "drv");
    for expected in [
        "pub const DISK0_CONFIG: usize = 1;",
        "pub const DISK0_CONFIG_ADDR: u64 = 0x2000_0000_0000;",
        "pub const DISK0_CONFIG_SIZE: usize = 4096;",
        "pub const DISK0_BAR: usize = 2;",
        "pub const DISK0_BAR_ADDR: u64 = 0x2000_0000_2000;",
        "pub const DISK0_BAR_WINDOW: usize = 1048576;",
        "pub const DISK0_IRQ: usize = 3;",
        "pub const DISK0_IRQ_NOTIFY: usize = 4;",
        "pub const DISK0_DMA: usize = 5;",
        "pub const DISK0_DMA_ADDR: u64 = 0x2000_0010_3000;",
        "pub const DISK0_DMA_SIZE: usize = 262144;",
        "pub mod devices {",
        "pub const DISK0_BDF: u16 = 0x0040;",
        "pub const DISK0_KIND: &str = \"virtio-blk\";",
        "pub const DISK0_DEVICE_ID: u16 = 0x1042;",
        "pub const DISK0_GSI: u8 = 20;",
        "pub const NET0_DEVICE_ID: u16 = 0x1041;",
        "pub const CRYPTO0_BDF: u16 = 0x0050;",
        "/// Slot of `disk0_config`: the configuration page of PCI function 00:08.0, rights \"rw\".",
        "/// Slot of `disk0_bar`: BAR 4 of PCI function 00:08.0, rights \"rw\".",
        "/// Slot of `disk0_dma`: region `disk0.dma`, rights \"rwd\".",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    let other = conflux_manifest::task_constants(&m, "other");
    assert!(
        !other.contains("DISK0") && !other.contains("mod devices"),
        "{other}"
    );
}

#[test]
fn an_image_path_is_relative_to_the_manifest() {
    let m = ok(&with(&device(
        "d",
        "virtio-blk",
        "image = \"../disks/./d.img\"\n",
    )));
    assert_eq!(
        m.devices[0].disk,
        Some(DiskImage::File("disks/d.img".into()))
    );
    let mac = ok(&with(&device(
        "n",
        "virtio-net",
        "mac = \"52:54:00:AB:cd:01\"\n",
    )));
    assert_eq!(mac.devices[0].mac.as_deref(), Some("52:54:00:ab:cd:01"));
}

#[test]
fn unknown_kind_suggests() {
    assert_eq!(
        message(&with(&device("d", "virtio-blck", "size_mib = 1\n"))),
        "systems/t.toml: `devices.d.kind` is \"virtio-blck\", which is not a device kind; did you mean \"virtio-blk\"?"
    );
}

#[test]
fn unknown_driver_suggests() {
    assert_eq!(
        message(&with(
            "[devices.d]\nkind = \"virtio-crypto\"\ndriver = \"dvr\"\n"
        )),
        "systems/t.toml: `devices.d.driver` is \"dvr\", which is not a task; did you mean \"drv\"?"
    );
}

#[test]
fn unknown_device_key_suggests() {
    assert_eq!(
        message(&with(&device("d", "virtio-crypto", "dma_pol = 4096\n"))),
        "systems/t.toml: unknown key `dma_pol` in `[devices.d]`; did you mean `dma_pool`?"
    );
}

#[test]
fn a_key_of_another_kind_is_refused() {
    assert_eq!(
        message(&with(&device("d", "virtio-crypto", "size_mib = 1\n"))),
        "systems/t.toml: `devices.d.size_mib`: a virtio-crypto device takes no `size_mib`; it takes only `kind`, `driver` and `dma_pool`: remove the key"
    );
}

#[test]
fn a_disk_needs_one_backing() {
    assert_eq!(message(&with(&device("d", "virtio-blk", ""))), "systems/t.toml: `[devices.d]` has neither `image` nor `size_mib`; add `image = \"PATH\"` (a raw image file, relative to the manifest's directory) or `size_mib = N` (a fresh zero-filled disk for each run)");
}

#[test]
fn a_disk_has_only_one_backing() {
    assert_eq!(
        message(&with(&device("d", "virtio-blk", "size_mib = 1\nimage = \"d.img\"\n"))),
        "systems/t.toml: `[devices.d]` has both `image` and `size_mib`; a virtio-blk device is backed by an existing image file or by a fresh empty one, not both: keep one of them"
    );
}

#[test]
fn two_owners_of_one_disk_image() {
    let a = device("a", "virtio-blk", "image = \"disk.img\"\n");
    let b =
        device("b", "virtio-blk", "image = \"./x/../disk.img\"\n").replace("\"drv\"", "\"other\"");
    assert_eq!(message(&with(&format!("{a}{b}"))), "systems/t.toml: devices `a` and `b` both use the disk image `systems/disk.img`; a device has one owner and two disks on one file would corrupt it: give each device its own image");
}

#[test]
fn a_missing_disk_image_is_refused_on_load() {
    let dir = std::env::temp_dir().join(format!("conflux-manifest-disk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.toml");
    std::fs::write(
        &path,
        with(&device("d", "virtio-blk", "image = \"nowhere.img\"\n")),
    )
    .unwrap();
    let error = conflux_manifest::load(&path).unwrap_err().to_string();
    std::fs::write(dir.join("nowhere.img"), [0u8; 512]).unwrap();
    let loaded = conflux_manifest::load(&path);
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display();
    assert_eq!(error, format!("{d}/t.toml: `devices.d.image`: the disk image `{d}/nowhere.img` does not exist; create it (for example `truncate -s 64M {d}/nowhere.img`, or `mke2fs -t ext4 -b 4096 -d DIR {d}/nowhere.img 64M`), correct the path (it is relative to the manifest's directory), or use `size_mib` for a fresh empty disk"));
    assert!(loaded.is_ok());
}

#[test]
fn a_host_port_is_forwarded_once() {
    let a = device(
        "a",
        "virtio-net",
        "forwards = [{ host = 5555, guest = 80 }]\n",
    );
    let b = device(
        "b",
        "virtio-net",
        "forwards = [{ host = 5555, guest = 22 }]\n",
    );
    assert_eq!(message(&with(&format!("{a}{b}"))), "systems/t.toml: devices `a` and `b` both forward host port 5555; a host port reaches one device: choose another port for one of them");
}

#[test]
fn a_host_port_is_forwarded_once_per_device_too() {
    let a = device(
        "a",
        "virtio-net",
        "forwards = [{ host = 5555, guest = 80 }, { host = 5555, guest = 81 }]\n",
    );
    assert_eq!(message(&with(&a)), "systems/t.toml: device `a` forwards host port 5555 more than once; forward each host port once");
}

#[test]
fn tcp_and_udp_may_share_a_host_port_and_other_protocols_are_refused() {
    let a = device(
        "a",
        "virtio-net",
        "forwards = [{ host = 5555, guest = 80 }, { host = 5555, guest = 5700, protocol = \"udp\" }]\n",
    );
    let m = conflux_manifest::parse(&with(&a), "systems/t.toml").unwrap();
    let protocols: Vec<Protocol> = m.devices[0].forwards.iter().map(|f| f.protocol).collect();
    assert_eq!(protocols, [Protocol::Tcp, Protocol::Udp]);
    let twice = device(
        "a",
        "virtio-net",
        "forwards = [{ host = 5555, guest = 1, protocol = \"udp\" }, { host = 5555, guest = 2, protocol = \"udp\" }]\n",
    );
    assert!(message(&with(&twice)).contains("forwards host port 5555 more than once"));
    let sctp = device(
        "a",
        "virtio-net",
        "forwards = [{ host = 5555, guest = 1, protocol = \"sctp\" }]\n",
    );
    let m = message(&with(&sctp));
    assert!(
        m.contains(
            "`devices.a.forwards[0].protocol` is \"sctp\", which is not a protocol QEMU forwards"
        ),
        "{m}"
    );
}

#[test]
fn privileged_host_ports_are_refused() {
    let a = device(
        "a",
        "virtio-net",
        "forwards = [{ host = 80, guest = 80 }]\n",
    );
    assert_eq!(message(&with(&a)), "systems/t.toml: `devices.a.forwards[0].host` is 80, out of range; use a value from 1024 to 65535");
}

#[test]
fn a_forward_takes_host_and_guest_only() {
    let a = device(
        "a",
        "virtio-net",
        "forwards = [{ host = 5555, gest = 80 }]\n",
    );
    assert_eq!(
        message(&with(&a)),
        "systems/t.toml: unknown key `gest` in `[devices.a.forwards[0]]`; did you mean `guest`?"
    );
}

#[test]
fn a_bad_mac_is_refused() {
    let a = device("a", "virtio-net", "mac = \"53:54:00:12:34:56\"\n");
    assert_eq!(message(&with(&a)), "systems/t.toml: `devices.a.mac` is \"53:54:00:12:34:56\", which is not a unicast MAC address; write six two-digit hex octets separated by `:` with the first octet even, such as \"52:54:00:12:34:56\"");
}

#[test]
fn a_bad_dma_pool_size_is_refused() {
    let a = device("a", "virtio-crypto", "dma_pool = \"64 kB\"\n");
    assert_eq!(message(&with(&a)), "systems/t.toml: `devices.a.dma_pool` is \"64 kB\", which is not a size; write a number of bytes or a string such as \"64KiB\" or \"1MiB\"");
}

#[test]
fn a_dma_pool_is_whole_pages() {
    let a = device("a", "virtio-crypto", "dma_pool = 5000\n");
    assert_eq!(message(&with(&a)), "systems/t.toml: `devices.a.dma_pool` is 5000, not a whole number of 4096-byte pages; round it up to 8192");
}

#[test]
fn at_most_four_devices() {
    let text: String = ["a", "b", "c", "d", "e"].map(disk).concat();
    assert_eq!(message(&with(&text)), "systems/t.toml: the system has 5 devices, more than the 4 a system may have (each needs a PCI interrupt line of its own, and q35 routes bus-0 slots onto four); remove a device");
}

#[test]
fn a_device_name_leaves_room_for_its_objects() {
    assert_eq!(message(&with(&disk("a-very-long-device-name-x"))), "systems/t.toml: `devices.a-very-long-device-name-x`: the device name \"a-very-long-device-name-x\" is 25 bytes long; shorten it to at most 24 bytes");
}

#[test]
fn caps_cannot_name_a_device_object() {
    let text = format!(
        "{}[tasks.other.caps]\nbar = {{ mmio = \"d.bar\" }}\n",
        disk("d")
    );
    assert_eq!(message(&with(&text)), "systems/t.toml: `tasks.other.caps.bar.mmio` names `d.bar`, an object of device `d`; only its driver `drv` holds a device's objects, and it gets them without `caps` entries: remove this entry");
}

#[test]
fn a_disk_folder_needs_a_size_and_no_image() {
    let want = "systems/t.toml: `[devices.d]` has `folder`, which builds an ext4 image from that host folder: it needs `size_mib = N` (the image's size) and no `image`";
    let no_size = device("d", "virtio-blk", "folder = \"disk\"\n");
    assert_eq!(message(&with(&no_size)), want);
    let image = device(
        "d",
        "virtio-blk",
        "folder = \"disk\"\nsize_mib = 8\nimage = \"d.img\"\n",
    );
    assert_eq!(message(&with(&image)), want);
}

#[test]
fn a_system_has_one_folder_disk() {
    let a = device("a", "virtio-blk", "folder = \"one\"\nsize_mib = 8\n");
    let b = device("b", "virtio-blk", "folder = \"two\"\nsize_mib = 8\n");
    assert_eq!(message(&with(&format!("{a}{b}"))), "systems/t.toml: devices `a` and `b` are both built from a folder; a system has one such disk (`target/disks/SYSTEM.img`): give the other one `image` or a fresh `size_mib` disk");
}

#[test]
fn a_disk_folder_is_relative_to_the_manifest() {
    let m = ok(&with(&device(
        "d",
        "virtio-blk",
        "folder = \"../disk\"\nsize_mib = 8\n",
    )));
    assert_eq!(
        m.devices[0].disk,
        Some(DiskImage::Folder {
            folder: "disk".into(),
            size_mib: 8,
            generate: Vec::new(),
        })
    );
}

#[test]
fn a_missing_disk_folder_is_refused_on_load() {
    let dir = std::env::temp_dir().join(format!("conflux-manifest-folder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.toml");
    let body = "folder = \"files\"\nsize_mib = 8\n";
    std::fs::write(&path, with(&device("d", "virtio-blk", body))).unwrap();
    let error = conflux_manifest::load(&path).unwrap_err().to_string();
    std::fs::write(dir.join("files"), b"a file, not a folder").unwrap();
    let not_a_dir = conflux_manifest::load(&path).unwrap_err().to_string();
    std::fs::remove_file(dir.join("files")).unwrap();
    std::fs::create_dir(dir.join("files")).unwrap();
    let loaded = conflux_manifest::load(&path);
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display();
    assert_eq!(error, format!("{d}/t.toml: `devices.d.folder`: the disk folder `{d}/files` does not exist or is not a directory; create it with the files the disk should start with, or correct the path (it is relative to the manifest's directory)"));
    assert_eq!(not_a_dir, error);
    assert!(loaded.is_ok());
}

#[test]
fn a_device_client_may_wait_on_and_arm_a_timer_on_its_done_notification() {
    let m = ok(&with(&device(
        "net0",
        "virtio-net",
        "clients = [\"other\"]\n",
    )));
    let client = &m.tasks[1];
    let caps: Vec<(&str, u8)> = client
        .caps
        .iter()
        .map(|c| (c.name.as_str(), c.rights))
        .collect();
    assert_eq!(
        caps,
        [
            ("net0", READ | WRITE),
            ("net0_done", READ | WRITE),
            ("net0_doorbell", WRITE)
        ]
    );
    // The driver only signals it.
    let driver_done = m.tasks[0]
        .caps
        .iter()
        .find(|c| c.name == "net0_client0_done")
        .map(|c| c.rights);
    assert_eq!(driver_done, Some(WRITE));
}

#[test]
fn guest_forwards_are_read_and_each_guest_port_leads_to_one_host_port() {
    let a = device(
        "a",
        "virtio-net",
        "guest_forwards = [{ guest_port = 5800, host = 5900 }, { guest_port = 5801, host = 5901 }]\n",
    );
    let m = conflux_manifest::parse(&with(&a), "systems/t.toml").unwrap();
    let pairs: Vec<(u16, u16)> = m.devices[0]
        .guest_forwards
        .iter()
        .map(|f| (f.guest_port, f.host))
        .collect();
    assert_eq!(pairs, [(5800, 5900), (5801, 5901)]);
    let twice = device(
        "a",
        "virtio-net",
        "guest_forwards = [{ guest_port = 5800, host = 5900 }, { guest_port = 5800, host = 5901 }]\n",
    );
    assert_eq!(message(&with(&twice)), "systems/t.toml: device `a` lists guest port 5800 in `guest_forwards` more than once; 10.0.2.100:5800 can lead to one host port: list it once");
    let b = device(
        "b",
        "virtio-net",
        "guest_forwards = [{ guest_port = 5800, host = 5999 }]\n",
    );
    assert!(message(&with(&format!("{a}{b}")))
        .contains("devices `a` and `b` both list guest port 5800"));
    let low = device(
        "a",
        "virtio-net",
        "guest_forwards = [{ guest_port = 5800, host = 80 }]\n",
    );
    assert!(message(&with(&low)).contains("devices.a.guest_forwards[0].host"));
    let odd = device(
        "a",
        "virtio-net",
        "guest_forwards = [{ guest_port = 5800, host = 5900, protocol = \"udp\" }]\n",
    );
    assert!(message(&with(&odd)).contains("protocol"));
    let disk = device("d", "virtio-blk", "size_mib = 1\nguest_forwards = []\n");
    assert!(message(&with(&disk)).contains("guest_forwards"));
}
