//! Capability slots: which object each of a task's slots holds, with what
//! rights, and where regions and MMIO ranges are mapped.
//!
//! Slot 0 stays empty, so a zeroed slot number never names a capability.
//! The supervisor's slot 1 is its fault endpoint. Then come the task's
//! `caps` entries in document order, then a receive capability for each
//! endpoint the task serves but holds no receive right on. Region and MMIO
//! capabilities are mapped from `REGION_BASE` up, in slot order, with one
//! unmapped guard page after each. Last come a driver's capabilities to
//! each device it drives, in device order (see `device_slots`); a BAR
//! takes a `BAR_WINDOW` of address space, since its size is known only at
//! boot. Both the boot image and the generated
//! constants are read from the result, so they always agree.

use conflux_abi::cap::rights::{DMA, GRANT, READ, WRITE};

use crate::caps::{default_rights, CapDecl};
use crate::device_table::owner_of;
use crate::error::{Error, FileRightsRule};
use crate::limits::{CAP_SLOTS, MAX_CAPS, PAGE_SIZE, REGION_BASE};
use crate::model::{Cap, Device, FileRights, Manifest, ObjectSpec, BELL_BIT};
use crate::objects::declared_kind;
use crate::resolve;
use crate::strict::join;
use crate::supervision::FAULTS;

/// The constant every task's `caps` module ends with.
pub(crate) const FIRST_FREE: &str = "FIRST_FREE";
/// The constants only the supervisor's `caps` module has.
pub(crate) const TASK_NAMES: &str = "TASK_NAMES";
pub(crate) const RESTART_ON_FAULT: &str = "RESTART_ON_FAULT";
pub(crate) const RESTART_ON_EXIT: &str = "RESTART_ON_EXIT";
pub(crate) const SESSION_SERVERS: &str = "SESSION_SERVERS";
pub(crate) const CLIENT_OF: &str = "CLIENT_OF";
pub(crate) const DEVICE_GONE: &str = "DEVICE_GONE";
/// A server's receive slot `NAME` also gives `NAME_CLIENTS`, the badges
/// its clients call with, and aligned with them `NAME_CLIENT_PRIORITIES`
/// (their priorities), `NAME_CLIENT_QUOTAS` (each client's `quota`),
/// `NAME_CLIENT_ROOTS` and `NAME_CLIENT_READ_ONLY` (their file rights).
pub(crate) const CLIENTS_SUFFIX: &str = "_CLIENTS";
pub(crate) const CLIENT_PRIORITIES_SUFFIX: &str = "_CLIENT_PRIORITIES";
pub(crate) const QUOTAS_SUFFIX: &str = "_CLIENT_QUOTAS";
pub(crate) const CLIENT_ROOTS_SUFFIX: &str = "_CLIENT_ROOTS";
pub(crate) const CLIENT_READ_ONLY_SUFFIX: &str = "_CLIENT_READ_ONLY";
/// Every constant a server's receive slot adds, by suffix.
pub(crate) const SERVER_SUFFIXES: [&str; 5] = [
    CLIENTS_SUFFIX,
    CLIENT_PRIORITIES_SUFFIX,
    QUOTAS_SUFFIX,
    CLIENT_ROOTS_SUFFIX,
    CLIENT_READ_ONLY_SUFFIX,
];

/// A filled slot and why the task has it (for messages).
struct Slot {
    cap: Cap,
    given: Given,
}

enum Given {
    /// A `caps` entry.
    Declared,
    /// The receive capability of an endpoint the task serves.
    Server,
    /// The supervisor's fault endpoint.
    Faults,
    /// The supervisor's capability to a sessions endpoint (`sessions`).
    Sessions,
    /// The supervisor's "client is gone" capability to a device's
    /// notification (`device_gone`).
    DeviceGone,
    /// One of the objects of the device the task drives.
    Device,
    /// Flows: a stage task's endpoint and bell, or the manager's stages,
    /// bells and slot regions (see `flow_table`).
    Flow,
}

