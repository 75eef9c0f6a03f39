//! Supervision: which task hears about faults, and which tasks it restarts.
//!
//! The kernel turns a task's fault into a message on an endpoint served by
//! the supervisor (badge: the faulting task's index); the supervisor then
//! restarts the task if its `restart` is `"on-fault"`. So a restart policy
//! needs a supervisor, and the supervisor itself must not rely on one. The
//! fault endpoint is not declared in the manifest: it is made here, as the
//! last object, and reaches the supervisor in slot 1 (see `slots`).

use crate::error::Error;
use crate::model::{Manifest, Object, ObjectSpec, Restart, Task};
use crate::resolve;

/// The slot name (and constant, `FAULTS`) of the supervisor's fault
/// endpoint.
pub(crate) const FAULTS: &str = "faults";

/// Checks `system.supervisor` and every task's `restart` (tasks in start
/// order); returns the supervisor's task index.
pub(crate) fn check(manifest: &Manifest) -> Result<Option<usize>, Error> {
    let supervisor = manifest
        .system
        .supervisor
        .as_deref()
        .map(|name| task_index(manifest, name))
        .transpose()?;
    let on_fault = |task: &Task| task.restart != Restart::Never;
    let wrong = match supervisor {
        Some(index) => on_fault(&manifest.tasks[index]).then(|| Error::SupervisorRestarts {
            origin: manifest.origin.clone(),
            task: manifest.tasks[index].name.clone(),
            policy: manifest.tasks[index].restart.as_str(),
        }),
        None => manifest
            .tasks
            .iter()
            .find(|task| on_fault(task))
            .map(|task| Error::RestartWithoutSupervisor {
                origin: manifest.origin.clone(),
                task: task.name.clone(),
                policy: task.restart.as_str(),
            }),
    };
    wrong.map_or(Ok(supervisor), Err)
}

/// The index of the supervisor task `name`.
fn task_index(manifest: &Manifest, name: &str) -> Result<usize, Error> {
    resolve::find(&resolve::task_names(manifest), name).map_err(|suggestion| {
        Error::UnknownSupervisor {
            origin: manifest.origin.clone(),
            value: name.to_owned(),
            suggestion,
        }
    })
}

/// The fault endpoint object for a system supervised by task `supervisor`.
pub(crate) fn faults_object(supervisor: usize) -> Object {
    Object {
        name: FAULTS.to_owned(),
        spec: ObjectSpec::Faults { supervisor },
    }
}
