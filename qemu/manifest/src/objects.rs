//! The object tables: `[endpoints.*]`, `[notifications.*]`, `[regions.*]`,
//! `[mmio.*]`, `[irqs.*]` and `[ioports.*]`.
//!
//! Each kind has a table name, the key a capability uses to name one, a
//! key list and a reader that checks every single value (sizes, alignment,
//! line and bit ranges). Names of tasks and notifications stay names here;
//! `resolve` turns them into indices once every table has been read.
//! Objects come out in a fixed order (the kinds in the order of [`KINDS`],
//! each in document order), which is their id order in the boot image.

use conflux_abi::cap::ObjectKind;
use conflux_abi::devices::KernelDevice;

use crate::error::Error;
use crate::limits::*;
use crate::model::{Object, ObjectSpec};
use crate::rules::{self, Unit};
use crate::strict::Fields;
use crate::suggest::{Suggestion, Words};

/// One kind of declarable object.
pub(crate) struct Kind {
    /// The top-level table the objects are declared in.
    pub table: &'static str,
    /// The key a capability names such an object with.
    pub key: &'static str,
    /// The kind in messages, with its article ("an endpoint").
    pub noun: &'static str,
    /// The kind without article ("endpoint").
    pub short: &'static str,
    pub kind: ObjectKind,
    keys: &'static [&'static str],
    read: fn(&Fields) -> Result<ObjectSpec<String>, Error>,
}

/// Every declarable kind, in object id order.
pub(crate) const KINDS: [Kind; 6] = [
    Kind {
        table: "endpoints",
        key: "endpoint",
        noun: "an endpoint",
        short: "endpoint",
        kind: ObjectKind::Endpoint,
        keys: &["server", "sessions"],
        read: endpoint,
    },
    Kind {
        table: "notifications",
        key: "notification",
        noun: "a notification",
        short: "notification",
        kind: ObjectKind::Notification,
        keys: &[],
        read: notification,
    },
    Kind {
        table: "regions",
        key: "region",
        noun: "a region",
        short: "region",
        kind: ObjectKind::Region,
        keys: &["size"],
        read: region,
    },
    Kind {
        table: "mmio",
        key: "mmio",
        noun: "an MMIO range",
        short: "MMIO range",
        kind: ObjectKind::Mmio,
        keys: &["phys", "size"],
        read: mmio,
    },
    Kind {
        table: "irqs",
        key: "irq",
        noun: "an IRQ",
        short: "IRQ",
        kind: ObjectKind::Irq,
        keys: &["line", "notification", "bit"],
        read: irq,
    },
    Kind {
        table: "ioports",
        key: "ioports",
        noun: "an I/O port range",
        short: "I/O port range",
        kind: ObjectKind::IoPorts,
        keys: &["base", "count", "kernel_device"],
        read: ioports,
    },
];

/// The keys that name an object in a capability, in [`KINDS`] order.
pub(crate) const OBJECT_KEYS: [&str; 6] = {
    let mut keys = [""; 6];
    let mut i = 0;
    while i < KINDS.len() {
        keys[i] = KINDS[i].key;
        i += 1;
    }
    keys
};

/// The object tables, for the top-level key list.
pub(crate) const TABLES: [&str; 6] = {
    let mut tables = [""; 6];
    let mut i = 0;
    while i < KINDS.len() {
        tables[i] = KINDS[i].table;
        i += 1;
    }
    tables
};

/// The kind a capability key (`endpoint`, ...) names.
pub(crate) fn by_key(key: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|kind| kind.key == key)
}

/// The declared kind of `spec` (`None` for the fault endpoint and a
/// device's PCI objects, which are not declared and cannot be named).
pub(crate) fn declared_kind<R>(spec: &ObjectSpec<R>) -> Option<&'static Kind> {
    match spec {
        ObjectSpec::Faults { .. } | ObjectSpec::PciConfig { .. } | ObjectSpec::PciBar { .. } => {
            None
        }
        _ => KINDS.iter().find(|kind| kind.kind == spec.kind()),
    }
}

