//! `flowmgr`'s signalling API: what an application sends to set up,
//! watch and end a flow. The application only signals; the data never
//! passes through it.
//!
//! - [`label::CREATE`], words [`FlowRequest::encode`]: source, up to
//!   [`MAX_TRANSFORMERS`] transformers and a sink (each a
//!   [`StageSpec`]), a priority, a rate limit and a buffer size. Answer:
//!   `Ok` with the flow's id in word 0, or a [`FlowStatus`] saying what was
//!   refused, with the stage's index in word 0 where one is to blame.
//! - [`label::STATS`] `[id]`: [`FlowStats`].
//! - [`label::PAUSE`], [`label::RESUME`], [`label::DESTROY`] `[id]`.
//! - [`label::LIST`] `[]`: the caller's flows, two words each: id and
//!   [`FlowState`].
//!
//! Flow ids carry a generation, so an id kept after its flow was
//! destroyed names nothing (`UnknownFlow`) even when the slot is reused.

use crate::stage::{Roles, SpecError, StageSpec, SPEC_WORDS};
use crate::words::{Full, Reader, Writer};
use core::fmt;

/// Message labels of the API.
pub mod label {
    pub const CREATE: u32 = 0x4601;
    pub const STATS: u32 = 0x4602;
    pub const PAUSE: u32 = 0x4603;
    pub const RESUME: u32 = 0x4604;
    pub const DESTROY: u32 = 0x4605;
    pub const LIST: u32 = 0x4606;
}

/// Transformers one flow may have.
pub const MAX_TRANSFORMERS: usize = 4;
/// Stages one flow may have.
pub const MAX_STAGES: usize = MAX_TRANSFORMERS + 2;
/// Stages a flow may have and still be replicated: a slot has
/// [`MAX_EDGES`] edges, and replication takes two more than the flow's.
pub const MAX_REPLICATED_STAGES: usize = MAX_EDGES - 1;
/// Smallest and largest buffer a flow may ask for.
pub const MIN_BUFFER: u32 = 64;
pub const MAX_BUFFER: u32 = 64 * 1024;

/// A flow as the application asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowRequest {
    /// Source, transformers, sink: `stages[..len]`.
    stages: [StageSpec; MAX_STAGES],
    len: usize,
    /// 0 (least urgent) to 7: who gets a shared device first.
    pub priority: u8,
    /// Bytes per second the source may admit; 0 is no limit.
    pub rate: u64,
    /// Bytes per buffer (a UDP source's largest datagram; a block
    /// source's read size).
    pub buffer: u32,
    /// 2: replicate the flow's first cipher stage from the start (two
    /// tasks run it, the flow split between them and merged in order); 0
    /// or 1: only if the scheduler finds it the bottleneck.
    pub replicas: u8,
}

/// Why a request or a spec in it was refused, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestError {
    /// Stage `index`'s spec is malformed.
    Spec {
        index: usize,
        error: SpecError,
    },
    /// Stage `index` cannot stand where it stands (a sink as source, ...).
    Misplaced {
        index: usize,
    },
    /// Fewer than 2 or more than [`MAX_STAGES`] stages.
    StageCount(u64),
    Priority(u64),
    Buffer(u64),
    /// More than 2 replicas, or replicas of a flow without a cipher stage.
    Replicas(u64),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Spec { index, error } => write!(f, "stage {index}: {error}"),
            Self::Misplaced { index } => write!(
                f,
                "stage {index} cannot stand there: a flow is a source (udp, blocks, pattern), transformers (cipher, crc32c), then a sink (blocks, null, check)"
            ),
            Self::StageCount(n) => write!(f, "a flow of {n} stages: give a source, at most {MAX_TRANSFORMERS} transformers and a sink"),
            Self::Priority(p) => write!(f, "priority {p} is not 0..=7"),
            Self::Buffer(b) => write!(f, "buffers of {b} bytes: use {MIN_BUFFER}..={MAX_BUFFER}, a multiple of 16"),
            Self::Replicas(n) => write!(f, "{n} replicas: use 1 or 2, and 2 only for a flow of at most 4 stages with a cipher stage"),
        }
    }
}

