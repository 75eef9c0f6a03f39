//! `[devices.*]`: the PCI devices QEMU provides and the task that drives
//! each.
//!
//! Every device sits on bus 0 at a fixed slot: the first declared at
//! [`FIRST_DEVICE_SLOT`] (0x08), the next at 0x09, and so on, function 0.
//! Its interrupt is INTA#, which q35 routes to GSI 20 + slot % 4
//! (`Bdf::inta_gsi`); since an interrupt line is one IRQ object with one
//! holder, a system has at most [`MAX_DEVICES`] devices.
//!
//! For each device five kernel objects are made, after the declared ones
//! and before the supervisor's fault endpoint: `NAME.config` (the
//! function's configuration page), `NAME.bar` (BAR 4, where QEMU's modern
//! virtio devices keep their registers), `NAME.notify` (a notification),
//! `NAME.irq` (the INTx line, signalling bit 0 of `NAME.notify`) and
//! `NAME.dma` (a region, the DMA pool). Only the driver gets capabilities
//! to them (see `slots`); no `caps` entry may name them.

use std::path::{Component, Path, PathBuf};

use conflux_abi::pci::Bdf;

use crate::error::Error;
use crate::generated;
use crate::limits::*;
use crate::model::{
    Device, DeviceClient, DeviceKind, DeviceObjects, DiskImage, Forward, GuestForward, Manifest,
    Object, ObjectSpec, Protocol,
};
use crate::resolve;
use crate::rules::{self, Unit};
use crate::strict::{join, Fields};
use crate::suggest::{Suggestion, Words};

/// Keys allowed in `[devices.NAME]` (which of them a kind takes is checked
/// per kind).
pub(crate) const KEYS: &[&str] = &[
    "kind",
    "driver",
    "dma_pool",
    "clients",
    "client_region",
    "image",
    "size_mib",
    "folder",
    "generate",
    "forwards",
    "guest_forwards",
    "mac",
];
/// Most clients one driver serves (their doorbells are notification bits
/// 1.., bit 0 is the interrupt).
pub const MAX_CLIENTS: usize = 8;
/// Default bytes of a client's shared region: the block protocol's rings
/// and table, and a data area larger than its largest transfer.
const DEFAULT_CLIENT_REGION: u64 = 1 << 20;
/// Keys allowed in one entry of `forwards`.
const FORWARD_KEYS: &[&str] = &["host", "guest", "protocol"];
/// Keys allowed in one entry of `guest_forwards`.
const GUEST_FORWARD_KEYS: &[&str] = &["guest_port", "host"];

/// A `[devices.NAME]` table with its single values checked; the driver is
/// still a name.
pub(crate) struct DeviceDecl {
    name: String,
    kind: DeviceKind,
    driver: String,
    dma_size: u64,
    disk: Option<DiskImage>,
    forwards: Vec<Forward>,
    guest_forwards: Vec<GuestForward>,
    mac: Option<String>,
    clients: Vec<String>,
    client_size: u64,
}

/// Reads `[devices]` in document order.
pub(crate) fn read(top: &Fields) -> Result<Vec<DeviceDecl>, Error> {
    let decls = top
        .named_tables("devices", KEYS)?
        .into_iter()
        .map(|(name, fields)| device(name, &fields))
        .collect::<Result<Vec<_>, _>>()?;
    if decls.len() > MAX_DEVICES {
        return Err(Error::TooManyDevices {
            origin: top.origin().to_owned(),
            count: decls.len(),
            max: MAX_DEVICES,
        });
    }
    Ok(decls)
}

/// The keys only some kinds take, with the kinds that take them.
fn kind_keys(kind: DeviceKind) -> &'static [&'static str] {
    match kind {
        DeviceKind::VirtioBlk => &["image", "size_mib", "folder", "generate"],
        DeviceKind::VirtioNet => &["forwards", "guest_forwards", "mac"],
        DeviceKind::VirtioCrypto => &[],
    }
}

