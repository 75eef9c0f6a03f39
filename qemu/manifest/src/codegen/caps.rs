//! The `caps` and `devices` modules of a task's constants.
//!
//! One constant per filled slot (the slot name in upper case, `-` as `_`),
//! plus `NAME_ADDR` and `NAME_SIZE` for each region and MMIO mapping
//! (`NAME_ADDR` and `NAME_WINDOW` for a PCI BAR, whose size only the
//! kernel learns), and `FIRST_FREE`, the first slot the task can use for
//! capabilities it receives at run time. A server's receive slot `NAME`
//! comes with `NAME_CLIENTS`, the badges its clients call with, and
//! aligned with it their priorities, quotas and file rights
//! (`NAME_CLIENT_PRIORITIES`, `NAME_CLIENT_QUOTAS`, `NAME_CLIENT_ROOTS`,
//! `NAME_CLIENT_READ_ONLY`). The doc line of each slot says what it
//! holds. The supervisor's module also has `TASK_NAMES` and
//! `RESTART_ON_FAULT`, to name the task a fault message's badge
//! designates and decide whether to restart it.

use conflux_abi::pci::Bdf;

use super::constant;
use crate::model::Access;
use crate::model::{constant_name, rights_text, Cap, Manifest, Object, ObjectSpec, Task};
use crate::objects::declared_kind;
use crate::slots::{
    CLIENTS_SUFFIX, CLIENT_OF, CLIENT_PRIORITIES_SUFFIX, CLIENT_READ_ONLY_SUFFIX,
    CLIENT_ROOTS_SUFFIX, DEVICE_GONE, FIRST_FREE, QUOTAS_SUFFIX, RESTART_ON_EXIT, RESTART_ON_FAULT,
    SESSION_SERVERS, TASK_NAMES,
};

const INDENT: &str = "    ";

/// Writes `pub mod caps { ... }` for `task`, the task at `index`.
pub(super) fn module(out: &mut String, manifest: &Manifest, index: usize, task: &Task) {
    out.push_str(
        "/// The capabilities this task starts with: slot numbers, and where\n\
         /// regions and MMIO ranges are mapped. Slot 0 is always empty.\n\
         #[allow(dead_code)]\n\
         pub mod caps {\n",
    );
    for cap in &task.caps {
        slot(out, cap, manifest.object_of(cap));
        if manifest.receives_through(index, cap) {
            clients(out, manifest, cap);
        }
    }
    constant(
        out,
        INDENT,
        "The first slot the manifest leaves empty (the table size when none is).",
        FIRST_FREE,
        "usize",
        &(task.caps.len() + 1).to_string(),
    );
    if manifest
        .supervisor()
        .is_some_and(|(supervisor, _)| supervisor == index)
    {
        supervisor(out, manifest);
    }
    out.push_str("}\n");
}

/// What the supervisor needs to report and restart faulting tasks.
fn supervisor(out: &mut String, manifest: &Manifest) {
    let names: Vec<String> = manifest
        .tasks
        .iter()
        .map(|t| format!("{:?}", t.name))
        .collect();
    let restart: Vec<String> = manifest
        .tasks
        .iter()
        .map(|t| t.restart.on_fault().to_string())
        .collect();
    let restart_on_exit: Vec<String> = manifest
        .tasks
        .iter()
        .map(|t| t.restart.on_exit().to_string())
        .collect();
    constant(
        out,
        INDENT,
        "Every task's name, by task index (the badge of its fault messages).",
        TASK_NAMES,
        "&[&str]",
        &format!("&[{}]", names.join(", ")),
    );
    constant(
        out,
        INDENT,
        "Whether each task, by task index, is restarted after a fault.",
        RESTART_ON_FAULT,
        "&[bool]",
        &format!("&[{}]", restart.join(", ")),
    );
    constant(
        out,
        INDENT,
        "Whether each task, by task index, is restarted after it exits (`restart = \"always\"`).",
        RESTART_ON_EXIT,
        "&[bool]",
        &format!("&[{}]", restart_on_exit.join(", ")),
    );
    sessions(out, manifest);
}

