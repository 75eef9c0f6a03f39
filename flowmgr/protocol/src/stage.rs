//! What `flowmgr` tells a stage task, and what a stage is asked to do.
//!
//! A stage task (a driver, the software stage, a server) serves an
//! endpoint `flowmgr` calls. For each flow it is part of, it is sent:
//!
//! 1. [`label::ATTACH`] once per capability, words `[flow, Grant]`: the
//!    pool, its input edge, its output edge, and the doorbells of its
//!    downstream and upstream neighbours (a notification capability each).
//!    A source has no input, a sink no output.
//! 2. [`label::START`], words `[flow, StageSpec..., input Span, output
//!    Span, priority, rate, TSC rate, position, second input Span, second
//!    output Span, flags]` ([`Start::encode`]): the stage maps what it
//!    was given, checks the spans against the pool, and starts moving
//!    buffers. The second spans (and `Grant::Input2` and the other lane
//!    grants) are for a stage that splits its output between two
//!    replicas of the next stage or merges theirs.
//! 3. [`label::STATS`] `[flow]` at any time (also how `flowmgr` finds a
//!    stage that died: the call fails), [`label::PAUSE`]/[`label::RESUME`],
//!    and [`label::STOP`] `[flow]`: the stage stops touching the flow,
//!    unmaps and deletes its capabilities, and answers. `flowmgr` revokes
//!    them afterwards in any case.
//!
//! Every answer's label is a [`StageStatus`]. A stage checks everything
//! here although only `flowmgr` can call it: a spec is decoded once into
//! [`StageSpec`], and a bad one is refused with a status naming the field.

use crate::span::Span;
use crate::words::{Reader, Short, Writer};
use core::fmt;

mod place;
pub use place::{FilePath, Peer, MAX_PATH};

/// Message labels of the stage protocol.
pub mod label {
    pub const ATTACH: u32 = 0x5701;
    pub const START: u32 = 0x5702;
    pub const STOP: u32 = 0x5703;
    pub const STATS: u32 = 0x5704;
    pub const PAUSE: u32 = 0x5705;
    pub const RESUME: u32 = 0x5706;
    /// `[]` → `[kinds, flags]`: the stage kinds this task runs (bit
    /// `1 << kind`, see [`super::StageSpec::kind`]) and [`super::info`]
    /// flags. How `flowmgr` learns, at boot, what each stage task is.
    pub const INFO: u32 = 0x5707;
}

/// Flags of an INFO answer.
pub mod info {
    /// The task's cipher runs on a device (a `Device` engine may use it).
    pub const DEVICE: u64 = 1;
}

/// Flows one stage task serves at once.
pub const MAX_FLOWS: u32 = 8;

/// What an attached capability is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Grant {
    Pool = 0,
    Input = 1,
    Output = 2,
    /// Rung after sending on the output edge when the consumer asked.
    WakeDownstream = 3,
    /// Rung after recycling on the input edge when the producer asked.
    WakeUpstream = 4,
    /// A split or merged flow's second lane (see [`Start::input2`]): the
    /// second input edge, the second output edge, and the doorbells of
    /// the neighbours on them.
    Input2 = 5,
    Output2 = 6,
    WakeDownstream2 = 7,
    WakeUpstream2 = 8,
}

impl Grant {
    pub fn from_word(w: u64) -> Option<Self> {
        Some(match w {
            0 => Self::Pool,
            1 => Self::Input,
            2 => Self::Output,
            3 => Self::WakeDownstream,
            4 => Self::WakeUpstream,
            5 => Self::Input2,
            6 => Self::Output2,
            7 => Self::WakeDownstream2,
            8 => Self::WakeUpstream2,
            _ => return None,
        })
    }
}

/// A block cipher mode the cipher stages run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Cbc,
    Ctr,
}

/// Which way a cipher stage works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// Where a cipher stage may run (`flowmgr` picks the task; the stage
/// itself ignores this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// A crypto device if one is free, else software.
    Any,
    /// A crypto device only.
    Device,
    /// The software stage only.
    Software,
}

/// An AES key of 16, 24 or 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Key {
    len: u8,
    bytes: [u8; 32],
}

