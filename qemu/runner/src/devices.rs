//! The QEMU arguments for a manifest's `[devices.*]`.
//!
//! Every device is a modern-only virtio-pci function (`disable-legacy=on`)
//! at the fixed bus-0 slot the manifest gave it, with MSI-X off
//! (`vectors=0`) so that it interrupts through INTx, the only kind the
//! kernel routes. Networks are QEMU user networking with `restrict=on`
//! (or, chosen by `netback`, a passt process's socket, which carries the
//! forwards itself):
//! the guest reaches nothing outside this machine, and forwarded host
//! ports listen on 127.0.0.1 only; the guest reaches the host only through
//! `guest_forwards` (QEMU's `guestfwd`, TCP to 10.0.2.100, carried to a
//! port on 127.0.0.1). A `size_mib` disk is a fresh
//! zero-filled raw file, made again before every run so tests start clean;
//! a `folder` disk is the system's ext4 image (`disks`), kept across runs.

use std::path::{Path, PathBuf};

use conflux_manifest::{Device, DeviceKind, DiskImage, Manifest};

use crate::disks;

/// Where the fresh disk of `device` lives, in the system's image directory.
pub fn fresh_disk(dir: &Path, device: &Device) -> PathBuf {
    dir.join(format!("{}.disk.img", device.name))
}

/// The disk file QEMU opens for `device` (absolute), if it is a disk.
fn disk_path(manifest: &Manifest, dir: &Path, device: &Device) -> Option<PathBuf> {
    let path = match device.disk.as_ref()? {
        DiskImage::File(path) => path.clone(),
        DiskImage::Fresh { .. } => fresh_disk(dir, device),
        DiskImage::Folder { .. } => disks::image_path(manifest),
    };
    Some(std::path::absolute(&path).unwrap_or(path))
}