/// The servers that keep sessions (`sessions = true`) and which of them
/// each task is a client of, with which badge.
fn sessions(out: &mut String, manifest: &Manifest) {
    let Some((_, supervisor)) = manifest.supervisor() else {
        return;
    };
    let servers: Vec<String> = manifest
        .sessions
        .iter()
        .map(|&id| {
            let object = &manifest.objects[id];
            let slot = slot_of(supervisor, &crate::sessions::slot_name(&object.name));
            let server = object.spec.server().unwrap_or(0);
            format!("({:?}, {slot}, {server})", object.name)
        })
        .collect();
    constant(
        out,
        INDENT,
        "Each endpoint with `sessions = true`: its name, the slot of this task's capability to it (badge `conflux_abi::ipc::SUPERVISOR_BADGE`), and its server's task index.",
        SESSION_SERVERS,
        "&[(&str, usize, usize)]",
        &format!("&[{}]", servers.join(", ")),
    );
    let clients = per_task(manifest, |task| {
        crate::sessions::client_of(manifest, task)
            .into_iter()
            .map(|(k, badge)| format!("({k}, {})", hex(badge)))
            .collect()
    });
    constant(
        out,
        INDENT,
        "By task index: the sessions each task may hold, as (index in `SESSION_SERVERS`, the badge it calls with), to end when it is gone.",
        CLIENT_OF,
        "&[&[(usize, u64)]]",
        &format!("&[{}]", clients.join(", ")),
    );
    let gone = per_task(manifest, |task| {
        crate::device_gone::gone_of(manifest, task)
            .into_iter()
            .map(|(device, slot_name)| format!("({device:?}, {})", slot_of(supervisor, &slot_name)))
            .collect()
    });
    constant(
        out,
        INDENT,
        "By task index: the devices whose driver hears that the task, their client, is gone, as (device name, the slot of this task's capability to the driver's notification, badged with the client's gone bit), to signal when it ends.",
        DEVICE_GONE,
        "&[&[(&str, usize)]]",
        &format!("&[{}]", gone.join(", ")),
    );
}

/// The slot of the supervisor's capability named `name` (0 if it has
/// none, which validation rules out for the capabilities made for it).
fn slot_of(supervisor: &crate::model::Task, name: &str) -> usize {
    supervisor
        .caps
        .iter()
        .find(|c| c.name == name)
        .map_or(0, |c| c.slot)
}

/// One slice literal per task, by task index, of the entries `of` gives.
fn per_task(manifest: &Manifest, of: impl Fn(usize) -> Vec<String>) -> Vec<String> {
    (0..manifest.tasks.len())
        .map(|task| format!("&[{}]", of(task).join(", ")))
        .collect()
}

/// The client tables of a server's receive slot `NAME`, aligned by index:
/// `NAME_CLIENTS`, the badges its clients call with (so it can size its
/// session table for them), their priorities and their quotas.
fn clients(out: &mut String, manifest: &Manifest, cap: &Cap) {
    let (name, base) = (&cap.name, cap.constant());
    let clients = manifest.endpoint_clients(cap.object);
    let priorities = manifest.endpoint_client_priorities(cap.object);
    let files = manifest.endpoint_client_files(cap.object);
    let tables: [(String, &str, &str, Vec<String>); 5] = [
        (
            format!("The badges of every capability that can call on `{name}` (its clients), ascending, each once."),
            CLIENTS_SUFFIX,
            "&[u64]",
            clients.iter().map(|b| hex(*b)).collect(),
        ),
        (
            format!("The priority of each of `{name}`'s clients, in the order of `{base}{CLIENTS_SUFFIX}` (the least urgent task calling with that badge)."),
            CLIENT_PRIORITIES_SUFFIX,
            "&[u8]",
            priorities.iter().map(|(_, p)| p.to_string()).collect(),
        ),
        (
            format!("The `quota` the manifest gives each of `{name}`'s clients (by the index in `{base}{CLIENTS_SUFFIX}`; `None`: the server's default)."),
            QUOTAS_SUFFIX,
            "&[Option<u32>]",
            clients
                .iter()
                .map(|b| format!("{:?}", manifest.client_quota(cap.object, *b)))
                .collect(),
        ),
        (
            format!("The root directory of each of `{name}`'s clients (`root`; \"/\" if not given), in the order of `{base}{CLIENTS_SUFFIX}`: no path the client names leads out of it."),
            CLIENT_ROOTS_SUFFIX,
            "&[&str]",
            files.iter().map(|(_, r)| format!("{:?}", r.root)).collect(),
        ),
        (
            format!("Whether each of `{name}`'s clients may only read (`access = \"read-only\"`), in the order of `{base}{CLIENTS_SUFFIX}`."),
            CLIENT_READ_ONLY_SUFFIX,
            "&[bool]",
            files
                .iter()
                .map(|(_, r)| (r.access == Access::ReadOnly).to_string())
                .collect(),
        ),
    ];
    for (doc, suffix, ty, values) in tables {
        let value = format!("&[{}]", values.join(", "));
        constant(out, INDENT, &doc, &format!("{base}{suffix}"), ty, &value);
    }
}