impl Key {
    /// `None` unless `key` is 16, 24 or 32 bytes.
    pub fn new(key: &[u8]) -> Option<Self> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        let mut bytes = [0; 32];
        bytes[..key.len()].copy_from_slice(key);
        Some(Self {
            len: key.len() as u8,
            bytes,
        })
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Debug for Key {
    // Keys stay out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({} bytes)", self.len)
    }
}

/// A cipher transformer's settings. Each buffer is ciphered on its own
/// with the same IV (CBC) or initial counter block (CTR), so buffers
/// stay independent and a replicated stage can take any of them; lengths
/// must be whole 16-byte blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cipher {
    pub mode: Mode,
    pub direction: Direction,
    pub engine: Engine,
    pub key: Key,
    pub iv: [u8; 16],
}

/// What one stage of a flow does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageSpec {
    /// Source: UDP datagrams arriving for this local port, their payloads
    /// one per buffer, steered by the NIC driver.
    Udp { port: u16 },
    /// Source: `count` 512-byte sectors from sector `first` of the disk,
    /// read into the edge's buffers in order (each a whole number of
    /// sectors); sink: the buffers' bytes written there in order, packed,
    /// until the range is full.
    Blocks { first: u64, count: u64 },
    /// Transformer: AES in a mode, one direction.
    Cipher(Cipher),
    /// Transformer: appends the buffer's CRC-32C (Castagnoli), 4 bytes
    /// little-endian, so the buffer grows by 4.
    Crc32c,
    /// Sink: takes every buffer and drops it (counts it).
    Null,
    /// Source: `count` [`crate::record`]s made from `seed`, one per
    /// buffer, filling the buffer (a synthetic source for tests and for
    /// measuring a pipeline without a device in front).
    Pattern { count: u64, seed: u64 },
    /// Sink: checks that every buffer is the next record of `seed`
    /// ([`crate::record::Checker`]); its tally is the stage's statistics.
    Check { seed: u64 },
    /// Source: `length` bytes of the file at `path` from byte `offset`
    /// (`u64::MAX`: to the end of the file), in order, a buffer at a time,
    /// read by the file server. Sink: the buffers' bytes written in order
    /// into the file from `offset` (the file is made if it does not
    /// exist), at most `length` bytes.
    File {
        path: FilePath,
        offset: u64,
        length: u64,
    },
    /// Sink: the buffers' bytes sent in order on one TCP connection the
    /// network server opens to `peer`, closed when the flow is stopped.
    Tcp { peer: Peer },
    /// Sink: each buffer sent as one UDP datagram to `peer` by the network
    /// server.
    UdpTo { peer: Peer },
}

/// Which field of a spec or start message was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecError {
    /// The message ended before the field.
    Short {
        at: usize,
    },
    UnknownKind(u64),
    BadPort(u64),
    BadBlocks {
        first: u64,
        count: u64,
    },
    BadMode(u64),
    BadDirection(u64),
    BadEngine(u64),
    BadKeyLength(u64),
    /// A span: zero buffers, zero size, or more buffers than a ring holds.
    BadSpan,
    BadFlow(u64),
    /// A file path that is not `/`-led UTF-8 of at most [`MAX_PATH`]
    /// bytes without NUL or empty components; the word is its length.
    BadPath(u64),
    /// A peer word with port 0 or stray high bits.
    BadPeer(u64),
    /// A priority word that is not 0..=7.
    BadPriority(u64),
    /// A rate limit (bytes/s) sent without the TSC's rate, so the stage
    /// could not tell how many bytes a moment allows.
    NoClock(u64),
    /// A flags word with bits no stage knows.
    BadFlags(u64),
    /// A second lane without a first (`input2` without `input`, ...).
    LoneLane,
}