fn device(name: &str, fields: &Fields) -> Result<DeviceDecl, Error> {
    let name = rules::name(fields, fields.path().to_owned(), name, &rules::DEVICE_NAME)?;
    let kind_name: &str = fields.required("kind")?;
    let kind = DeviceKind::from_name(kind_name).ok_or_else(|| Error::UnknownDeviceKind {
        origin: fields.origin().to_owned(),
        path: fields.path_of("kind"),
        value: kind_name.to_owned(),
        suggestion: Box::new(Suggestion::new(kind_name, DeviceKind::NAMES, Words::Values)),
    })?;
    let driver: &str = fields.required("driver")?;
    for key in [
        "image",
        "size_mib",
        "folder",
        "generate",
        "forwards",
        "guest_forwards",
        "mac",
    ] {
        if fields.has(key) && !kind_keys(kind).contains(&key) {
            return Err(Error::KeyNotForKind {
                origin: fields.origin().to_owned(),
                path: fields.path_of(key),
                kind,
            });
        }
    }
    let disk = match kind {
        DeviceKind::VirtioBlk => Some(disk(fields)?),
        _ => None,
    };
    Ok(DeviceDecl {
        name,
        kind,
        driver: driver.to_owned(),
        dma_size: dma_pool(fields)?,
        disk,
        forwards: forwards(fields)?,
        guest_forwards: guest_forwards(fields)?,
        mac: mac(fields)?,
        clients: clients(fields)?,
        client_size: size_key(fields, "client_region", DEFAULT_CLIENT_REGION)?,
    })
}

/// `clients = ["task", ...]`: at most [`MAX_CLIENTS`], each once.
fn clients(fields: &Fields) -> Result<Vec<String>, Error> {
    let names = fields.optional::<Vec<&str>>("clients")?.unwrap_or_default();
    if names.len() > MAX_CLIENTS {
        return Err(Error::TooManyClients {
            origin: fields.origin().to_owned(),
            path: fields.path_of("clients"),
            count: names.len(),
            max: MAX_CLIENTS,
        });
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(Error::DuplicateClient {
                origin: fields.origin().to_owned(),
                path: fields.path_of("clients"),
                task: (*name).to_owned(),
            });
        }
    }
    Ok(names.into_iter().map(str::to_owned).collect())
}

/// Exactly one of `image` (relative to the manifest's directory) and
/// `size_mib`; `folder` (relative too) goes with `size_mib`.
fn disk(fields: &Fields) -> Result<DiskImage, Error> {
    let image = fields.optional::<&str>("image")?;
    let dir = Path::new(fields.origin()).parent().unwrap_or(Path::new(""));
    if let Some(folder) = fields.optional::<&str>("folder")? {
        if image.is_some() || !fields.has("size_mib") {
            return Err(Error::FolderBacking {
                origin: fields.origin().to_owned(),
                table: fields.path().to_owned(),
            });
        }
        let size_mib = rules::integer(fields, "size_mib", None, 1, MAX_DISK_MIB, Unit::Count)?;
        return Ok(DiskImage::Folder {
            folder: clean(&dir.join(folder)),
            size_mib,
            generate: generated::read(fields, true, size_mib)?,
        });
    }
    generated::read(fields, false, 0)?;
    let both = image.is_some() && fields.has("size_mib");
    if both || (image.is_none() && !fields.has("size_mib")) {
        return Err(Error::DiskBacking {
            origin: fields.origin().to_owned(),
            table: fields.path().to_owned(),
            both,
        });
    }
    if let Some(image) = image {
        return Ok(DiskImage::File(clean(&dir.join(image))));
    }
    let size_mib = rules::integer(fields, "size_mib", None, 1, MAX_DISK_MIB, Unit::Count)?;
    Ok(DiskImage::Fresh { size_mib })
}

