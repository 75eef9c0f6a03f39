//! What a client may ask, and the one check that turns a table entry the
//! client can still change into a [`Request`] the driver acts on.

use crate::{Status, BLOCK, CAPACITY, IV_LEN, MAX_LEN};
use conflux_queue::{DataRegion, Descriptor};

/// What a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Op {
    /// A session of one algorithm and direction; the key is the
    /// descriptor's bytes. Answers the new handle in `session`.
    CreateSession = 1,
    DestroySession = 2,
    /// `len` bytes at the descriptor's offset, encrypted into `dst`.
    Encrypt = 3,
    Decrypt = 4,
    /// The client is done: the driver answers, destroys the client's
    /// sessions, then stops serving it.
    Detach = 5,
    /// How many sessions the device holds for all clients together
    /// (answered in `detail`): how a test sees that a departed client's
    /// sessions came back.
    Count = 6,
}

impl Op {
    pub fn from_raw(raw: u32) -> Option<Self> {
        Some(match raw {
            1 => Self::CreateSession,
            2 => Self::DestroySession,
            3 => Self::Encrypt,
            4 => Self::Decrypt,
            5 => Self::Detach,
            6 => Self::Count,
            _ => return None,
        })
    }
}

/// A cipher mode, as `param`'s low byte names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Algorithm {
    /// AES-CBC.
    Cbc = 1,
    /// AES-CTR, the IV being the initial 128-bit big-endian counter.
    Ctr = 2,
}

/// A session's one direction, as `param`'s second byte names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Direction {
    Encrypt = 0,
    Decrypt = 1,
}

impl Algorithm {
    /// `param` for a session of this algorithm and `dir`.
    pub fn param(self, dir: Direction) -> u32 {
        self as u32 | (dir as u32) << 8
    }

    /// The algorithm and direction `param` names, if any (no other bits set).
    pub fn from_param(param: u32) -> Option<(Self, Direction)> {
        let algo = match param & 0xff {
            1 => Self::Cbc,
            2 => Self::Ctr,
            _ => return None,
        };
        let dir = match param >> 8 {
            0 => Direction::Encrypt,
            1 => Direction::Decrypt,
            _ => return None,
        };
        Some((algo, dir))
    }
}

/// A byte range inside the data area (checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub offset: u64,
    pub len: u32,
}

/// A request the driver may act on: every field checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    CreateSession {
        descriptor: Descriptor,
        algo: Algorithm,
        dir: Direction,
        /// 16, 24 or 32 bytes (the device's own limit is the driver's check).
        key: Span,
    },
    DestroySession {
        descriptor: Descriptor,
        session: u64,
    },
    Cipher {
        descriptor: Descriptor,
        dir: Direction,
        session: u64,
        iv: [u8; IV_LEN],
        src: Span,
        /// Same length as `src`, and apart from it: the driver hands the
        /// device the source to read and the destination to write as two
        /// buffers, which must not alias.
        dst: Span,
    },
    Detach {
        descriptor: Descriptor,
    },
    Count {
        descriptor: Descriptor,
    },
}

impl Request {
    /// The descriptor to answer with.
    pub fn descriptor(&self) -> Descriptor {
        match *self {
            Self::CreateSession { descriptor, .. }
            | Self::DestroySession { descriptor, .. }
            | Self::Cipher { descriptor, .. }
            | Self::Detach { descriptor }
            | Self::Count { descriptor } => descriptor,
        }
    }
}

/// A request refused before it reached the device: answer it with this
/// status and detail (the descriptor is echoed back so the client can
/// match it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub descriptor: Descriptor,
    pub status: Status,
    pub detail: u64,
}

/// A table entry's fields, copied once out of shared memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub op: u32,
    pub session: u64,
    pub iv: [u8; IV_LEN],
    pub dst: u64,
    pub param: u32,
}