impl From<Short> for SpecError {
    fn from(s: Short) -> Self {
        Self::Short { at: s.at }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Short { at } => write!(f, "the message ends at word {at}, before a field the stage spec needs"),
            Self::UnknownKind(k) => write!(f, "stage kind {k} is not one of udp (1), blocks (2), cipher (3), crc32c (4), null (5), pattern (6), check (7), file (8), tcp (9), udpto (10)"),
            Self::BadPort(p) => write!(f, "UDP port {p} is not 1..=65535"),
            Self::BadBlocks { first, count } => write!(f, "block range {first}+{count} is empty or wraps around"),
            Self::BadMode(m) => write!(f, "cipher mode {m} is not cbc (0) or ctr (1)"),
            Self::BadDirection(d) => write!(f, "cipher direction {d} is not encrypt (0) or decrypt (1)"),
            Self::BadEngine(e) => write!(f, "cipher engine {e} is not any (0), device (1) or software (2)"),
            Self::BadKeyLength(n) => write!(f, "an AES key of {n} bytes: use 16, 24 or 32"),
            Self::BadSpan => f.write_str("a buffer span has no buffers, zero-sized buffers, or more buffers than an edge's ring holds"),
            Self::BadFlow(n) => write!(f, "flow number {n} is not below {MAX_FLOWS}"),
            Self::BadPath(n) => write!(f, "a file path of {n} bytes: use an absolute UTF-8 path of at most {MAX_PATH} bytes, without NUL or empty components"),
            Self::BadPeer(w) => write!(f, "peer word {w:#x} has port 0 or bits above the port"),
            Self::BadPriority(p) => write!(f, "priority {p} is not 0..=7"),
            Self::BadFlags(w) => write!(f, "start flags {w:#x} have bits other than replica (1)"),
            Self::LoneLane => f.write_str("a second input or output edge came without a first one"),
            Self::NoClock(r) => write!(f, "a rate limit of {r} bytes/s came without the TSC's rate (flowmgr has not measured it): start the flow without a rate"),
        }
    }
}

/// Words a spec takes in a message, whatever its kind (so a list of specs
/// has fixed places).
pub const SPEC_WORDS: usize = 8;

/// Each spec's kind number, as encoded and as [`StageSpec::kind`] gives it
/// (`1 << kind` in INFO answers; `FlowStats::sink_kind`).
pub mod kind {
    pub const UDP: u64 = 1;
    pub const BLOCKS: u64 = 2;
    pub const CIPHER: u64 = 3;
    pub const CRC32C: u64 = 4;
    pub const NULL: u64 = 5;
    pub const PATTERN: u64 = 6;
    pub const CHECK: u64 = 7;
    pub const FILE: u64 = 8;
    pub const TCP: u64 = 9;
    pub const UDP_TO: u64 = 10;
}