impl FlowRequest {
    /// A flow from `source` through `transformers` to `sink`, checked.
    pub fn new(
        source: StageSpec,
        transformers: &[StageSpec],
        sink: StageSpec,
        priority: u8,
        rate: u64,
        buffer: u32,
    ) -> Result<Self, RequestError> {
        if transformers.len() > MAX_TRANSFORMERS {
            return Err(RequestError::StageCount(transformers.len() as u64 + 2));
        }
        let mut stages = [StageSpec::Null; MAX_STAGES];
        stages[0] = source;
        stages[1..=transformers.len()].copy_from_slice(transformers);
        stages[transformers.len() + 1] = sink;
        let r = Self {
            stages,
            len: transformers.len() + 2,
            priority,
            rate,
            buffer,
            replicas: 1,
        };
        r.check()?;
        Ok(r)
    }

    /// The same flow with `n` replicas (see [`Self::replicas`]), checked.
    pub fn with_replicas(self, n: u8) -> Result<Self, RequestError> {
        let r = Self {
            replicas: n,
            ..self
        };
        r.check()?;
        Ok(r)
    }

    /// The stage that replicas run: the first cipher, if the flow has one
    /// and room for the two more edges replication takes.
    pub fn replicable(&self) -> Option<usize> {
        if self.len > MAX_REPLICATED_STAGES {
            return None;
        }
        self.stages()
            .iter()
            .position(|s| matches!(s, StageSpec::Cipher(_)))
    }

    fn check(&self) -> Result<(), RequestError> {
        if self.priority > 7 {
            return Err(RequestError::Priority(self.priority.into()));
        }
        if !(MIN_BUFFER..=MAX_BUFFER).contains(&self.buffer) || !self.buffer.is_multiple_of(16) {
            return Err(RequestError::Buffer(self.buffer.into()));
        }
        if self.replicas > 2 || (self.replicas == 2 && self.replicable().is_none()) {
            return Err(RequestError::Replicas(self.replicas.into()));
        }
        for (index, s) in self.stages().iter().enumerate() {
            let want = match index {
                0 => Roles::SOURCE,
                i if i + 1 == self.len => Roles::SINK,
                _ => Roles::TRANSFORMER,
            };
            if !s.role().contains(want) {
                return Err(RequestError::Misplaced { index });
            }
        }
        Ok(())
    }

    /// The stages in order: source first, sink last.
    pub fn stages(&self) -> &[StageSpec] {
        &self.stages[..self.len]
    }

    pub fn encode(&self, words: &mut [u64]) -> Result<usize, Full> {
        let mut w = Writer::new(words);
        w.put(self.len as u64 | u64::from(self.priority) << 8 | u64::from(self.replicas) << 16)?;
        w.put(self.rate)?;
        w.put(u64::from(self.buffer))?;
        for s in self.stages() {
            s.encode(&mut w)?;
        }
        Ok(w.len())
    }

    /// The request in `words`, every field checked.
    pub fn decode(words: &[u64]) -> Result<Self, RequestError> {
        let mut r = Reader::new(words);
        let short = |at| RequestError::Spec {
            index: 0,
            error: SpecError::Short { at },
        };
        let head = r.next().map_err(|s| short(s.at))?;
        let rate = r.next().map_err(|s| short(s.at))?;
        let buffer = r.next().map_err(|s| short(s.at))?;
        let len = head & 0xff;
        if !(2..=MAX_STAGES as u64).contains(&len) {
            return Err(RequestError::StageCount(len));
        }
        let priority = head >> 8 & 0xff;
        let replicas = head >> 16;
        if replicas > 2 {
            return Err(RequestError::Replicas(replicas));
        }
        if priority > 7 {
            return Err(RequestError::Priority(priority));
        }
        let buffer = u32::try_from(buffer).map_err(|_| RequestError::Buffer(buffer))?;
        let mut stages = [StageSpec::Null; MAX_STAGES];
        for (index, s) in stages.iter_mut().take(len as usize).enumerate() {
            *s = StageSpec::decode(&mut r).map_err(|error| RequestError::Spec { index, error })?;
        }
        let req = Self {
            stages,
            len: len as usize,
            priority: priority as u8,
            rate,
            buffer,
            replicas: replicas as u8,
        };
        req.check()?;
        Ok(req)
    }
}