/// Every task's capabilities (tasks in start order, `decls` parallel).
pub(crate) fn assign(
    manifest: &Manifest,
    decls: &[Vec<CapDecl>],
    supervisor: Option<usize>,
) -> Result<Vec<Vec<Cap>>, Error> {
    let tables = decls
        .iter()
        .enumerate()
        .map(|(task, decls)| task_caps(manifest, task, decls, supervisor))
        .collect::<Result<Vec<_>, _>>()?;
    check_quotas(manifest, &tables)?;
    let count = tables.iter().map(Vec::len).sum();
    if count > MAX_CAPS {
        return Err(Error::TooManySystemCaps {
            origin: manifest.origin.clone(),
            count,
            max: MAX_CAPS,
        });
    }
    Ok(tables)
}

fn task_caps(
    manifest: &Manifest,
    task: usize,
    decls: &[CapDecl],
    supervisor: Option<usize>,
) -> Result<Vec<Cap>, Error> {
    let mut slots = Vec::new();
    if supervisor == Some(task) {
        // Slots are numbered from 1 in order, so pushing it first puts it
        // where the kernel sends fault messages (checked below).
        const _: () = assert!(conflux_abi::ipc::SUPERVISOR_FAULT_SLOT == 1);
        slots.push(faults(manifest));
    }
    for decl in decls {
        slots.push(declared(manifest, task, decl)?);
    }
    if supervisor == Some(task) {
        slots.extend(crate::sessions::supervisor_caps(manifest).into_iter().map(
            |(name, object, rights, badge)| Slot {
                cap: cap(&name, object, rights, badge),
                given: Given::Sessions,
            },
        ));
        slots.extend(
            crate::device_gone::supervisor_caps(manifest)
                .into_iter()
                .map(|(name, object, rights, badge)| Slot {
                    cap: cap(&name, object, rights, badge),
                    given: Given::DeviceGone,
                }),
        );
    }
    slots.extend(flow_slots(manifest, task));
    let own = served(manifest, task, &slots);
    slots.extend(own);
    for device in manifest.devices.iter().filter(|d| d.driver == task) {
        slots.extend(device_slots(device));
        slots.extend(driver_client_slots(device));
    }
    for device in &manifest.devices {
        if let Some(i) = device.clients.iter().position(|c| c.task == task) {
            slots.extend(client_slots(device, i));
        }
    }
    let count = slots.len() + 1;
    if count > CAP_SLOTS {
        return Err(Error::TooManyCaps {
            origin: manifest.origin.clone(),
            task: manifest.tasks[task].name.clone(),
            count,
            max: CAP_SLOTS,
        });
    }
    place(manifest, &mut slots);
    check_constants(manifest, task, supervisor == Some(task), &slots)?;
    Ok(slots.into_iter().map(|slot| slot.cap).collect())
}

/// A capability with its slot and mapping still to be placed.
fn cap(name: &str, object: usize, rights: u8, badge: u64) -> Cap {
    Cap {
        name: name.to_owned(),
        slot: 0,
        object,
        rights,
        badge,
        quota: None,
        map_vaddr: None,
        files: FileRights::default(),
    }
}

fn faults(manifest: &Manifest) -> Slot {
    let object = manifest
        .objects
        .iter()
        .position(|object| matches!(object.spec, ObjectSpec::Faults { .. }))
        .expect("a supervised system has a fault endpoint");
    Slot {
        cap: cap(FAULTS, object, READ, 0),
        given: Given::Faults,
    }
}