/// Checks descriptor `d` (its source range already checked against `data`
/// by the queue) with its entry's `fields`.
pub(crate) fn check(d: Descriptor, f: &Fields, data: DataRegion) -> Result<Request, Refused> {
    let refuse = |status, detail| Refused {
        descriptor: d,
        status,
        detail,
    };
    if d.id >= CAPACITY {
        return Err(refuse(Status::BadDescriptor, u64::from(d.id)));
    }
    let span = Span {
        offset: d.offset,
        len: d.len,
    };
    let Some(op) = Op::from_raw(f.op) else {
        return Err(refuse(Status::BadOp, u64::from(f.op)));
    };
    Ok(match op {
        Op::CreateSession => {
            let Some((algo, dir)) = Algorithm::from_param(f.param) else {
                return Err(refuse(Status::BadAlgorithm, u64::from(f.param)));
            };
            if !matches!(d.len, 16 | 24 | 32) {
                return Err(refuse(Status::BadKey, u64::from(d.len)));
            }
            Request::CreateSession {
                descriptor: d,
                algo,
                dir,
                key: span,
            }
        }
        Op::DestroySession => Request::DestroySession {
            descriptor: d,
            session: f.session,
        },
        Op::Encrypt | Op::Decrypt => {
            if d.len == 0 || !d.len.is_multiple_of(BLOCK) || d.len > MAX_LEN {
                return Err(refuse(Status::BadLength, u64::from(d.len)));
            }
            let dst = Descriptor {
                offset: f.dst,
                len: d.len,
                id: d.id,
            };
            // Once both ranges are inside the data area, their ends do not overflow.
            let apart =
                || f.dst + u64::from(d.len) <= d.offset || d.offset + u64::from(d.len) <= f.dst;
            if data.check(dst).is_err() || !apart() {
                return Err(refuse(Status::BadDestination, f.dst));
            }
            Request::Cipher {
                descriptor: d,
                dir: if op == Op::Encrypt {
                    Direction::Encrypt
                } else {
                    Direction::Decrypt
                },
                session: f.session,
                iv: f.iv,
                src: span,
                dst: Span {
                    offset: f.dst,
                    len: d.len,
                },
            }
        }
        Op::Detach => Request::Detach { descriptor: d },
        Op::Count => Request::Count { descriptor: d },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DATA_LEN: u64 = 1024 * 1024;

    fn data() -> DataRegion {
        DataRegion::new(DATA_LEN as usize)
    }

    fn d(offset: u64, len: u32, id: u32) -> Descriptor {
        Descriptor { offset, len, id }
    }

    fn cipher(op: Op, dst: u64) -> Fields {
        Fields {
            op: op as u32,
            session: 7,
            iv: [3; IV_LEN],
            dst,
            param: 0,
        }
    }

    #[test]
    fn a_good_cipher_request_keeps_every_field() {
        let r = check(d(0, 4096, 5), &cipher(Op::Decrypt, 8192), data());
        assert_eq!(
            r,
            Ok(Request::Cipher {
                descriptor: d(0, 4096, 5),
                dir: Direction::Decrypt,
                session: 7,
                iv: [3; IV_LEN],
                src: Span {
                    offset: 0,
                    len: 4096
                },
                dst: Span {
                    offset: 8192,
                    len: 4096
                },
            })
        );
    }

    #[test]
    fn each_bad_field_gets_its_own_status() {
        let status = |desc, f: Fields| check(desc, &f, data()).map_err(|r| (r.status, r.detail));
        let create = |param| Fields {
            op: Op::CreateSession as u32,
            param,
            ..Fields::default()
        };
        let cases = [
            (
                d(0, 16, CAPACITY),
                cipher(Op::Encrypt, 0),
                Status::BadDescriptor,
                u64::from(CAPACITY),
            ),
            (
                d(0, 16, 1),
                Fields {
                    op: 99,
                    ..Fields::default()
                },
                Status::BadOp,
                99,
            ),
            (d(0, 0, 1), cipher(Op::Encrypt, 0), Status::BadLength, 0),
            (d(0, 40, 1), cipher(Op::Encrypt, 0), Status::BadLength, 40),
            (
                d(0, MAX_LEN + 16, 1),
                cipher(Op::Encrypt, 0),
                Status::BadLength,
                u64::from(MAX_LEN) + 16,
            ),
            (
                d(0, 32, 1),
                cipher(Op::Encrypt, DATA_LEN - 16),
                Status::BadDestination,
                DATA_LEN - 16,
            ),
            (
                d(0, 32, 1),
                cipher(Op::Encrypt, u64::MAX - 8),
                Status::BadDestination,
                u64::MAX - 8,
            ),
            (
                d(4096, 32, 1),
                cipher(Op::Encrypt, 4096 + 16),
                Status::BadDestination,
                4096 + 16,
            ),
            (
                d(4096, 32, 1),
                cipher(Op::Encrypt, 4096 - 16),
                Status::BadDestination,
                4096 - 16,
            ),
            (
                d(4096, 32, 1),
                cipher(Op::Encrypt, 4096),
                Status::BadDestination,
                4096,
            ),
            (d(0, 16, 1), create(3), Status::BadAlgorithm, 3),
            (d(0, 16, 1), create(0x201), Status::BadAlgorithm, 0x201),
            (
                d(0, 17, 1),
                create(Algorithm::Cbc.param(Direction::Encrypt)),
                Status::BadKey,
                17,
            ),
        ];
        for (desc, f, want, detail) in cases {
            assert_eq!(status(desc, f), Err((want, detail)), "{desc:?} {f:?}");
        }
    }

    #[test]
    fn params_round_trip() {
        for algo in [Algorithm::Cbc, Algorithm::Ctr] {
            for dir in [Direction::Encrypt, Direction::Decrypt] {
                assert_eq!(Algorithm::from_param(algo.param(dir)), Some((algo, dir)));
            }
        }
    }

    proptest! {
        /// Whatever a client writes, a request that passes names only
        /// bytes inside the data area, in whole blocks for ciphers.
        #[test]
        fn accepted_requests_stay_inside_the_data_area(
            offset in 0..DATA_LEN, len in 0..=MAX_LEN + 32, id in 0..CAPACITY + 2,
            op in 0u32..7, dst in prop_oneof![0..DATA_LEN + 64, any::<u64>()],
            param in any::<u32>(), session in any::<u64>(),
        ) {
            let desc = d(offset, len, id);
            // The queue checks the source before this check runs.
            prop_assume!(data().check(desc).is_ok());
            let f = Fields { op, session, iv: [0; IV_LEN], dst, param };
            if let Ok(r) = check(desc, &f, data()) {
                prop_assert!(id < CAPACITY);
                if let Request::Cipher { src, dst, .. } = r {
                    prop_assert!(src.len > 0 && src.len.is_multiple_of(BLOCK) && src.len <= MAX_LEN);
                    prop_assert_eq!(src.len, dst.len);
                    prop_assert!(dst.offset.checked_add(u64::from(dst.len)).is_some_and(|e| e <= DATA_LEN));
                    prop_assert!(dst.offset + u64::from(dst.len) <= src.offset || src.offset + u64::from(src.len) <= dst.offset);
                }
            }
        }
    }
}