fn slot(out: &mut String, cap: &Cap, object: &Object) {
    let name = cap.constant();
    constant(
        out,
        INDENT,
        &describe(cap, object),
        &name,
        "usize",
        &cap.slot.to_string(),
    );
    let (Some(vaddr), Some(size)) = (cap.map_vaddr, object.spec.map_size()) else {
        return;
    };
    if let ObjectSpec::PciBar { .. } = object.spec {
        let doc = format!(
            "Address where BAR `{}` is mapped (its size is the device's, known at boot).",
            cap.name
        );
        constant(
            out,
            INDENT,
            &doc,
            &format!("{name}_ADDR"),
            "u64",
            &hex(vaddr),
        );
        let doc = format!(
            "Bytes of address space reserved at `{name}_ADDR`; the BAR is at most this large."
        );
        constant(
            out,
            INDENT,
            &doc,
            &format!("{name}_WINDOW"),
            "usize",
            &size.to_string(),
        );
        return;
    }
    let doc = format!("Address where `{}` is mapped.", cap.name);
    constant(
        out,
        INDENT,
        &doc,
        &format!("{name}_ADDR"),
        "u64",
        &hex(vaddr),
    );
    let doc = format!("Bytes mapped at `{name}_ADDR`.");
    constant(
        out,
        INDENT,
        &doc,
        &format!("{name}_SIZE"),
        "usize",
        &size.to_string(),
    );
}

/// "Slot of `echo`: endpoint `echo`, rights "wg", badge 7."
fn describe(cap: &Cap, object: &Object) -> String {
    let rights = rights_text(cap.rights);
    match object.spec {
        ObjectSpec::PciConfig { bdf } => {
            return format!(
                "Slot of `{}`: the configuration page of PCI function {}, rights {rights:?}.",
                cap.name,
                Bdf(bdf)
            )
        }
        ObjectSpec::PciBar { bdf, bar } => {
            return format!(
                "Slot of `{}`: BAR {bar} of PCI function {}, rights {rights:?}.",
                cap.name,
                Bdf(bdf)
            )
        }
        _ => {}
    }
    let Some(kind) = declared_kind(&object.spec) else {
        debug_assert!(matches!(object.spec, ObjectSpec::Faults { .. }));
        return format!(
            "Slot of `{}`: the endpoint on which the kernel reports tasks' faults (receive; the badge is the faulting task's index).",
            cap.name
        );
    };
    let badge = match cap.badge {
        0 => String::new(),
        badge => format!(", badge {badge}"),
    };
    format!(
        "Slot of `{}`: {} `{}`, rights {:?}{badge}.",
        cap.name,
        kind.short,
        object.name,
        rights_text(cap.rights)
    )
}