/// The slot for one `caps` entry of task `holder`.
fn declared(manifest: &Manifest, holder: usize, decl: &CapDecl) -> Result<Slot, Error> {
    let candidates: Vec<(usize, &str)> = manifest
        .objects
        .iter()
        .enumerate()
        .filter(|(_, object)| declared_kind(&object.spec).is_some_and(|k| k.kind == decl.kind.kind))
        .map(|(id, object)| (id, object.name.as_str()))
        .collect();
    if let Some((id, device)) = manifest
        .objects
        .iter()
        .enumerate()
        .find_map(|(id, object)| {
            (object.name == decl.object).then(|| owner_of(manifest, id).map(|d| (id, d)))?
        })
    {
        return Err(Error::DeviceObject {
            origin: manifest.origin.clone(),
            path: join(&decl.path, decl.kind.key),
            object: manifest.objects[id].name.clone(),
            device: device.name.clone(),
            driver: manifest.tasks[device.driver].name.clone(),
        });
    }
    let flow_objects = manifest
        .flows
        .as_ref()
        .map(|f| f.all_objects())
        .unwrap_or_default();
    if let Some(&id) = flow_objects
        .iter()
        .find(|&&id| manifest.objects[id].name == decl.object)
    {
        let manager = manifest.flows.as_ref().map_or(0, |f| f.manager);
        return Err(Error::FlowObject {
            origin: manifest.origin.clone(),
            path: join(&decl.path, decl.kind.key),
            object: manifest.objects[id].name.clone(),
            manager: manifest.tasks[manager].name.clone(),
        });
    }
    let candidates: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter(|(id, _)| owner_of(manifest, *id).is_none() && !flow_objects.contains(id))
        .collect();
    let object =
        resolve::find(&candidates, &decl.object).map_err(|suggestion| Error::UnknownObject {
            origin: manifest.origin.clone(),
            path: join(&decl.path, decl.kind.key),
            kind: decl.kind.noun,
            table: decl.kind.table,
            value: decl.object.clone(),
            suggestion,
        })?;
    let server = manifest.objects[object].spec.server();
    let serves = server == Some(holder);
    let rights = decl
        .rights
        .unwrap_or_else(|| default_rights(decl.kind.kind, serves));
    if let Some(server) = server.filter(|_| !serves && rights & READ != 0) {
        return Err(Error::NotTheServer {
            origin: manifest.origin.clone(),
            path: join(&decl.path, "rights"),
            endpoint: decl.object.clone(),
            server: manifest.tasks[server].name.clone(),
        });
    }
    if serves && decl.files.is_some() {
        return Err(Error::FileRights {
            origin: manifest.origin.clone(),
            path: decl.path.clone(),
            rule: Box::new(FileRightsRule::OnServer {
                endpoint: decl.object.clone(),
            }),
        });
    }
    Ok(Slot {
        cap: Cap {
            quota: decl.quota,
            files: decl.files.clone().unwrap_or_default(),
            ..cap(&decl.name, object, rights, decl.badge)
        },
        given: Given::Declared,
    })
}

/// A driver's capabilities to its device, named `NAME_config` (mapped),
/// `NAME_bar` (mapped), `NAME_irq`, `NAME_irq_notify` (read) and
/// `NAME_dma` (mapped, with the DMA right).
fn device_slots(device: &Device) -> [Slot; 5] {
    let o = &device.objects;
    let name = |suffix: &str| format!("{}_{suffix}", device.name);
    let rw = READ | WRITE;
    [
        (name("config"), o.config, rw),
        (name("bar"), o.bar, rw),
        (name("irq"), o.irq, rw),
        (name("irq_notify"), o.notify, READ),
        (name("dma"), o.dma, rw | DMA),
    ]
    .map(|(name, object, rights)| Slot {
        cap: cap(&name, object, rights, 0),
        given: Given::Device,
    })
}

