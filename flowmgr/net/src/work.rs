//! What `flownet` does for each sink it runs, as a [`Work`]: the job a
//! flow holds, one step of it, and what happens at START and STOP.

use crate::datagram::Datagrams;
use crate::stream::Stream;
use alloc::vec::Vec;
use conflux_flow_protocol::stage::{StageSpec, StageStatus, Start};
use conflux_flow_stage::{edges_match, Failure, FlowIo, Os, Step, System, Work};
use conflux_net_client::{Error, Events, Net, NetError, PollEntry, SockKind, Socket};
use conflux_userlib::ipc::Notification;

/// Ticks (10 ms) before a send the socket could not take is tried again,
/// when waiting on the sockets failed.
const RETRY_TICKS: u64 = 1;
/// How long the task waits in the network server for a full socket to
/// take more before it looks at `flowmgr`'s messages again (ms).
const ROOM_WAIT_MS: u64 = 10;
/// At STOP, how long (in waits of [`crate::stream::FLUSH_WAIT_MS`]) the rest of
/// a stream may take to leave.
const FLUSH_WAITS: u32 = 20;

/// One flow's job.
pub enum Job {
    Tcp(Stream),
    Udp(Datagrams),
}

/// The network sinks: this task's session with the network server, its
/// doorbell, on which it arms its timer, and the sockets whose flows wait
/// for room since the last turn.
pub struct Sinks {
    net: Net,
    bell: Notification,
    full: Vec<Socket>,
}

/// The spec kinds this task runs (`StageSpec::kind` numbers: tcp, udpto).
const KINDS: [u64; 2] = [9, 10];

impl Sinks {
    pub fn new(net: Net, bell: Notification) -> Self {
        Self {
            net,
            bell,
            full: Vec::new(),
        }
    }

    /// One step of `job` on `io`: one input buffer sent, or kept for a
    /// retry when the socket cannot take it now.
    pub fn step(&mut self, os: &mut impl Os, io: &mut FlowIo, job: &mut Job) -> Step {
        let net = &mut self.net;
        let step = io.sink_batch(os, |bufs, results| match job {
            Job::Tcp(s) => s.take_batch(net, bufs, results),
            // One datagram per buffer, up to the first the socket cannot
            // take now (those after it must wait their turn).
            Job::Udp(d) => {
                let mut got = 0;
                for ((src, _), result) in bufs.iter().zip(results.iter_mut()) {
                    *result = d.take(net, src);
                    got += 1;
                    if *result == Err(Failure::Transient) {
                        break;
                    }
                }
                got
            }
        });
        if step == Step::WaitOther {
            self.full.push(match job {
                Job::Tcp(s) => s.socket(),
                Job::Udp(d) => d.socket(),
            });
        }
        step
    }

    /// After a turn in which nothing moved: if some flow's socket was
    /// full, waits in the network server (at most [`ROOM_WAIT_MS`]) until
    /// one can take more, and says so (the task then looks at its FLOW
    /// endpoint without blocking and runs its flows again). A sleeping
    /// timer instead would leave the socket idle for the rest of the
    /// tick once it drains: the send buffer (64 KiB) empties faster than
    /// that on the host's loopback. If the wait itself fails, the timer
    /// rings the task's doorbell a tick later instead.
    pub fn wait_for_room(&mut self) -> bool {
        if self.full.is_empty() {
            return false;
        }
        let mut entries: Vec<PollEntry> = self
            .full
            .drain(..)
            .map(|s| PollEntry {
                handle: s.0 as u32,
                events: Events::WRITABLE,
                revents: Events::NONE,
            })
            .collect();
        if self.net.wait(&mut entries, ROOM_WAIT_MS).is_err() {
            // The next send says what is wrong; until then, a tick.
            let _ = self.bell.timer(RETRY_TICKS);
            return false;
        }
        true
    }
}

/// A new socket; if the session is stale (the network server restarted
/// since this task last spoke to it), after connecting again. Sockets of
/// the old session are gone either way: their flows learn it on their
/// next send.
pub fn socket(net: &mut Net, kind: SockKind) -> Result<Socket, Error> {
    match net.socket(kind) {
        Err(Error::ServerRestarted | Error::Net(NetError::NoSession)) => {
            net.reconnect()?;
            net.socket(kind)
        }
        other => other,
    }
}

impl Work for Sinks {
    type Flow = Job;

    fn start(&mut self, _flow: u32, start: &Start, _io: &mut FlowIo) -> Result<Job, StageStatus> {
        if !edges_match(start) {
            return Err(StageStatus::BadEdge);
        }
        match start.spec {
            StageSpec::Tcp { peer } => Stream::open(&mut self.net, peer).map(Job::Tcp),
            StageSpec::UdpTo { peer } => Datagrams::open(&mut self.net, peer).map(Job::Udp),
            _ => Err(StageStatus::Unsupported),
        }
    }

    fn stopping(&mut self, _flow: u32, job: &mut Job, io: &mut FlowIo) {
        let Job::Tcp(s) = job else {
            return; // datagrams are sent as they come; none is held back
        };
        let mut os = System;
        let mut waits = 0;
        loop {
            match io.sink(&mut os, |src, seq| s.take(&mut self.net, src, seq)) {
                Step::Progress => {}
                Step::WaitOther if waits < FLUSH_WAITS => {
                    waits += 1;
                    s.wait_writable(&mut self.net);
                }
                Step::WaitOther => {
                    s.gave_up();
                    return;
                }
                _ => return, // nothing more queued, or paused
            }
        }
    }

    fn stop(&mut self, _flow: u32, job: Job) {
        match job {
            Job::Tcp(s) => s.close(&mut self.net),
            Job::Udp(d) => d.close(&mut self.net),
        }
    }

    fn info(&self) -> [u64; 2] {
        debug_assert!(KINDS.iter().all(|&k| k < 64));
        [KINDS.iter().fold(0, |bits, k| bits | 1 << k), 0]
    }

    /// Buffers sent whole, and bytes sent.
    fn figures(&self, job: &Job) -> [u64; 2] {
        match job {
            Job::Tcp(s) => [s.buffers, s.bytes],
            Job::Udp(d) => [d.buffers, d.bytes],
        }
    }
}