/// `0x2000_0000_2000`: hex in groups of four digits.
fn hex(value: u64) -> String {
    let digits = format!("{value:x}");
    let groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(4)
        .rev()
        .map(|group| std::str::from_utf8(group).expect("hex digits are ASCII"))
        .collect();
    format!("0x{}", groups.join("_"))
}

/// Writes `pub mod devices { ... }` for the devices `task` drives (none:
/// no module): per device `NAME_BDF` (u16, `conflux_abi::pci::Bdf`),
/// `NAME_KIND` (`"virtio-blk"`, ...), `NAME_DEVICE_ID` (the PCI device id
/// the function must report) and `NAME_GSI` (its interrupt line).
pub(super) fn devices(out: &mut String, manifest: &Manifest, index: usize) {
    let mut driven = manifest
        .devices
        .iter()
        .filter(|d| d.driver == index)
        .peekable();
    if driven.peek().is_none() {
        return;
    }
    out.push_str(
        "/// The PCI devices this task drives (`[devices.*]` with `driver` = this task).\n\
         #[allow(dead_code)]\n\
         pub mod devices {\n",
    );
    for device in driven {
        let name = constant_name(&device.name);
        let bdf = Bdf(device.bdf);
        let items = [
            (
                "BDF",
                "u16",
                format!("{:#06x}", device.bdf),
                format!(
                    "PCI address of `{}`: {bdf} (bus 0, slot {:#04x}, function 0).",
                    device.name,
                    device.slot()
                ),
            ),
            (
                "KIND",
                "&str",
                format!("{:?}", device.kind.as_str()),
                format!("The kind of `{}`.", device.name),
            ),
            (
                "DEVICE_ID",
                "u16",
                format!("{:#06x}", device.kind.pci_device_id()),
                format!(
                    "The PCI device id `{}` reports (vendor 0x1af4).",
                    device.name
                ),
            ),
            (
                "GSI",
                "u8",
                device.gsi.to_string(),
                format!("The interrupt line (GSI) of `{}`'s INTA#.", device.name),
            ),
        ];
        for (suffix, ty, value, doc) in items {
            constant(out, INDENT, &doc, &format!("{name}_{suffix}"), ty, &value);
        }
    }
    out.push_str("}\n");
}

/// Writes `pub mod device { ... }` for a task that drives exactly one
/// device: the same constants as `caps` and `devices`, under names that do
/// not depend on the device's name, so one driver crate serves any device
/// of its kind (`BDF`, `BAR_INDEX`, `CONFIG`, `CONFIG_ADDR`, `BAR`,
/// `BAR_ADDR`, `BAR_WINDOW`, `IRQ`, `IRQ_NOTIFY`, `DMA`, `DMA_ADDR`,
/// `DMA_SIZE`, and `CLIENTS`: per client (region slot, its address, its
/// size, the completion notification's slot)).
pub(super) fn device(out: &mut String, manifest: &Manifest, index: usize) {
    let mut driven = manifest.devices.iter().filter(|d| d.driver == index);
    let (Some(device), None) = (driven.next(), driven.next()) else {
        return;
    };
    let n = constant_name(&device.name);
    let c = |suffix: &str| format!("super::caps::{n}_{suffix}");
    out.push_str(
        "/// The one PCI device this task drives, under fixed names.\n\
         #[allow(dead_code)]\n\
         pub mod device {\n",
    );
    let items = [
        ("BDF", "u16", format!("super::devices::{n}_BDF"), "PCI address (`conflux_abi::pci::Bdf`)."),
        ("BAR_INDEX", "u8", crate::limits::VIRTIO_BAR.to_string(), "Which BAR `BAR` maps."),
        ("CONFIG", "usize", c("CONFIG"), "Slot of the configuration page."),
        ("CONFIG_ADDR", "u64", c("CONFIG_ADDR"), "Where the configuration page is mapped."),
        ("BAR", "usize", c("BAR"), "Slot of the BAR."),
        ("BAR_ADDR", "u64", c("BAR_ADDR"), "Where the BAR is mapped."),
        ("BAR_WINDOW", "usize", c("BAR_WINDOW"), "Bytes reserved for the BAR's mapping."),
        ("IRQ", "usize", c("IRQ"), "Slot of the interrupt line."),
        ("IRQ_NOTIFY", "usize", c("IRQ_NOTIFY"), "Slot of the notification the interrupt (bit 0) and the clients' doorbells (bits 1..) signal."),
        ("DMA", "usize", c("DMA"), "Slot of the DMA pool."),
        ("DMA_ADDR", "u64", c("DMA_ADDR"), "Where the DMA pool is mapped."),
        ("DMA_SIZE", "usize", c("DMA_SIZE"), "Bytes of the DMA pool."),
    ];
    for (name, ty, value, doc) in items {
        constant(out, INDENT, doc, name, ty, &value);
    }
    let clients: Vec<String> = (0..device.clients.len())
        .map(|i| {
            let k = |suffix: &str| c(&format!("CLIENT{i}{suffix}"));
            format!(
                "({}, {}, {}, {})",
                k(""),
                k("_ADDR"),
                k("_SIZE"),
                k("_DONE")
            )
        })
        .collect();
    constant(
        out,
        INDENT,
        "Per client (in `clients` order): its shared region's slot, address and size, and the slot of the notification to signal when its requests finish.",
        "CLIENTS",
        "&[(usize, u64, usize, usize)]",
        &format!("&[{}]", clients.join(", ")),
    );
    out.push_str("}\n");
}