/// `path` with `.` components dropped and `dir/..` folded, so that two
/// spellings of one file compare equal.
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `dma_pool`: bytes as an integer, or a string such as "64KiB" or "1MiB";
/// whole pages, 4 KiB ..= 64 MiB; default [`DEFAULT_DMA_POOL`].
fn dma_pool(fields: &Fields) -> Result<u64, Error> {
    size_key(fields, "dma_pool", DEFAULT_DMA_POOL)
}

/// A region size key (`"256KiB"`, `"1MiB"` or bytes), whole pages.
pub(crate) fn size_key(fields: &Fields, key: &'static str, default: u64) -> Result<u64, Error> {
    let path = fields.path_of(key);
    let bytes = match fields.optional::<&str>(key) {
        Ok(None) => return Ok(default),
        Ok(Some(text)) => parse_size(text).ok_or_else(|| Error::BadSize {
            origin: fields.origin().to_owned(),
            path: path.clone(),
            value: text.to_owned(),
        })?,
        Err(_) => fields.required::<i64>(key).map_err(|_| Error::WrongType {
            origin: fields.origin().to_owned(),
            path: path.clone(),
            expected: "a size such as \"256KiB\" or a number of bytes",
            found: "something else".to_owned(),
        })?,
    };
    let (min, max) = (MIN_REGION_SIZE as i64, MAX_REGION_SIZE as i64);
    if !(min..=max).contains(&bytes) {
        return Err(Error::OutOfRange {
            origin: fields.origin().to_owned(),
            path,
            value: bytes,
            min,
            max,
            bytes: true,
        });
    }
    if bytes % i64::from(PAGE_SIZE) != 0 {
        return Err(Error::NotPageMultiple {
            origin: fields.origin().to_owned(),
            path,
            value: bytes,
        });
    }
    Ok(bytes.unsigned_abs())
}

/// "64KiB", "1MiB", "4096" (bytes); `None` if it is none of these.
fn parse_size(text: &str) -> Option<i64> {
    let text = text.trim();
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, ""),
    };
    let scale = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1024,
        "MiB" => 1024 * 1024,
        _ => return None,
    };
    digits.parse::<i64>().ok()?.checked_mul(scale)
}

fn forwards(fields: &Fields) -> Result<Vec<Forward>, Error> {
    let Some(entries) = fields.optional::<Vec<&toml::Table>>("forwards")? else {
        return Ok(Vec::new());
    };
    entries
        .into_iter()
        .enumerate()
        .map(|(index, table)| {
            let path = format!("{}[{index}]", fields.path_of("forwards"));
            let entry = Fields::new(fields.origin(), path, table, FORWARD_KEYS)?;
            Ok(Forward {
                host: rules::integer(&entry, "host", None, MIN_HOST_PORT, u16::MAX, Unit::Count)?,
                guest: rules::integer(&entry, "guest", None, 1, u16::MAX, Unit::Count)?,
                protocol: protocol(&entry)?,
            })
        })
        .collect()
}

/// `guest_forwards = [{ guest_port, host }]`, each guest port once in this
/// device (across devices: [`lower`]).
fn guest_forwards(fields: &Fields) -> Result<Vec<GuestForward>, Error> {
    let Some(entries) = fields.optional::<Vec<&toml::Table>>("guest_forwards")? else {
        return Ok(Vec::new());
    };
    entries
        .into_iter()
        .enumerate()
        .map(|(index, table)| {
            let path = format!("{}[{index}]", fields.path_of("guest_forwards"));
            let entry = Fields::new(fields.origin(), path, table, GUEST_FORWARD_KEYS)?;
            Ok(GuestForward {
                guest_port: rules::integer(&entry, "guest_port", None, 1, u16::MAX, Unit::Count)?,
                host: rules::integer(&entry, "host", None, MIN_HOST_PORT, u16::MAX, Unit::Count)?,
            })
        })
        .collect()
}