/// Reads every object table of the document's top level; also returns
/// the names of the endpoints with `sessions = true` (see `sessions`).
pub(crate) fn read(top: &Fields) -> Result<(Vec<Object<String>>, Vec<String>), Error> {
    let mut objects = Vec::new();
    let mut sessions = Vec::new();
    for kind in &KINDS {
        for (name, fields) in top.named_tables(kind.table, kind.keys)? {
            let name = rules::name(&fields, fields.path().to_owned(), name, &rules::OBJECT_NAME)?;
            let spec = (kind.read)(&fields)?;
            if kind.kind == ObjectKind::Endpoint
                && fields.optional::<bool>("sessions")? == Some(true)
            {
                sessions.push(name.clone());
            }
            objects.push(Object { name, spec });
        }
    }
    Ok((objects, sessions))
}

fn endpoint(fields: &Fields) -> Result<ObjectSpec<String>, Error> {
    let server: &str = fields.required("server")?;
    Ok(ObjectSpec::Endpoint {
        server: server.to_owned(),
    })
}

fn notification(_: &Fields) -> Result<ObjectSpec<String>, Error> {
    Ok(ObjectSpec::Notification)
}

fn region(fields: &Fields) -> Result<ObjectSpec<String>, Error> {
    let size = rules::page_size(fields, "size", MIN_REGION_SIZE, MAX_REGION_SIZE)?;
    Ok(ObjectSpec::Region { size })
}

/// Page aligned, and the whole range below 4 GiB.
fn mmio(fields: &Fields) -> Result<ObjectSpec<String>, Error> {
    let page = u64::from(PAGE_SIZE);
    let phys = rules::unsigned(fields, "phys", 0, MMIO_END - page, Unit::Bytes)?;
    if !phys.is_multiple_of(page) {
        return Err(Error::NotPageAligned {
            origin: fields.origin().to_owned(),
            path: fields.path_of("phys"),
            value: phys,
        });
    }
    let max = MAX_REGION_SIZE.min(MMIO_END - phys);
    let size = rules::page_size(fields, "size", MIN_REGION_SIZE, max)?;
    Ok(ObjectSpec::Mmio { phys, size })
}

fn irq(fields: &Fields) -> Result<ObjectSpec<String>, Error> {
    let line = rules::unsigned(fields, "line", MIN_IRQ_LINE, MAX_IRQ_LINE, Unit::Count)?;
    let notification: &str = fields.required("notification")?;
    let bit = rules::unsigned(fields, "bit", 0, MAX_NOTIFICATION_BIT, Unit::Count)?;
    Ok(ObjectSpec::Irq {
        line,
        notification: notification.to_owned(),
        bit,
    })
}

/// `base + count` stays inside the 64 Ki-port space; `kernel_device`, if
/// present, names a [`KernelDevice`] (whether the range may have it is a
/// device rule, checked in `devices`).
fn ioports(fields: &Fields) -> Result<ObjectSpec<String>, Error> {
    let base = rules::unsigned(fields, "base", 0, IO_PORTS - 1, Unit::Count)?;
    let count = rules::unsigned(fields, "count", 1, IO_PORTS - base, Unit::Count)?;
    let device = match fields.optional::<&str>("kernel_device")? {
        None => None,
        Some(name) => {
            Some(
                KernelDevice::from_name(name).ok_or_else(|| Error::UnknownKernelDevice {
                    origin: fields.origin().to_owned(),
                    path: fields.path_of("kernel_device"),
                    value: name.to_owned(),
                    suggestion: Box::new(Suggestion::new(
                        name,
                        &KernelDevice::NAMES,
                        Words::Values,
                    )),
                })?,
            )
        }
    };
    Ok(ObjectSpec::IoPorts {
        base,
        count,
        device,
    })
}