/// Checks that image files and folders exist, (re)creates the fresh disks
/// in `dir`, and builds the folder disk if it is missing or `rebuild`.
pub fn prepare(manifest: &Manifest, dir: &Path, rebuild: bool) -> Result<(), String> {
    conflux_manifest::check_files(manifest).map_err(|e| e.to_string())?;
    disks::prepare(manifest, &disks::image_path(manifest), rebuild)?;
    for device in &manifest.devices {
        let Some(DiskImage::Fresh { size_mib }) = device.disk else {
            continue;
        };
        let path = fresh_disk(dir, device);
        let made = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::File::create(&path))
            .and_then(|file| file.set_len(u64::from(size_mib) << 20));
        made.map_err(|e| format!("cannot create the fresh disk {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The arguments for every device, in manifest order; fresh disks are in
/// `dir`. A network device whose name `passt_socket` maps to a socket is
/// connected to that passt process (`netback::passt`) instead of slirp.
pub fn args(
    manifest: &Manifest,
    dir: &Path,
    passt_socket: impl Fn(&str) -> Option<PathBuf>,
) -> Vec<String> {
    let mut args = Vec::new();
    for device in &manifest.devices {
        let name = &device.name;
        let pci = format!(
            "addr={:02x}.0,disable-legacy=on,disable-modern=off,vectors=0",
            device.slot()
        );
        match device.kind {
            DeviceKind::VirtioBlk => {
                let path =
                    disk_path(manifest, dir, device).expect("a virtio-blk device has a disk");
                args.extend([
                    "-drive".to_owned(),
                    format!("if=none,id={name},file={},format=raw", path.display()),
                    "-device".to_owned(),
                    format!("virtio-blk-pci,drive={name},{pci}"),
                ]);
            }
            DeviceKind::VirtioNet => {
                let forwards: String = device
                    .forwards
                    .iter()
                    .map(|f| {
                        format!(
                            ",hostfwd={}:127.0.0.1:{}-:{}",
                            f.protocol.name(),
                            f.host,
                            f.guest
                        )
                    })
                    .collect();
                // The guest's way to the host under restrict=on: QEMU
                // connects to the host port at start and carries the
                // guest's connections to 10.0.2.100:G over it.
                let [a, b, c, d] = conflux_manifest::GUEST_FORWARD_ADDR;
                let guest_forwards: String = device
                    .guest_forwards
                    .iter()
                    .map(|f| {
                        format!(
                            ",guestfwd=tcp:{a}.{b}.{c}.{d}:{}-tcp:127.0.0.1:{}",
                            f.guest_port, f.host
                        )
                    })
                    .collect();
                let mac = device
                    .mac
                    .as_ref()
                    .map_or(String::new(), |mac| format!(",mac={mac}"));
                let netdev = match passt_socket(name) {
                    Some(socket) => format!(
                        "stream,id={name},server=off,addr.type=unix,addr.path={}",
                        socket.display()
                    ),
                    None => format!("user,id={name},restrict=on{forwards}{guest_forwards}"),
                };
                args.extend([
                    "-netdev".to_owned(),
                    netdev,
                    "-device".to_owned(),
                    format!("virtio-net-pci,netdev={name},{pci}{mac}"),
                ]);
            }
            DeviceKind::VirtioCrypto => {
                args.extend([
                    "-object".to_owned(),
                    format!("cryptodev-backend-builtin,id={name}"),
                    "-device".to_owned(),
                    format!("virtio-crypto-pci,cryptodev={name},{pci}"),
                ]);
            }
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"
        [system]
        name = "devs"

        [tasks.drv]
        crate = "drv"
        priority = 1
        start_order = 1

        [devices.disk0]
        kind = "virtio-blk"
        driver = "drv"
        size_mib = 2

        [devices.net0]
        kind = "virtio-net"
        driver = "drv"
        forwards = [{ host = 5555, guest = 80 }, { host = 8022, guest = 22 }, { host = 5555, guest = 5700, protocol = "udp" }]
        mac = "52:54:00:12:34:56"

        [devices.crypto0]
        kind = "virtio-crypto"
        driver = "drv"
    "#;

    #[test]
    fn every_kind_at_its_slot_with_intx_only() {
        let manifest = conflux_manifest::parse(MANIFEST, "/sys/devs.toml").unwrap();
        let args = args(&manifest, Path::new("/img/devs"), |_| None);
        let pci =
            |slot: &str| format!("addr={slot}.0,disable-legacy=on,disable-modern=off,vectors=0");
        assert_eq!(
            args,
            [
                "-drive".to_owned(),
                "if=none,id=disk0,file=/img/devs/disk0.disk.img,format=raw".to_owned(),
                "-device".to_owned(),
                format!("virtio-blk-pci,drive=disk0,{}", pci("08")),
                "-netdev".to_owned(),
                "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:5555-:80,hostfwd=tcp:127.0.0.1:8022-:22,hostfwd=udp:127.0.0.1:5555-:5700"
                    .to_owned(),
                "-device".to_owned(),
                format!("virtio-net-pci,netdev=net0,{},mac=52:54:00:12:34:56", pci("09")),
                "-object".to_owned(),
                "cryptodev-backend-builtin,id=crypto0".to_owned(),
                "-device".to_owned(),
                format!("virtio-crypto-pci,cryptodev=crypto0,{}", pci("0a")),
            ]
        );
    }

    #[test]
    fn an_image_file_is_passed_by_absolute_path() {
        let text =
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
            [devices.d]\nkind = \"virtio-blk\"\ndriver = \"a\"\nimage = \"../disks/d.img\"\n";
        let manifest = conflux_manifest::parse(text, "/w/qemu/tests/t.toml").unwrap();
        let args = args(&manifest, Path::new("/img"), |_| None);
        assert_eq!(args[1], "if=none,id=d,file=/w/qemu/disks/d.img,format=raw");
    }

    #[test]
    fn a_folder_disk_is_the_systems_image_in_target_disks() {
        let text =
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
            [devices.d]\nkind = \"virtio-blk\"\ndriver = \"a\"\nfolder = \"disk\"\nsize_mib = 8\n";
        let manifest = conflux_manifest::parse(text, "/w/qemu/tests/t.toml").unwrap();
        let args = args(&manifest, Path::new("/img"), |_| None);
        let image = crate::workspace::root().join("target/disks/t.img");
        assert_eq!(
            args[1],
            format!("if=none,id=d,file={},format=raw", image.display())
        );
    }

    #[test]
    fn a_network_without_forwards_is_still_restricted() {
        let text =
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
            [devices.n]\nkind = \"virtio-net\"\ndriver = \"a\"\n";
        let manifest = conflux_manifest::parse(text, "t.toml").unwrap();
        assert_eq!(
            args(&manifest, Path::new("/img"), |_| None),
            [
                "-netdev",
                "user,id=n,restrict=on",
                "-device",
                "virtio-net-pci,netdev=n,addr=08.0,disable-legacy=on,disable-modern=off,vectors=0"
            ]
        );
    }

    #[test]
    fn a_network_under_passt_is_a_stream_to_its_socket() {
        let text =
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
            [devices.n]\nkind = \"virtio-net\"\ndriver = \"a\"\nforwards = [{ host = 5555, guest = 80 }]\n";
        let manifest = conflux_manifest::parse(text, "t.toml").unwrap();
        let socket = |name: &str| (name == "n").then(|| PathBuf::from("/t/passt-1-n/sock"));
        assert_eq!(
            args(&manifest, Path::new("/img"), socket)[..2],
            [
                "-netdev",
                "stream,id=n,server=off,addr.type=unix,addr.path=/t/passt-1-n/sock"
            ]
        );
    }

    #[test]
    fn fresh_disks_are_made_zeroed_each_time() {
        let dir = std::env::temp_dir().join(format!("conflux-devices-{}", std::process::id()));
        let manifest = conflux_manifest::parse(MANIFEST, "devs.toml").unwrap();
        prepare(&manifest, &dir, false).unwrap();
        let path = fresh_disk(&dir, &manifest.devices[0]);
        std::fs::write(&path, b"dirty").unwrap();
        prepare(&manifest, &dir, false).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 2 << 20);
        assert!(bytes.iter().all(|&b| b == 0));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