/// `pub mod flows` for the flow manager (its stage tasks and slots, under
/// the `caps` constants' slots) and for each stage task (its doorbell bit).
pub(super) fn flows(out: &mut String, manifest: &Manifest, index: usize) {
    let Some(flows) = &manifest.flows else {
        return;
    };
    let stage = flows.stages.iter().any(|s| s.task == index);
    if flows.manager != index && !stage {
        return;
    }
    out.push_str(
        "/// `[flows]`: what this task needs to run flows.\n\
         #[allow(dead_code)]\n\
         pub mod flows {\n",
    );
    constant(
        out,
        INDENT,
        "The bit a neighbouring stage's doorbell sets in a stage task's notification.",
        "BELL_BIT",
        "u64",
        &format!("{:#x}", crate::model::BELL_BIT),
    );
    if flows.manager == index {
        let stages: Vec<String> = flows
            .stages
            .iter()
            .map(|s| {
                let name = &manifest.tasks[s.task].name;
                let n = constant_name(name);
                format!("({name:?}, super::caps::STAGE_{n}, super::caps::BELL_{n})")
            })
            .collect();
        constant(
            out,
            INDENT,
            "Each stage task: its name, the slot of its flow endpoint, the slot of its doorbell.",
            "STAGES",
            "&[(&str, usize, usize)]",
            &format!("&[{}]", stages.join(", ")),
        );
        let slots: Vec<String> = (0..flows.slots.len())
            .map(|n| {
                let edges: Vec<String> = (0..crate::model::EDGES)
                    .map(|e| format!("super::caps::FLOW{n}_EDGE{e}"))
                    .collect();
                let addrs: Vec<String> = (0..crate::model::EDGES)
                    .map(|e| format!("super::caps::FLOW{n}_EDGE{e}_ADDR"))
                    .collect();
                format!(
                    "(super::caps::FLOW{n}_POOL, [{}], [{}])",
                    edges.join(", "),
                    addrs.join(", ")
                )
            })
            .collect();
        constant(
            out,
            INDENT,
            "Each flow slot: the pool's slot, the edges' slots, and where the edges are mapped in this task.",
            "SLOTS",
            "&[(usize, [usize; 5], [u64; 5])]",
            &format!("&[{}]", slots.join(", ")),
        );
        constant(
            out,
            INDENT,
            "Bytes of each slot's pool.",
            "POOL_SIZE",
            "usize",
            &flows.pool_size.to_string(),
        );
        constant(
            out,
            INDENT,
            "Bytes of each edge region.",
            "EDGE_SIZE",
            "usize",
            &crate::model::EDGE_SIZE.to_string(),
        );
    }
    out.push_str("}\n");
}
