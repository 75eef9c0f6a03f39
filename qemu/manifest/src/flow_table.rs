//! `[flows]`: the flow manager and the tasks that run flow stages.
//!
//! ```toml
//! [flows]
//! manager = "flowmgr"                   # the task running flowmgr
//! slots = 4                             # flows that can exist at once
//! pool_size = "2MiB"                    # each flow's buffer pool
//! stages = ["blk", "crypto", "flowsoft"] # tasks that run stages
//! ```
//!
//! Objects made, after the devices' and before the fault endpoint: for
//! each stage task `T`, an endpoint `T.flow` it serves and, unless it
//! drives a device (whose notification it already waits on), a
//! notification `T.bell`; for each slot `N`, a region `flowN.pool`
//! (`pool_size`) and five one-page regions `flowN.edgeE`. Capabilities (see
//! `slots`): `T` gets `flow` (read) and, for its own bell, `flow_bell`
//! (read and write: its timer can ring it); the manager gets `stage_T` (the endpoint, write and grant, to
//! hand capabilities over), `bell_T` (the doorbell, write, badged with
//! `BELL_BIT`), `flowN_pool` (read, write, DMA: stages hand pool buffers
//! to their devices) and `flowN_edgeE` (read, write). Only the manager
//! holds these regions; it hands copies to stages and revokes them.
//!
//! A stage task's stack is at least [`STAGE_STACK`]: it keeps every flow
//! it may serve (their edge ends, two lanes each) in place.

use crate::device_table::size_key;
use crate::error::Error;
use crate::limits::{MIB, PAGE_SIZE};
use crate::model::Device;
use crate::model::{FlowSlot, FlowStage, Flows, Manifest, Object, ObjectSpec, EDGES, EDGE_SIZE};
use crate::resolve;
use crate::rules::{self, Unit};
use crate::strict::Fields;

/// Keys allowed in `[flows]`.
pub(crate) const KEYS: &[&str] = &["manager", "slots", "pool_size", "stages"];
/// Most flow slots: each takes six of the manager's 64 capability slots.
pub const MAX_FLOW_SLOTS: u32 = 6;
/// Most stage tasks: each takes two of the manager's slots.
pub const MAX_FLOW_STAGES: usize = 8;
const DEFAULT_POOL: u64 = 2 * MIB as u64;
/// The smallest stack a stage task gets, in bytes.
pub const STAGE_STACK: u32 = 32 * 1024;

/// Raises every stage task's stack to at least [`STAGE_STACK`].
pub(crate) fn stage_stacks(manifest: &mut Manifest) {
    let Some(flows) = manifest.flows.as_ref() else {
        return;
    };
    for s in &flows.stages {
        if let Some(t) = manifest.tasks.get_mut(s.task) {
            t.stack_size = t.stack_size.max(STAGE_STACK);
        }
    }
}

/// `[flows]` with its single values checked; tasks still names.
pub(crate) struct FlowsDecl {
    manager: String,
    slots: u32,
    pool_size: u64,
    stages: Vec<String>,
}

/// Reads `[flows]`, if present.
pub(crate) fn read(top: &Fields) -> Result<Option<FlowsDecl>, Error> {
    let Some(fields) = top.optional_table("flows", KEYS)? else {
        return Ok(None);
    };
    let manager: &str = fields.required("manager")?;
    let stages = fields.optional::<Vec<&str>>("stages")?.unwrap_or_default();
    if stages.len() > MAX_FLOW_STAGES {
        return Err(Error::TooManyFlowStages {
            origin: fields.origin().to_owned(),
            count: stages.len(),
            max: MAX_FLOW_STAGES,
        });
    }
    Ok(Some(FlowsDecl {
        manager: manager.to_owned(),
        slots: rules::integer(&fields, "slots", Some(4), 1, MAX_FLOW_SLOTS, Unit::Count)?,
        pool_size: size_key(&fields, "pool_size", DEFAULT_POOL)?,
        stages: stages.into_iter().map(str::to_owned).collect(),
    }))
}

/// Resolves the tasks and appends the flow objects to `objects`.
pub(crate) fn lower(
    manifest: &Manifest,
    decl: &FlowsDecl,
    devices: &[Device],
    objects: &mut Vec<Object>,
) -> Result<Flows, Error> {
    let tasks = resolve::task_names(manifest);
    let find = |path: &str, name: &str| {
        resolve::find(&tasks, name).map_err(|suggestion| Error::UnknownFlowTask {
            origin: manifest.origin.clone(),
            path: path.to_owned(),
            value: name.to_owned(),
            suggestion,
        })
    };
    let manager = find("flows.manager", &decl.manager)?;
    let mut add = |name: String, spec| {
        objects.push(Object { name, spec });
        objects.len() - 1
    };
    let mut stages: Vec<FlowStage> = Vec::new();
    for name in &decl.stages {
        let task = find("flows.stages", name)?;
        if task == manager || stages.iter().any(|s| s.task == task) {
            return Err(Error::FlowStageTwice {
                origin: manifest.origin.clone(),
                task: name.clone(),
                manager: task == manager,
            });
        }
        let endpoint = add(
            format!("{name}.flow"),
            ObjectSpec::Endpoint { server: task },
        );
        let (bell, own_bell) = match devices.iter().find(|d| d.driver == task) {
            Some(device) => (device.objects.notify, false),
            None => (add(format!("{name}.bell"), ObjectSpec::Notification), true),
        };
        stages.push(FlowStage {
            task,
            endpoint,
            bell,
            own_bell,
        });
    }
    let slots = (0..decl.slots)
        .map(|n| FlowSlot {
            pool: add(
                format!("flow{n}.pool"),
                ObjectSpec::Region {
                    size: decl.pool_size,
                },
            ),
            edges: std::array::from_fn(|e| {
                add(
                    format!("flow{n}.edge{e}"),
                    ObjectSpec::Region { size: EDGE_SIZE },
                )
            }),
        })
        .collect();
    const _: () = assert!(EDGE_SIZE.is_multiple_of(PAGE_SIZE as u64) && EDGES == 5);
    Ok(Flows {
        manager,
        stages,
        slots,
        pool_size: decl.pool_size,
    })
}