/// A driver's capabilities to each client's connection: `NAME_clientI`
/// (the shared region, mapped, with the DMA right so the device reads and
/// writes the client's buffers in place) and `NAME_clientI_done` (the
/// notification it signals when requests finish).
fn driver_client_slots(device: &Device) -> Vec<Slot> {
    device
        .clients
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            [
                (
                    format!("{}_client{i}", device.name),
                    c.region,
                    READ | WRITE | DMA,
                    0,
                ),
                (format!("{}_client{i}_done", device.name), c.done, WRITE, 0),
            ]
        })
        .map(|(name, object, rights, badge)| Slot {
            cap: cap(&name, object, rights, badge),
            given: Given::Device,
        })
        .collect()
}

/// Client `i`'s capabilities to its connection with the device's driver:
/// `NAME` (the shared region, mapped), `NAME_done` (the driver's
/// completions; read, and write so that the client may also arm its timer
/// on it: a task binds one notification to its endpoint, so a server that
/// waits for calls, completions and timeouts in one receive needs them all
/// on this one) and `NAME_doorbell` (write, badged with bit `1 + i` of the
/// driver's notification, whose bit 0 is the interrupt).
fn client_slots(device: &Device, i: usize) -> [Slot; 3] {
    let c = &device.clients[i];
    [
        (device.name.clone(), c.region, READ | WRITE, 0),
        (format!("{}_done", device.name), c.done, READ | WRITE, 0),
        (
            format!("{}_doorbell", device.name),
            device.objects.notify,
            WRITE,
            Device::doorbell_badge(i),
        ),
    ]
    .map(|(name, object, rights, badge)| Slot {
        cap: cap(&name, object, rights, badge),
        given: Given::Device,
    })
}

/// A stage task's `flow` endpoint (read) and, if made for it, its
/// `flow_bell` (read, and write so the task can arm its timer on it and
/// wake itself); the manager's `stage_T`/`bell_T` per stage task and
/// `flowN_pool`/`flowN_edgeE` per slot.
fn flow_slots(manifest: &Manifest, task: usize) -> Vec<Slot> {
    let Some(flows) = &manifest.flows else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut push = |name: String, object, rights, badge| {
        out.push(Slot {
            cap: cap(&name, object, rights, badge),
            given: Given::Flow,
        })
    };
    if let Some(stage) = flows.stages.iter().find(|s| s.task == task) {
        push("flow".to_owned(), stage.endpoint, READ, 0);
        if stage.own_bell {
            push("flow_bell".to_owned(), stage.bell, READ | WRITE, 0);
        }
    }
    if flows.manager == task {
        for stage in &flows.stages {
            let name = &manifest.tasks[stage.task].name;
            push(format!("stage_{name}"), stage.endpoint, WRITE | GRANT, 0);
            push(format!("bell_{name}"), stage.bell, WRITE, BELL_BIT);
        }
        for (n, slot) in flows.slots.iter().enumerate() {
            push(format!("flow{n}_pool"), slot.pool, READ | WRITE | DMA, 0);
            for (e, &edge) in slot.edges.iter().enumerate() {
                push(format!("flow{n}_edge{e}"), edge, READ | WRITE, 0);
            }
        }
    }
    out
}

/// Receive capabilities for the endpoints `task` serves without holding one.
fn served(manifest: &Manifest, task: usize, slots: &[Slot]) -> Vec<Slot> {
    let receives = |id| {
        slots
            .iter()
            .any(|slot| slot.cap.object == id && slot.cap.rights & READ != 0)
    };
    manifest
        .objects
        .iter()
        .enumerate()
        .filter(|(id, object)| {
            object.spec == ObjectSpec::Endpoint { server: task } && !receives(*id)
        })
        .map(|(id, object)| Slot {
            cap: cap(&object.name, id, READ, 0),
            given: Given::Server,
        })
        .collect()
}

/// Numbers the slots from 1 and maps regions and MMIO ranges.
fn place(manifest: &Manifest, slots: &mut [Slot]) {
    let mut next = REGION_BASE;
    for (index, slot) in slots.iter_mut().enumerate() {
        slot.cap.slot = index + 1;
        if let Some(size) = manifest.object_of(&slot.cap).spec.map_size() {
            slot.cap.map_vaddr = Some(next);
            next += size + u64::from(PAGE_SIZE);
        }
    }
}

