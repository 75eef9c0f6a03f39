//! The leader's side of dbsim's multi-process runs: the client tasks
//! (`cosybench-client1`, ... in the manifest) call this task over
//! endpoint `cosybench_coord` for jobs (`cosybench_core::job`). A client
//! waiting for a job is *parked*: its call's reply capability is held in
//! one of this task's reply slots. A run of `p` processes gathers every
//! client, reads the start time, replies a job to `p - 1` of them and
//! runs its own share; then it takes their `DONE`s, each with the TSC at
//! which that client finished. At the end every client is told to quit,
//! so the system can end.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use conflux_userlib::ipc::{reply, Endpoint, Message};
use cosybench_core::job::{self, Job};
use cosybench_core::wire;

/// The task names of client processes start with this.
const CLIENT_TASK: &str = "cosybench-client";

/// The leader's view of its clients.
pub struct Clients {
    endpoint: Endpoint,
    /// Per client (badge 1, 2, ...: index + 1), the reply slot of its
    /// parked call.
    parked: Vec<Option<usize>>,
    free: Vec<usize>,
    /// Per client, whether it runs a job now.
    busy: Vec<bool>,
}

/// What a client reported for a job.
pub struct Done {
    pub answer: u64,
    /// The TSC when it finished.
    pub finished: u64,
}

impl Clients {
    /// The clients the manifest starts (tasks named `cosybench-client*`),
    /// their calls received on `endpoint` into the reply slots from
    /// `first_slot` on.
    pub fn new(endpoint: usize, first_slot: usize, task_names: &[&str]) -> Clients {
        let n = task_names
            .iter()
            .filter(|t| t.starts_with(CLIENT_TASK))
            .count();
        Clients {
            endpoint: Endpoint(endpoint),
            parked: vec![None; n],
            free: (first_slot..first_slot + n).rev().collect(),
            busy: vec![false; n],
        }
    }

    /// How many client tasks there are.
    pub fn count(&self) -> usize {
        self.parked.len()
    }

    /// Takes the next call from a client: its index and the message's
    /// label and words.
    fn receive(&mut self) -> Result<(usize, u32, Vec<u64>), String> {
        let slot = self
            .free
            .pop()
            .ok_or("every reply slot holds a parked client, yet a call is awaited")?;
        let got = match self.endpoint.recv(slot, 0) {
            Ok(g) => g,
            Err(e) => {
                self.free.push(slot);
                return Err(format!("receive on cosybench_coord: {e:?}"));
            }
        };
        let index = usize::try_from(got.badge)
            .ok()
            .and_then(|b| b.checked_sub(1))
            .filter(|i| *i < self.count() && self.parked[*i].is_none());
        let Some(index) = index else {
            // Not a client's call (a badge the manifest gives none): answer
            // it with QUIT so its caller is not left blocked.
            let _ = reply(slot, &Message::new(job::QUIT, &[]));
            self.free.push(slot);
            return Err(format!(
                "a call on cosybench_coord with badge {} (clients have 1..={})",
                got.badge,
                self.count()
            ));
        };
        self.parked[index] = Some(slot);
        Ok((index, got.msg.label, wire::words_of(&got.msg)))
    }

    /// Replies `msg` to parked client `index`.
    fn answer(&mut self, index: usize, msg: &Message) -> Result<(), String> {
        let slot = self.parked[index]
            .take()
            .ok_or_else(|| format!("client {} is not parked", index + 1))?;
        self.free.push(slot);
        reply(slot, msg).map_err(|e| format!("reply to client {}: {e:?}", index + 1))
    }

    /// Waits until every client is parked (each says `READY` once; a
    /// `DONE` left over from a failed run is dropped).
    pub fn gather(&mut self) -> Result<(), String> {
        while self.parked.iter().any(|p| p.is_none()) {
            let (index, _, _) = self.receive()?;
            self.busy[index] = false;
        }
        Ok(())
    }

    /// Hands `job` to the first `n` clients; each gets seed `seeds(k)`
    /// for its process number `k` (1..=n; the leader is process 0).
    pub fn start(&mut self, n: usize, job: &Job, seeds: impl Fn(u64) -> u64) -> Result<(), String> {
        if n > self.count() {
            return Err(format!(
                "a run of {} processes needs {n} client tasks; the manifest starts {} (tasks `{CLIENT_TASK}N`)",
                n + 1,
                self.count()
            ));
        }
        for index in 0..n {
            let mut j = job.clone();
            j.work.seed = seeds(index as u64 + 1);
            let words = j
                .encode()
                .ok_or("the job's path is too long for a message")?;
            let msg = wire::to_message(job::JOB, &words).ok_or("the job does not fit a message")?;
            self.answer(index, &msg)?;
            self.busy[index] = true;
        }
        Ok(())
    }

    /// Waits for every busy client's `DONE`.
    pub fn finish(&mut self) -> Result<Vec<Done>, String> {
        let mut out = Vec::new();
        let mut failed = None;
        while self.busy.iter().any(|b| *b) {
            let (index, label, words) = self.receive()?;
            if !self.busy[index] {
                continue;
            }
            self.busy[index] = false;
            match (label, words.as_slice()) {
                (job::DONE, [0, answer, finished, ..]) => out.push(Done {
                    answer: *answer,
                    finished: *finished,
                }),
                (label, words) => {
                    failed = Some(format!(
                        "client {} did not finish its job: label {label}, words {words:?} (its console says why)",
                        index + 1
                    ))
                }
            }
        }
        failed.map_or(Ok(out), Err)
    }

    /// Tells every client to quit (gathering those not parked first).
    pub fn quit(&mut self) -> Result<(), String> {
        self.gather()?;
        for index in 0..self.count() {
            self.answer(index, &Message::new(job::QUIT, &[]))?;
        }
        Ok(())
    }
}