fn le_words(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    b.chunks(8).map(|c| {
        let mut w = [0; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    })
}

impl StageSpec {
    /// Writes the spec as [`SPEC_WORDS`] words.
    pub fn encode(&self, w: &mut Writer) -> Result<(), crate::words::Full> {
        let end = w.len() + SPEC_WORDS;
        match *self {
            Self::Udp { port } => {
                w.put(kind::UDP)?;
                w.put(u64::from(port))?;
            }
            Self::Blocks { first, count } => {
                w.put(kind::BLOCKS)?;
                w.put(first)?;
                w.put(count)?;
            }
            Self::Cipher(c) => {
                w.put(kind::CIPHER)?;
                let mode = match c.mode {
                    Mode::Cbc => 0,
                    Mode::Ctr => 1,
                };
                let dir = match c.direction {
                    Direction::Encrypt => 0,
                    Direction::Decrypt => 1,
                };
                let engine = match c.engine {
                    Engine::Any => 0,
                    Engine::Device => 1,
                    Engine::Software => 2,
                };
                w.put(mode | dir << 8 | engine << 16 | u64::from(c.key.len) << 24)?;
                for k in le_words(&c.key.bytes) {
                    w.put(k)?;
                }
                for v in le_words(&c.iv) {
                    w.put(v)?;
                }
            }
            Self::Crc32c => w.put(kind::CRC32C)?,
            Self::Null => w.put(kind::NULL)?,
            Self::Pattern { count, seed } => {
                w.put(kind::PATTERN)?;
                w.put(count)?;
                w.put(seed)?;
            }
            Self::Check { seed } => {
                w.put(kind::CHECK)?;
                w.put(seed)?;
            }
            Self::File {
                path,
                offset,
                length,
            } => {
                w.put(kind::FILE)?;
                w.put(offset)?;
                w.put(length)?;
                let (len, bytes) = path.raw();
                w.put(len)?;
                for b in le_words(bytes) {
                    w.put(b)?;
                }
            }
            Self::Tcp { peer } => {
                w.put(kind::TCP)?;
                w.put(peer.word())?;
            }
            Self::UdpTo { peer } => {
                w.put(kind::UDP_TO)?;
                w.put(peer.word())?;
            }
        }
        w.pad_to(end)
    }

    /// Reads a spec of [`SPEC_WORDS`] words, checking every field.
    pub fn decode(r: &mut Reader) -> Result<Self, SpecError> {
        let end = r.position() + SPEC_WORDS;
        let spec = match r.next()? {
            kind::UDP => match r.next()? {
                p @ 1..=65535 => Self::Udp { port: p as u16 },
                p => return Err(SpecError::BadPort(p)),
            },
            kind::BLOCKS => {
                let (first, count) = (r.next()?, r.next()?);
                if count == 0 || first.checked_add(count).is_none() {
                    return Err(SpecError::BadBlocks { first, count });
                }
                Self::Blocks { first, count }
            }
            kind::CIPHER => {
                let p = r.next()?;
                let mode = match p & 0xff {
                    0 => Mode::Cbc,
                    1 => Mode::Ctr,
                    m => return Err(SpecError::BadMode(m)),
                };
                let direction = match p >> 8 & 0xff {
                    0 => Direction::Encrypt,
                    1 => Direction::Decrypt,
                    d => return Err(SpecError::BadDirection(d)),
                };
                let engine = match p >> 16 & 0xff {
                    0 => Engine::Any,
                    1 => Engine::Device,
                    2 => Engine::Software,
                    e => return Err(SpecError::BadEngine(e)),
                };
                let key_len = p >> 24;
                let mut bytes = [0u8; 32];
                for c in bytes.chunks_mut(8) {
                    c.copy_from_slice(&r.next()?.to_le_bytes());
                }
                let key = Key::new(bytes.get(..key_len as usize).unwrap_or(&[]))
                    .ok_or(SpecError::BadKeyLength(key_len))?;
                let mut iv = [0u8; 16];
                for c in iv.chunks_mut(8) {
                    c.copy_from_slice(&r.next()?.to_le_bytes());
                }
                Self::Cipher(Cipher {
                    mode,
                    direction,
                    engine,
                    key,
                    iv,
                })
            }
            kind::CRC32C => Self::Crc32c,
            kind::NULL => Self::Null,
            kind::PATTERN => Self::Pattern {
                count: r.next()?,
                seed: r.next()?,
            },
            kind::CHECK => Self::Check { seed: r.next()? },
            kind::FILE => {
                let (offset, length, len) = (r.next()?, r.next()?, r.next()?);
                let mut bytes = [0u8; MAX_PATH];
                for c in bytes.chunks_mut(8) {
                    c.copy_from_slice(&r.next()?.to_le_bytes());
                }
                let path = FilePath::from_raw(len, &bytes).ok_or(SpecError::BadPath(len))?;
                Self::File {
                    path,
                    offset,
                    length,
                }
            }
            k @ (kind::TCP | kind::UDP_TO) => {
                let w = r.next()?;
                let peer = Peer::from_word(w).ok_or(SpecError::BadPeer(w))?;
                if k == kind::TCP {
                    Self::Tcp { peer }
                } else {
                    Self::UdpTo { peer }
                }
            }
            k => return Err(SpecError::UnknownKind(k)),
        };
        r.seek(end);
        Ok(spec)
    }

    /// Whether this spec can begin a flow, sit inside one, or end one.
    pub fn role(&self) -> Roles {
        match self {
            Self::Udp { .. } | Self::Pattern { .. } => Roles::SOURCE,
            Self::Blocks { .. } | Self::File { .. } => Roles::SOURCE | Roles::SINK,
            Self::Cipher(_) | Self::Crc32c => Roles::TRANSFORMER,
            Self::Null | Self::Check { .. } | Self::Tcp { .. } | Self::UdpTo { .. } => Roles::SINK,
        }
    }
}

impl StageSpec {
    /// The spec's kind number (as encoded; `1 << kind` in INFO answers).
    pub fn kind(&self) -> u64 {
        match self {
            Self::Udp { .. } => kind::UDP,
            Self::Blocks { .. } => kind::BLOCKS,
            Self::Cipher(_) => kind::CIPHER,
            Self::Crc32c => kind::CRC32C,
            Self::Null => kind::NULL,
            Self::Pattern { .. } => kind::PATTERN,
            Self::Check { .. } => kind::CHECK,
            Self::File { .. } => kind::FILE,
            Self::Tcp { .. } => kind::TCP,
            Self::UdpTo { .. } => kind::UDP_TO,
        }
    }
}

/// Positions a spec may take in a flow (a small bit set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles(u8);

impl Roles {
    pub const SOURCE: Self = Self(1);
    pub const TRANSFORMER: Self = Self(2);
    pub const SINK: Self = Self(4);

    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for Roles {
    type Output = Self;
    fn bitor(self, o: Self) -> Self {
        Self(self.0 | o.0)
    }
}

/// Everything a stage needs to start its part of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    /// The stage task's own number for the flow, below [`MAX_FLOWS`].
    pub flow: u32,
    pub spec: StageSpec,
    /// The input edge's buffers (`None` for a source).
    pub input: Option<Span>,
    /// The output edge's buffers (`None` for a sink).
    pub output: Option<Span>,
    /// How the flow shares the task and how fast its source may go.
    pub sched: Sched,
    /// Where the stage picks up (0: the beginning): a pull source's next
    /// buffer (a pattern's record number, a block source's buffer index),
    /// so a rewired flow goes on where it stopped; a `check` sink's next
    /// expected record; the sequence number a source gives its first
    /// buffer in either case. Other stages ignore it.
    pub position: u64,
    /// A second input edge: the stage *merges* its two inputs, taking
    /// buffers from them in turn (the first from `input`), which is the
    /// order its upstream split them in.
    pub input2: Option<Span>,
    /// A second output edge: the stage *splits* its output, sending
    /// buffers to its two outputs in turn (the first to `output`), each to
    /// one replica of the next stage.
    pub output2: Option<Span>,
    /// The stage is one of two replicas between a split and a merge: a
    /// buffer it gives up on still goes on, empty (length 0, its sequence
    /// number kept), so the merge taking buffers in turn never waits for
    /// one that will not come.
    pub replica: bool,
}

/// [`Start`]'s flags word.
pub mod flags {
    /// [`super::Start::replica`].
    pub const REPLICA: u64 = 1;
}

/// A flow's share of its stages: its priority among the flows of one
/// stage task, and its source's rate limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sched {
    /// 0 (least urgent) to 7, as the application asked.
    pub priority: u8,
    /// Bytes per second the source admits; 0 is no limit.
    pub rate: u64,
    /// TSC cycles per second (as `flowmgr` measured them), so the source
    /// can turn its clock into bytes allowed; 0 when unknown, which only
    /// an unlimited flow accepts.
    pub tsc_hz: u64,
}