/// Words of the largest create message.
pub const REQUEST_WORDS: usize = 3 + MAX_STAGES * SPEC_WORDS;

/// The label of every answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum FlowStatus {
    Ok = 0,
    /// The create message was malformed; word 0 the stage index (or
    /// `u64::MAX`), word 1 the [`RequestError`] kind.
    BadRequest = 1,
    /// Every flow slot is in use: destroy a flow first.
    NoSlot = 2,
    /// No task serves stage `word 0`'s kind (no such device in the system).
    NoStage = 3,
    /// Stage `word 0`'s task refused to start it; word 1 the
    /// [`crate::stage::StageStatus`].
    StageRefused = 4,
    /// The id names no flow (destroyed, or never made).
    UnknownFlow = 5,
    /// Not an API operation.
    BadLabel = 6,
    /// The caller may not touch this flow (another application's).
    NotYours = 7,
    /// The caller holds as many flows as it may (its share of the slots,
    /// or its manifest `quota`): destroy one of its flows first.
    OverQuota = 8,
    /// CLIENT_GONE (`conflux_abi::ipc::CLIENT_GONE_LABEL`) from a caller
    /// that is not the supervisor.
    NotSupervisor = 9,
}

impl FlowStatus {
    pub fn from_label(l: u32) -> Option<Self> {
        Some(match l {
            0 => Self::Ok,
            1 => Self::BadRequest,
            2 => Self::NoSlot,
            3 => Self::NoStage,
            4 => Self::StageRefused,
            5 => Self::UnknownFlow,
            6 => Self::BadLabel,
            7 => Self::NotYours,
            8 => Self::OverQuota,
            9 => Self::NotSupervisor,
            _ => return None,
        })
    }
}

impl fmt::Display for FlowStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Ok => "ok",
            Self::BadRequest => "flowmgr refused the flow's description",
            Self::NoSlot => "every flow slot is in use: destroy a flow first",
            Self::NoStage => {
                "no task in this system serves that stage (is the device in the manifest?)"
            }
            Self::StageRefused => "a stage's task refused to start its part of the flow",
            Self::UnknownFlow => "no such flow (destroyed, or never made)",
            Self::BadLabel => "flowmgr does not know this operation",
            Self::NotYours => "that flow belongs to another application",
            Self::OverQuota => {
                "this application holds every flow it may (its share of the slots, or the quota on its flowmgr capability): destroy one of its flows first"
            }
            Self::NotSupervisor => {
                "refused: only the supervisor (init) may say that a client is gone"
            }
        })
    }
}

/// Where a flow stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum FlowState {
    Running = 0,
    Paused = 1,
    /// A stage failed and the exception ladder is acting on it.
    Recovering = 2,
    /// The source is exhausted and every buffer reached the sink.
    Done = 3,
    /// The ladder ran out of steps; the flow was ended.
    Terminated = 4,
}

impl FlowState {
    pub fn from_word(w: u64) -> Option<Self> {
        Some(match w {
            0 => Self::Running,
            1 => Self::Paused,
            2 => Self::Recovering,
            3 => Self::Done,
            4 => Self::Terminated,
            _ => return None,
        })
    }
}

impl fmt::Display for FlowState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Running => "running",
            Self::Paused => "paused",
            Self::Recovering => "recovering",
            Self::Done => "done",
            Self::Terminated => "terminated",
        })
    }
}

