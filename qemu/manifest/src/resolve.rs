//! Names to indices: each endpoint's server becomes a task index (in start
//! order) and each IRQ's notification an object id, with a "did you mean"
//! when a name matches nothing. The supervisor's fault endpoint is appended
//! last, and the total is checked against the boot image's object table.

use crate::device_table::{self, DeviceDecl};
use crate::error::Error;
use crate::flow_table::{self, FlowsDecl};
use crate::limits::MAX_OBJECTS;
use crate::model::{Device, Flows, Manifest, Object, ObjectSpec};
use crate::suggest::{Suggestion, Words};
use crate::supervision;

/// Every object, the devices and the flows, resolved.
pub(crate) type Lowered = (Vec<Object>, Vec<Device>, Option<Flows>);

/// The objects of `manifest` (whose tasks are in start order) with every
/// reference resolved: the declared ones, the devices' (see
/// `device_table`), the flows' (see `flow_table`), then the fault
/// endpoint; and the devices and flows.
pub(crate) fn objects(
    manifest: &Manifest,
    declared: &[Object<String>],
    devices: &[DeviceDecl],
    flows: Option<&FlowsDecl>,
    supervisor: Option<usize>,
) -> Result<Lowered, Error> {
    let tasks = task_names(manifest);
    let notifications: Vec<(usize, &str)> = declared
        .iter()
        .enumerate()
        .filter(|(_, object)| object.spec == ObjectSpec::Notification)
        .map(|(id, object)| (id, object.name.as_str()))
        .collect();
    let mut objects = declared
        .iter()
        .cloned()
        .map(|object| resolve(manifest, object, &tasks, &notifications))
        .collect::<Result<Vec<_>, _>>()?;
    let devices = device_table::lower(manifest, devices, &mut objects)?;
    let flows = flows
        .map(|f| flow_table::lower(manifest, f, &devices, &mut objects))
        .transpose()?;
    objects.extend(supervisor.map(supervision::faults_object));
    if objects.len() > MAX_OBJECTS {
        return Err(Error::TooManyObjects {
            origin: manifest.origin.clone(),
            count: objects.len(),
            max: MAX_OBJECTS,
        });
    }
    Ok((objects, devices, flows))
}

fn resolve(
    manifest: &Manifest,
    object: Object<String>,
    tasks: &[(usize, &str)],
    notifications: &[(usize, &str)],
) -> Result<Object, Error> {
    let origin = || manifest.origin.clone();
    let name = object.name;
    let spec = object.spec.map_refs(
        |server| {
            find(tasks, &server).map_err(|suggestion| Error::UnknownServer {
                origin: origin(),
                endpoint: name.clone(),
                value: server,
                suggestion,
            })
        },
        |notification| {
            find(notifications, &notification).map_err(|suggestion| Error::UnknownNotification {
                origin: origin(),
                irq: name.clone(),
                value: notification,
                suggestion,
            })
        },
    )?;
    Ok(Object { name, spec })
}

/// Every task's index and name, for [`find`].
pub(crate) fn task_names(manifest: &Manifest) -> Vec<(usize, &str)> {
    manifest
        .tasks
        .iter()
        .enumerate()
        .map(|(index, task)| (index, task.name.as_str()))
        .collect()
}

/// The index paired with `name` among `candidates`, or the suggestion to
/// report.
pub(crate) fn find(candidates: &[(usize, &str)], name: &str) -> Result<usize, Box<Suggestion>> {
    let found = candidates.iter().find(|(_, candidate)| *candidate == name);
    found.map(|(index, _)| *index).ok_or_else(|| {
        let names: Vec<&str> = candidates.iter().map(|(_, candidate)| *candidate).collect();
        Box::new(Suggestion::new(name, &names, Words::Values))
    })
}
