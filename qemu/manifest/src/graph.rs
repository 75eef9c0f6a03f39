//! The call graph must be acyclic.
//!
//! `call` blocks the caller until the server replies. A task holding the
//! right to send (`w`) on an endpoint served by another task may call that
//! task: an edge client → server. If the edges form a cycle, every task on
//! it can end up blocked in a call to the next, and none ever replies. So a
//! cycle is rejected, naming its tasks in order (`a -> b -> a`). A server
//! that needs to tell a client something replies, or signals a
//! notification, which never blocks.

use conflux_abi::cap::rights::WRITE;

use crate::error::Error;
use crate::model::{Manifest, ObjectSpec};

/// Rejects the first cycle found, searching from tasks in start order.
pub(crate) fn check(manifest: &Manifest) -> Result<(), Error> {
    let mut search = Search {
        edges: edges(manifest),
        state: vec![State::New; manifest.tasks.len()],
        path: Vec::new(),
    };
    for task in 0..manifest.tasks.len() {
        if let Some(cycle) = search.visit(task) {
            return Err(Error::CallCycle {
                origin: manifest.origin.clone(),
                cycle: cycle
                    .into_iter()
                    .map(|task| manifest.tasks[task].name.clone())
                    .collect(),
            });
        }
    }
    Ok(())
}

/// For each task, the tasks it may call, in slot order without repeats.
fn edges(manifest: &Manifest) -> Vec<Vec<usize>> {
    let callee = |cap: &crate::Cap| match manifest.object_of(cap).spec {
        ObjectSpec::Endpoint { server } if cap.rights & WRITE != 0 => Some(server),
        _ => None,
    };
    manifest
        .tasks
        .iter()
        .enumerate()
        .map(|(task, t)| {
            let mut servers: Vec<usize> = Vec::new();
            for server in t.caps.iter().filter_map(callee) {
                if server != task && !servers.contains(&server) {
                    servers.push(server);
                }
            }
            servers
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    New,
    /// On the current search path.
    Open,
    /// Fully explored: no cycle through it.
    Done,
}

/// A depth-first search that keeps the current path, so that a cycle can
/// be reported as the tasks on it.
struct Search {
    edges: Vec<Vec<usize>>,
    state: Vec<State>,
    path: Vec<usize>,
}

impl Search {
    /// The first cycle reachable from `task`, starting and ending at the
    /// task where it closes.
    fn visit(&mut self, task: usize) -> Option<Vec<usize>> {
        if self.state[task] != State::New {
            return None;
        }
        self.state[task] = State::Open;
        self.path.push(task);
        for next in self.edges[task].clone() {
            if self.state[next] == State::Open {
                let start = self.path.iter().position(|&t| t == next)?;
                let mut cycle = self.path[start..].to_vec();
                cycle.push(next);
                return Some(cycle);
            }
            if let Some(cycle) = self.visit(next) {
                return Some(cycle);
            }
        }
        self.path.pop();
        self.state[task] = State::Done;
        None
    }
}