impl Sched {
    /// Bytes a rate-limited source may send at once after waiting: an
    /// eighth of a second's worth (at least 1). `flowmgr` wakes a waiting
    /// source every 100 ms, so this much saved credit lets it keep up
    /// with its rate between two wakes.
    pub fn burst(&self) -> u64 {
        (self.rate / 8).max(1)
    }
}

fn put_span(w: &mut Writer, s: Option<Span>) -> Result<(), crate::words::Full> {
    let s = s.unwrap_or(Span {
        lo: 0,
        count: 0,
        size: 0,
    });
    w.put(s.lo)?;
    w.put(u64::from(s.count) | u64::from(s.size) << 32)
}

fn get_span(r: &mut Reader) -> Result<Option<Span>, SpecError> {
    let lo = r.next()?;
    let w = r.next()?;
    let s = Span {
        lo,
        count: w as u32,
        size: (w >> 32) as u32,
    };
    match (s.count, s.size) {
        (0, 0) if lo == 0 => Ok(None),
        (c, z) if c == 0 || z == 0 || c > crate::edge::MAX_BUFFERS => Err(SpecError::BadSpan),
        _ => Ok(Some(s)),
    }
}

/// Words of a start message: flow, spec, two spans, priority, rate, TSC
/// rate, position, the second lanes' spans, flags.
pub const START_WORDS: usize = 1 + SPEC_WORDS + 4 + 4 + 4 + 1;

