//! Sessions: which servers hear from the supervisor that a client is gone.
//!
//! An endpoint declared with `sessions = true` is served by a task that
//! keeps state per client (sockets, open files, flows), keyed by the badge
//! of the client's capability. When a task ends (fault, panic or exit),
//! the supervisor tells each such server the task was a client of that
//! the badge's holder is gone (`CLIENT_GONE_LABEL`), and the server ends
//! that session as a reconnect would. For that the supervisor gets one
//! capability per sessions endpoint, `gone_NAME` (send only), with the
//! reserved badge `SUPERVISOR_BADGE`: above every badge the manifest
//! accepts (`0..=i64::MAX`), refused by the kernel's `cap_mint`, and left
//! out of the server's `NAME_CLIENTS`, so no client can pose as the
//! supervisor and the supervisor takes no client's session slot. Its
//! generated tables say which task holds which (endpoint, badge).

use conflux_abi::cap::rights::{READ, WRITE};
use conflux_abi::ipc::{RESERVED_BADGES, SUPERVISOR_BADGE};

use crate::error::Error;
use crate::model::{Manifest, ObjectSpec};

/// The slot name the supervisor's capability to sessions endpoint `name`
/// gets (its constant: `GONE_NAME`).
pub(crate) fn slot_name(endpoint: &str) -> String {
    format!("gone_{endpoint}")
}

// Every badge the manifest accepts is at most i64::MAX: none is reserved.
const _: () = assert!((i64::MAX as u64) < RESERVED_BADGES);

/// The object ids of the endpoints named with `sessions = true`, checked:
/// the system has a supervisor, and it does not serve them.
pub(crate) fn resolve(
    manifest: &Manifest,
    names: &[String],
    supervisor: Option<usize>,
) -> Result<Vec<usize>, Error> {
    let mut ids = Vec::new();
    for name in names {
        let Some(id) = manifest
            .objects
            .iter()
            .position(|o| o.name == *name && matches!(o.spec, ObjectSpec::Endpoint { .. }))
        else {
            continue; // read from `[endpoints.NAME]`, so it exists
        };
        let Some(supervisor) = supervisor else {
            return Err(Error::SessionsWithoutSupervisor {
                origin: manifest.origin.clone(),
                endpoint: name.clone(),
            });
        };
        if manifest.objects[id].spec.server() == Some(supervisor) {
            return Err(Error::SessionsOfSupervisor {
                origin: manifest.origin.clone(),
                endpoint: name.clone(),
                supervisor: manifest.tasks[supervisor].name.clone(),
            });
        }
        ids.push(id);
    }
    ids.sort_unstable();
    Ok(ids)
}

/// The supervisor's capabilities: (slot name, endpoint object, rights,
/// badge), one per sessions endpoint, in object order.
pub(crate) fn supervisor_caps(manifest: &Manifest) -> Vec<(String, usize, u8, u64)> {
    manifest
        .sessions
        .iter()
        .map(|&id| {
            let name = slot_name(&manifest.objects[id].name);
            (name, id, WRITE, SUPERVISOR_BADGE)
        })
        .collect()
}

/// What task `task` is a client of: (index into `manifest.sessions`,
/// badge) for each distinct badge it holds to a sessions endpoint it does
/// not serve itself.
pub fn client_of(manifest: &Manifest, task: usize) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    for (k, &id) in manifest.sessions.iter().enumerate() {
        if manifest.objects[id].spec.server() == Some(task) {
            continue;
        }
        let mut badges: Vec<u64> = manifest.tasks[task]
            .caps
            .iter()
            .filter(|c| c.object == id && c.rights & READ == 0 && c.badge != SUPERVISOR_BADGE)
            .map(|c| c.badge)
            .collect();
        badges.sort_unstable();
        badges.dedup();
        out.extend(badges.into_iter().map(|b| (k, b)));
    }
    out
}
