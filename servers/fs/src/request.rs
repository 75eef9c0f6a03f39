//! One request, decoded: a message's label, words and sender badge become
//! what the server does. Words are untrusted: each is decoded here once
//! (buffer operands through `BufArg`, parameters counted against the
//! register file), and anything that does not decode is an error reply.
//! A request with more words than its kind takes is refused whole
//! (`TooManyWords`), never cut to fit.

use conflux_fs_protocol::ipc::{self, BufArg};
use conflux_fs_protocol::{ops, FsError};
use conflux_userlib::ipc::{long_word, Message};

/// The words a request carries (the first four from registers, the rest
/// from the IPC buffer), at most `MAX`.
pub struct Words {
    words: [u64; Words::MAX],
    len: usize,
}

impl Words {
    /// More than any request needs: 2 words plus 32 parameters.
    pub const MAX: usize = 34;

    /// The words of `msg`; `TooManyWords` past `MAX` (more than any
    /// request takes).
    pub fn of(msg: &Message) -> Result<Words, FsError> {
        if msg.len > Self::MAX {
            return Err(FsError::TooManyWords);
        }
        let mut words = [0; Self::MAX];
        for (i, w) in words.iter_mut().enumerate().take(msg.len) {
            *w = msg.words.get(i).copied().unwrap_or_else(|| long_word(i));
        }
        Ok(Words {
            words,
            len: msg.len,
        })
    }

    /// Word `i`, 0 past the end (as an absent operand reads).
    pub fn get(&self, i: usize) -> u64 {
        self.words[..self.len].get(i).copied().unwrap_or(0)
    }

    /// Words from `i` on.
    pub fn from(&self, i: usize) -> &[u64] {
        self.words[..self.len].get(i..).unwrap_or(&[])
    }

    /// How many words came, capped at `MAX`.
    pub fn len(&self) -> usize {
        self.len
    }
}

/// What a request asks for.
pub enum Request {
    Connect {
        version: u64,
    },
    Attach,
    Detach,
    Run {
        offset: u64,
        len: u64,
    },
    Prepare {
        offset: u64,
        len: u64,
    },
    RunPrepared {
        handle: u64,
    },
    Release {
        handle: u64,
    },
    Shutdown,
    /// One file operation (`ops`), its operands in the words.
    Op(u16),
    Unknown,
}

impl Request {
    /// Decodes a label.
    pub fn of(label: u32, w: &Words) -> Request {
        match label {
            ipc::CONNECT => Request::Connect { version: w.get(0) },
            ipc::ATTACH => Request::Attach,
            ipc::DETACH => Request::Detach,
            ipc::RUN => Request::Run {
                offset: w.get(0),
                len: w.get(1),
            },
            ipc::PREPARE => Request::Prepare {
                offset: w.get(0),
                len: w.get(1),
            },
            ipc::RUN_PREPARED => Request::RunPrepared { handle: w.get(0) },
            ipc::RELEASE => Request::Release { handle: w.get(0) },
            ipc::SHUTDOWN => Request::Shutdown,
            l if l >= ipc::VAN_BASE && l - ipc::VAN_BASE <= u32::from(u16::MAX) => {
                Request::Op((l - ipc::VAN_BASE) as u16)
            }
            _ => Request::Unknown,
        }
    }

    /// The most words this request takes (an unknown label or op takes
    /// none: it is refused for what it is first).
    pub fn max_words(&self) -> usize {
        match self {
            Request::Connect { .. } | Request::Release { .. } => 1,
            Request::Prepare { .. } => 2,
            Request::Run { .. } => 2 + PARAMS,
            Request::RunPrepared { .. } => 1 + PARAMS,
            Request::Op(op) => ops::TABLE.get(*op).map_or(Words::MAX, |s| s.args.len()),
            Request::Attach | Request::Detach | Request::Shutdown => 0,
            Request::Unknown => Words::MAX,
        }
    }

    /// Whether the request carries a region capability (the only ones a
    /// transferred capability is for).
    pub fn takes_cap(&self) -> bool {
        matches!(self, Request::Connect { .. } | Request::Attach)
    }
}

/// The most parameters a run takes: one per register.
const PARAMS: usize = 32;

/// A buffer operand's word as (region, offset, length).
pub fn buf_operand(word: u64) -> (usize, usize, usize) {
    let b = BufArg::unpack(word);
    (usize::from(b.region), b.offset as usize, b.len as usize)
}