/// `protocol = "tcp"` (the default) or `"udp"`.
fn protocol(entry: &Fields) -> Result<Protocol, Error> {
    match entry.optional::<&str>("protocol")? {
        None | Some("tcp") => Ok(Protocol::Tcp),
        Some("udp") => Ok(Protocol::Udp),
        Some(other) => Err(Error::UnknownProtocol {
            origin: entry.origin().to_owned(),
            path: entry.path_of("protocol"),
            value: other.to_owned(),
            suggestion: Box::new(Suggestion::new(other, Protocol::NAMES, Words::Values)),
        }),
    }
}

/// Six two-digit hex octets separated by `:`, unicast (the first octet's
/// lowest bit clear).
fn mac(fields: &Fields) -> Result<Option<String>, Error> {
    let Some(text) = fields.optional::<&str>("mac")? else {
        return Ok(None);
    };
    let octets: Vec<Option<u8>> = text
        .split(':')
        .map(|o| {
            (o.len() == 2)
                .then(|| u8::from_str_radix(o, 16).ok())
                .flatten()
        })
        .collect();
    let valid = octets.len() == 6 && octets.iter().all(Option::is_some);
    if !valid || octets[0].is_some_and(|first| first & 1 != 0) {
        return Err(Error::BadMac {
            origin: fields.origin().to_owned(),
            path: fields.path_of("mac"),
            value: text.to_owned(),
        });
    }
    Ok(Some(text.to_ascii_lowercase()))
}