/// Edges a flow has at most.
pub const MAX_EDGES: usize = MAX_STAGES - 1;

/// One edge's figures in [`FlowStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeFigures {
    /// Buffers waiting in the edge (queue occupancy).
    pub queued: u64,
    /// Buffers and bytes that crossed it.
    pub buffers: u64,
    pub bytes: u64,
    /// Data dropped at its upstream stage.
    pub drops: u64,
    /// When its upstream stage first handed a buffer over, and when its
    /// downstream stage last finished with one (the stages' TSC; 0 before):
    /// a flow's duration as its own stages saw it.
    pub first: u64,
    pub last: u64,
}

/// What `STATS` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowStats {
    pub state: FlowState,
    /// The exception ladder's steps taken so far: retries, restarts,
    /// redirects to another instance, fallbacks to software.
    pub ladder: [u64; 4],
    /// The sink stage's own two figures, as its task reports them in a
    /// stage STATS answer (words 3 and 4): a `check` sink's tally, a
    /// `null` sink's buffers and bytes. Zero until the sink answered.
    pub sink: [u64; 2],
    /// Times the scheduler replicated a bottleneck stage of the flow.
    pub replications: u64,
    /// TSC cycles per second as `flowmgr` measured them (0: unknown): the
    /// unit of the edges' `first` and `last`, and of the rate limit.
    pub tsc_hz: u64,
    /// The sink's kind ([`crate::stage::StageSpec::kind`]), which says
    /// what `sink`'s two words are: a `check` sink's tally
    /// ([`crate::record::Tally::from_words`]), or buffers and bytes.
    pub sink_kind: u64,
    pub edges: [EdgeFigures; MAX_EDGES],
    pub edge_count: usize,
}

/// Words of a stats answer.
pub const STATS_WORDS: usize = 2 + 4 + 2 + 3 + MAX_EDGES * 6;

impl FlowStats {
    pub fn encode(&self, words: &mut [u64]) -> Result<usize, Full> {
        let mut w = Writer::new(words);
        w.put(self.state as u64)?;
        w.put(self.edge_count as u64)?;
        for l in self.ladder.into_iter().chain(self.sink) {
            w.put(l)?;
        }
        w.put(self.replications)?;
        w.put(self.tsc_hz)?;
        w.put(self.sink_kind)?;
        for e in &self.edges[..self.edge_count.min(MAX_EDGES)] {
            for v in [e.queued, e.buffers, e.bytes, e.drops, e.first, e.last] {
                w.put(v)?;
            }
        }
        Ok(w.len())
    }

    /// The stats in `words` (from flowmgr, but checked like anything
    /// received).
    pub fn decode(words: &[u64]) -> Option<Self> {
        let mut r = Reader::new(words);
        let state = FlowState::from_word(r.next().ok()?)?;
        let edge_count = usize::try_from(r.next().ok()?)
            .ok()
            .filter(|&n| n <= MAX_EDGES)?;
        let mut ladder = [0; 4];
        for l in &mut ladder {
            *l = r.next().ok()?;
        }
        let sink = [r.next().ok()?, r.next().ok()?];
        let (replications, tsc_hz) = (r.next().ok()?, r.next().ok()?);
        let sink_kind = r.next().ok()?;
        let mut edges = [EdgeFigures::default(); MAX_EDGES];
        for e in &mut edges[..edge_count] {
            *e = EdgeFigures {
                queued: r.next().ok()?,
                buffers: r.next().ok()?,
                bytes: r.next().ok()?,
                drops: r.next().ok()?,
                first: r.next().ok()?,
                last: r.next().ok()?,
            };
        }
        Some(Self {
            state,
            ladder,
            sink,
            replications,
            tsc_hz,
            sink_kind,
            edges,
            edge_count,
        })
    }
}

#[cfg(test)]
mod tests;