impl Start {
    pub fn encode(&self, words: &mut [u64]) -> Result<usize, crate::words::Full> {
        let mut w = Writer::new(words);
        w.put(u64::from(self.flow))?;
        self.spec.encode(&mut w)?;
        put_span(&mut w, self.input)?;
        put_span(&mut w, self.output)?;
        w.put(u64::from(self.sched.priority))?;
        w.put(self.sched.rate)?;
        w.put(self.sched.tsc_hz)?;
        w.put(self.position)?;
        put_span(&mut w, self.input2)?;
        put_span(&mut w, self.output2)?;
        w.put(if self.replica { flags::REPLICA } else { 0 })?;
        Ok(w.len())
    }

    /// The start message in `words`, checked. Whether the spans fit the
    /// pool is checked by the stage when it maps the pool.
    pub fn decode(words: &[u64]) -> Result<Self, SpecError> {
        let mut r = Reader::new(words);
        let flow = r.next()?;
        if flow >= u64::from(MAX_FLOWS) {
            return Err(SpecError::BadFlow(flow));
        }
        let spec = StageSpec::decode(&mut r)?;
        let input = get_span(&mut r)?;
        let output = get_span(&mut r)?;
        let priority = r.next()?;
        if priority > 7 {
            return Err(SpecError::BadPriority(priority));
        }
        let (rate, tsc_hz) = (r.next()?, r.next()?);
        if rate != 0 && tsc_hz == 0 {
            return Err(SpecError::NoClock(rate));
        }
        Ok(Self {
            flow: flow as u32,
            spec,
            input,
            output,
            sched: Sched {
                priority: priority as u8,
                rate,
                tsc_hz,
            },
            position: r.next()?,
            input2: get_span(&mut r)?,
            output2: get_span(&mut r)?,
            replica: match r.next()? {
                0 => false,
                flags::REPLICA => true,
                w => return Err(SpecError::BadFlags(w)),
            },
        })
        .and_then(|s: Self| {
            let lone = (s.input2.is_some() && s.input.is_none())
                || (s.output2.is_some() && s.output.is_none());
            if lone {
                Err(SpecError::LoneLane)
            } else {
                Ok(s)
            }
        })
    }
}

/// A stage's answer to `flowmgr` (the reply's label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum StageStatus {
    Ok = 0,
    /// The message's label is not a stage operation.
    BadLabel = 1,
    /// The start message was refused; `detail` holds the [`SpecError`]'s
    /// word index or value.
    BadSpec = 2,
    /// The flow number is not one this stage has (or is out of range).
    UnknownFlow = 3,
    /// ATTACH came without a capability, or with one that cannot be mapped.
    BadCapability = 4,
    /// START before the pool or an edge the spec needs was attached.
    NotAttached = 5,
    /// The stage cannot do this kind of work (a cipher sent to the NIC).
    Unsupported = 6,
    /// The spans do not fit the pool, or the edges are not formatted.
    BadEdge = 7,
    /// The flow is already running (START twice).
    Busy = 8,
    /// The stage's device cannot take the flow now (no session, no port),
    /// or its file cannot be read or written as asked (missing, not a
    /// regular file, an offset past its end, no such directory).
    DeviceRefused = 9,
}

impl StageStatus {
    pub fn from_label(l: u32) -> Option<Self> {
        Some(match l {
            0 => Self::Ok,
            1 => Self::BadLabel,
            2 => Self::BadSpec,
            3 => Self::UnknownFlow,
            4 => Self::BadCapability,
            5 => Self::NotAttached,
            6 => Self::Unsupported,
            7 => Self::BadEdge,
            8 => Self::Busy,
            9 => Self::DeviceRefused,
            _ => return None,
        })
    }
}

impl fmt::Display for StageStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Ok => "ok",
            Self::BadLabel => "the stage does not know this operation",
            Self::BadSpec => "the stage refused the flow's spec",
            Self::UnknownFlow => "the stage has no such flow",
            Self::BadCapability => {
                "the capability sent to the stage is missing or cannot be mapped"
            }
            Self::NotAttached => "the stage was started before its pool or edges were attached",
            Self::Unsupported => "this stage task cannot do that kind of work",
            Self::BadEdge => {
                "the flow's edges are not formatted or their spans do not fit the pool"
            }
            Self::Busy => "the flow is already running on this stage",
            Self::DeviceRefused => {
                "the stage's device or file refused the flow (no session or port free, or the file cannot be opened: its task's console line says why)"
            }
        })
    }
}

#[cfg(test)]
mod tests;
