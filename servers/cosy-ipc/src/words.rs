//! One request, decoded: a message's label and words become what a Cosy
//! server is asked. Words are untrusted: each is read once, and a
//! request with more words than its kind takes is refused whole
//! ([`TooManyWords`]), never cut to fit. Words that came in registers are
//! decoded where they are (a slice of the message); only a long request
//! is read into [`Words`].

use crate::{
    ATTACH, CLIENT_GONE, CONNECT, DETACH, PREPARE, RELEASE, RING, RING_ENTER, RING_WAIT, RUN,
    RUN_PREPARED, SHUTDOWN, VAN_BASE,
};

/// A message carried more words than any request takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyWords;

/// The words a request carries, at most [`Words::MAX`].
pub struct Words {
    words: [u64; Words::MAX],
    len: usize,
}

impl Words {
    /// More than any request needs: 2 words plus [`PARAMS`] parameters.
    pub const MAX: usize = 2 + PARAMS;

    /// The `len` words `word(i)` reads (registers, then the IPC buffer);
    /// `TooManyWords` past [`Words::MAX`].
    pub fn new(len: usize, word: impl Fn(usize) -> u64) -> Result<Words, TooManyWords> {
        if len > Self::MAX {
            return Err(TooManyWords);
        }
        let mut words = [0; Self::MAX];
        for (i, w) in words.iter_mut().enumerate().take(len) {
            *w = word(i);
        }
        Ok(Words { words, len })
    }

    /// Word `i`, 0 past the end (as an absent operand reads).
    pub fn get(&self, i: usize) -> u64 {
        self.words[..self.len].get(i).copied().unwrap_or(0)
    }

    /// Words from `i` on.
    pub fn from(&self, i: usize) -> &[u64] {
        self.words[..self.len].get(i..).unwrap_or(&[])
    }

    /// How many words came.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether none came.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The most parameters a run takes: one per compound register.
pub const PARAMS: usize = 32;

/// Words as a request reads them: 0 past the end, as an absent operand.
struct Absent0<'a>(&'a [u64]);

impl Absent0<'_> {
    fn get(&self, i: usize) -> u64 {
        self.0.get(i).copied().unwrap_or(0)
    }
}

/// What a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Use attached data region `region` as the session's rings.
    Ring {
        region: u64,
    },
    /// The rings' doorbell; `wait`: answer once a completion waits.
    RingEnter {
        wait: bool,
    },
    /// The supervisor says the client with `badge` is gone.
    ClientGone {
        badge: u64,
    },
    /// One operation of the server's table, its operands in the words.
    Op(u16),
    Unknown,
}

impl Request {
    /// Decodes a label and its words (absent words read 0). Inlined: every
    /// request of every server starts here.
    #[inline]
    pub fn of(label: u32, words: &[u64]) -> Request {
        let w = Absent0(words);
        match label {
            CONNECT => Request::Connect { version: w.get(0) },
            ATTACH => Request::Attach,
            DETACH => Request::Detach,
            RUN => Request::Run {
                offset: w.get(0),
                len: w.get(1),
            },
            PREPARE => Request::Prepare {
                offset: w.get(0),
                len: w.get(1),
            },
            RUN_PREPARED => Request::RunPrepared { handle: w.get(0) },
            RELEASE => Request::Release { handle: w.get(0) },
            SHUTDOWN => Request::Shutdown,
            RING => Request::Ring { region: w.get(0) },
            RING_ENTER => Request::RingEnter {
                wait: w.get(0) & RING_WAIT != 0,
            },
            CLIENT_GONE => Request::ClientGone { badge: w.get(0) },
            l if l >= VAN_BASE && l - VAN_BASE <= u32::from(u16::MAX) => {
                Request::Op((l - VAN_BASE) as u16)
            }
            _ => Request::Unknown,
        }
    }

    /// The most words this request takes; `operands(op)` is the number of
    /// operands of op `op` in the server's table (`None`: no such op). An
    /// unknown label or op takes any number: it is refused for what it is.
    pub fn max_words(&self, operands: impl Fn(u16) -> Option<usize>) -> usize {
        match self {
            Request::Connect { .. }
            | Request::Release { .. }
            | Request::ClientGone { .. }
            | Request::Ring { .. }
            | Request::RingEnter { .. } => 1,
            Request::Prepare { .. } => 2,
            Request::Run { .. } => 2 + PARAMS,
            Request::RunPrepared { .. } => 1 + PARAMS,
            Request::Op(op) => operands(*op).unwrap_or(Words::MAX),
            Request::Attach | Request::Detach | Request::Shutdown => 0,
            Request::Unknown => Words::MAX,
        }
    }

    /// Whether the request carries a region capability (the only thing a
    /// transferred capability is for).
    pub fn takes_cap(&self) -> bool {
        matches!(self, Request::Connect { .. } | Request::Attach)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_past_the_limit_are_refused_whole() {
        assert!(Words::new(Words::MAX + 1, |_| 0).is_err());
        let w = Words::new(3, |i| i as u64 + 10).unwrap();
        assert_eq!((w.get(0), w.get(2), w.get(3)), (10, 12, 0));
        assert_eq!(w.from(1), &[11, 12]);
        assert_eq!(w.from(9), &[] as &[u64]);
    }

    #[test]
    fn labels_decode_and_count() {
        let w = [7, 9];
        assert_eq!(Request::of(RUN, &w), Request::Run { offset: 7, len: 9 });
        assert_eq!(
            Request::of(RUN, &w[..1]),
            Request::Run { offset: 7, len: 0 }
        );
        assert_eq!(Request::of(VAN_BASE + 3, &w), Request::Op(3));
        assert_eq!(Request::of(99, &w), Request::Unknown);
        let ops = |op: u16| (op < 2).then_some(usize::from(op) + 1);
        assert_eq!(Request::Op(1).max_words(ops), 2);
        assert_eq!(Request::Op(5).max_words(ops), Words::MAX);
        assert_eq!(Request::Attach.max_words(ops), 0);
        assert!(Request::Attach.takes_cap() && !Request::Detach.takes_cap());
        assert_eq!(
            Request::of(CLIENT_GONE, &[0x17]),
            Request::ClientGone { badge: 0x17 }
        );
        assert_eq!(Request::ClientGone { badge: 1 }.max_words(ops), 1);
        assert!(!Request::ClientGone { badge: 1 }.takes_cap());
        assert_eq!(Request::of(RING, &[2]), Request::Ring { region: 2 });
        assert_eq!(
            Request::of(RING_ENTER, &[3]),
            Request::RingEnter { wait: true }
        );
        assert_eq!(
            Request::of(RING_ENTER, &[]),
            Request::RingEnter { wait: false }
        );
        assert_eq!(Request::RingEnter { wait: true }.max_words(ops), 1);
        assert!(!Request::Ring { region: 1 }.takes_cap());
    }
}