/// A badge on an endpoint is one client: capabilities that share it may
/// give it a quota once (or the same one again), not two.
fn check_quotas(manifest: &Manifest, tables: &[Vec<Cap>]) -> Result<(), Error> {
    let mut given: Vec<(usize, u64, String, u32)> = Vec::new();
    for (task, caps) in tables.iter().enumerate() {
        for cap in caps {
            let Some(quota) = cap.quota else { continue };
            let path = format!("tasks.{}.caps.{}", manifest.tasks[task].name, cap.name);
            let same = given
                .iter()
                .find(|(o, b, _, q)| *o == cap.object && *b == cap.badge && *q != quota);
            if let Some((_, _, first, first_quota)) = same {
                return Err(Error::ConflictingQuotas {
                    origin: manifest.origin.clone(),
                    endpoint: manifest.objects[cap.object].name.clone(),
                    badge: cap.badge,
                    first: (first.clone(), *first_quota),
                    second: (path, quota),
                });
            }
            given.push((cap.object, cap.badge, path, quota));
        }
    }
    Ok(())
}

/// Two slots must not generate the same constant (`a-b` and `a_b` both
/// give `A_B`; a region `x` gives `X_ADDR`, as would a slot `x_addr`).
fn check_constants(
    manifest: &Manifest,
    task: usize,
    supervises: bool,
    slots: &[Slot],
) -> Result<(), Error> {
    let mut seen = vec![(
        FIRST_FREE.to_owned(),
        format!("`{FIRST_FREE}` (which every task has)"),
    )];
    if supervises {
        let generated = [
            TASK_NAMES,
            RESTART_ON_FAULT,
            RESTART_ON_EXIT,
            SESSION_SERVERS,
            CLIENT_OF,
            DEVICE_GONE,
        ];
        seen.extend(generated.map(|name| {
            (
                name.to_owned(),
                format!("`{name}` (which the supervisor has)"),
            )
        }));
    }
    for slot in slots {
        let base = slot.cap.constant();
        let mut names = vec![base.clone()];
        let object = manifest.object_of(&slot.cap);
        if crate::model::is_receive_cap(object, task, &slot.cap) {
            names.extend(SERVER_SUFFIXES.map(|suffix| format!("{base}{suffix}")));
        }
        if slot.cap.map_vaddr.is_some() {
            let size = match manifest.object_of(&slot.cap).spec {
                ObjectSpec::PciBar { .. } => "WINDOW",
                _ => "SIZE",
            };
            names.extend([format!("{base}_ADDR"), format!("{base}_{size}")]);
        }
        for constant in names {
            if let Some((_, first)) = seen.iter().find(|(name, _)| *name == constant) {
                return Err(Error::ConstantClash {
                    origin: manifest.origin.clone(),
                    task: manifest.tasks[task].name.clone(),
                    first: first.clone(),
                    second: slot.describe(),
                    constant,
                });
            }
            seen.push((constant, slot.describe()));
        }
    }
    Ok(())
}

impl Slot {
    fn describe(&self) -> String {
        let name = &self.cap.name;
        match self.given {
            Given::Declared => format!("capability `{name}`"),
            Given::Server => format!(
                "capability `{name}` (its server's receive capability for endpoint `{name}`)"
            ),
            Given::Faults => format!("capability `{name}` (the supervisor's fault endpoint)"),
            Given::Sessions => format!(
                "capability `{name}` (the supervisor's capability to a `sessions = true` endpoint)"
            ),
            Given::DeviceGone => format!(
                "capability `{name}` (the supervisor's capability that tells a device's driver a client is gone)"
            ),
            Given::Device => format!("capability `{name}` (given to a device's driver)"),
            Given::Flow => format!("capability `{name}` (made for `[flows]`)"),
        }
    }
}