/// Resolves each device's driver, checks the rules between devices (one
/// owner per disk image, each host port forwarded once) and appends the
/// devices' objects to `objects`.
pub(crate) fn lower(
    manifest: &Manifest,
    decls: &[DeviceDecl],
    objects: &mut Vec<Object>,
) -> Result<Vec<Device>, Error> {
    let origin = || manifest.origin.clone();
    let tasks = resolve::task_names(manifest);
    let mut devices: Vec<Device> = Vec::new();
    for (index, decl) in decls.iter().enumerate() {
        let driver =
            resolve::find(&tasks, &decl.driver).map_err(|suggestion| Error::UnknownDriver {
                origin: origin(),
                device: decl.name.clone(),
                value: decl.driver.clone(),
                suggestion,
            })?;
        if let Some(DiskImage::File(path)) = &decl.disk {
            let same = devices
                .iter()
                .find(|d| d.disk.as_ref() == Some(&DiskImage::File(path.clone())));
            if let Some(first) = same {
                return Err(Error::SharedDiskImage {
                    origin: origin(),
                    image: path.display().to_string(),
                    first: first.name.clone(),
                    second: decl.name.clone(),
                });
            }
        }
        if matches!(decl.disk, Some(DiskImage::Folder { .. })) {
            let first = devices
                .iter()
                .find(|d| matches!(d.disk, Some(DiskImage::Folder { .. })));
            if let Some(first) = first {
                return Err(Error::TwoFolderDisks {
                    origin: origin(),
                    first: first.name.clone(),
                    second: decl.name.clone(),
                });
            }
        }
        for (at, forward) in decl.forwards.iter().enumerate() {
            let earlier = devices
                .iter()
                .flat_map(|d| d.forwards.iter().map(move |f| (d.name.as_str(), f)))
                .chain(decl.forwards[..at].iter().map(|f| (decl.name.as_str(), f)))
                .find(|(_, f)| f.host == forward.host && f.protocol == forward.protocol);
            if let Some((first, _)) = earlier {
                return Err(Error::DuplicateForward {
                    origin: origin(),
                    port: forward.host,
                    first: first.to_owned(),
                    second: decl.name.clone(),
                });
            }
        }
        for (at, forward) in decl.guest_forwards.iter().enumerate() {
            let earlier = devices
                .iter()
                .flat_map(|d| d.guest_forwards.iter().map(move |f| (d.name.as_str(), f)))
                .chain(
                    decl.guest_forwards[..at]
                        .iter()
                        .map(|f| (decl.name.as_str(), f)),
                )
                .find(|(_, f)| f.guest_port == forward.guest_port);
            if let Some((first, _)) = earlier {
                return Err(Error::DuplicateGuestForward {
                    origin: origin(),
                    port: forward.guest_port,
                    first: first.to_owned(),
                    second: decl.name.clone(),
                });
            }
        }
        let slot = FIRST_DEVICE_SLOT + u8::try_from(index).expect("at most MAX_DEVICES");
        let bdf = Bdf::new(0, slot, 0).expect("device slots stay below 32");
        let mut add = |suffix: &str, spec| {
            objects.push(Object {
                name: format!("{}.{suffix}", decl.name),
                spec,
            });
            objects.len() - 1
        };
        let config = add("config", ObjectSpec::PciConfig { bdf: bdf.0 });
        let bar = add(
            "bar",
            ObjectSpec::PciBar {
                bdf: bdf.0,
                bar: VIRTIO_BAR,
            },
        );
        let notify = add("notify", ObjectSpec::Notification);
        let irq = add(
            "irq",
            ObjectSpec::Irq {
                line: u64::from(bdf.inta_gsi()),
                notification: notify,
                bit: 0,
            },
        );
        let dma = add(
            "dma",
            ObjectSpec::Region {
                size: decl.dma_size,
            },
        );
        let mut clients = Vec::new();
        for (i, client) in decl.clients.iter().enumerate() {
            let task =
                resolve::find(&tasks, client).map_err(|suggestion| Error::UnknownClient {
                    origin: origin(),
                    device: decl.name.clone(),
                    value: client.clone(),
                    suggestion,
                })?;
            if task == driver {
                return Err(Error::DriverIsClient {
                    origin: origin(),
                    device: decl.name.clone(),
                    task: client.clone(),
                });
            }
            let region = add(
                &format!("client{i}"),
                ObjectSpec::Region {
                    size: decl.client_size,
                },
            );
            let done = add(&format!("client{i}.done"), ObjectSpec::Notification);
            clients.push(DeviceClient { task, region, done });
        }
        devices.push(Device {
            name: decl.name.clone(),
            kind: decl.kind,
            driver,
            bdf: bdf.0,
            gsi: bdf.inta_gsi(),
            dma_size: decl.dma_size,
            disk: decl.disk.clone(),
            forwards: decl.forwards.clone(),
            guest_forwards: decl.guest_forwards.clone(),
            mac: decl.mac.clone(),
            objects: DeviceObjects {
                config,
                bar,
                notify,
                irq,
                dma,
            },
            clients,
        });
    }
    Ok(devices)
}

/// The device whose objects include `object`, if any.
pub(crate) fn owner_of(manifest: &Manifest, object: usize) -> Option<&Device> {
    manifest
        .devices
        .iter()
        .find(|device| device.all_objects().contains(&object))
}

/// Every disk image file and disk folder the manifest names exists
/// (checked when the manifest is loaded from a file, and again by the
/// runner before QEMU starts).
pub fn check_files(manifest: &Manifest) -> Result<(), Error> {
    for device in &manifest.devices {
        if let Some(DiskImage::Folder { folder, .. }) = &device.disk {
            if !folder.is_dir() {
                return Err(Error::MissingDiskFolder {
                    origin: manifest.origin.clone(),
                    path: join(&join("devices", &device.name), "folder"),
                    folder: folder.display().to_string(),
                });
            }
        }
        if let Some(DiskImage::File(path)) = &device.disk {
            if !path.is_file() {
                return Err(Error::MissingDiskImage {
                    origin: manifest.origin.clone(),
                    path: join(&join("devices", &device.name), "image"),
                    image: path.display().to_string(),
                });
            }
        }
    }
    Ok(())
}
