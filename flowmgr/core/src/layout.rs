//! Cutting a slot's pool into one span of buffers per edge.
//!
//! Edge `e` joins stage `e` to stage `e + 1`. Its buffers hold what stage
//! `e` writes: the request's buffer size, plus 4 bytes for every `crc32c`
//! stage up to and including stage `e` (each appends a CRC-32C), rounded
//! up to 64 bytes so no two buffers share a cache line. Each edge gets an
//! equal share of the pool and as many buffers as fit in it, at most
//! [`MAX_BUFFERS`] (the rings' size).
//!
//! A flow whose stage `r` is replicated ([`cut_replicated`]) has two more
//! edges after its own: the second lane into the replica (buffers like
//! edge `r - 1`'s) and out of it (like edge `r`'s); the pool is shared
//! among all of them.

use conflux_flow_protocol::api::{FlowRequest, MAX_EDGES};
use conflux_flow_protocol::edge::MAX_BUFFERS;
use conflux_flow_protocol::stage::StageSpec;
use conflux_flow_protocol::Span;

/// Bytes a buffer's start is aligned to.
pub const ALIGN: u64 = 64;
/// Bytes a crc32c stage adds to a buffer.
pub const CRC_BYTES: u32 = 4;

/// The buffers of one edge don't fit its share of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooSmall {
    pub edge: usize,
}

/// The spans of a flow's edges, `spans[..edges]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub spans: [Span; MAX_EDGES],
    pub edges: usize,
}

fn round_up(n: u64) -> u64 {
    n.div_ceil(ALIGN) * ALIGN
}

/// The spans for `req` over a pool of `pool_len` bytes.
pub fn cut(pool_len: u64, req: &FlowRequest) -> Result<Layout, TooSmall> {
    cut_lanes(pool_len, req, None)
}

/// The spans for `req` with stage `replicated` run by two replicas: the
/// flow's edges, then the replica's input and output edges. `TooSmall`
/// also when the slot has no room for the two edges.
pub fn cut_replicated(
    pool_len: u64,
    req: &FlowRequest,
    replicated: usize,
) -> Result<Layout, TooSmall> {
    cut_lanes(pool_len, req, Some(replicated))
}

fn cut_lanes(
    pool_len: u64,
    req: &FlowRequest,
    replicated: Option<usize>,
) -> Result<Layout, TooSmall> {
    let stages = req.stages();
    let own = stages.len().saturating_sub(1).min(MAX_EDGES);
    let empty = Span {
        lo: 0,
        count: 0,
        size: 0,
    };
    let mut spans = [empty; MAX_EDGES];
    if own == 0 {
        return Ok(Layout { spans, edges: 0 });
    }
    // What each of the flow's edges holds, then the replica's lanes.
    let mut sizes = [0u64; MAX_EDGES];
    let mut grown = 0u64;
    for (e, size) in sizes.iter_mut().enumerate().take(own) {
        if stages[e] == StageSpec::Crc32c {
            grown += u64::from(CRC_BYTES);
        }
        *size = round_up(u64::from(req.buffer) + grown);
    }
    let edges = match replicated {
        None => own,
        Some(r) => {
            let lanes = (r > 0 && r < own && own + 2 <= MAX_EDGES)
                .then(|| [sizes[r - 1], sizes[r]])
                .ok_or(TooSmall { edge: own })?;
            sizes[own..own + 2].copy_from_slice(&lanes);
            own + 2
        }
    };
    let share = pool_len / edges as u64 / ALIGN * ALIGN;
    for (e, (span, &size)) in spans.iter_mut().zip(&sizes).enumerate().take(edges) {
        let count = (share / size).min(u64::from(MAX_BUFFERS));
        if count == 0 || size > u64::from(u32::MAX) {
            return Err(TooSmall { edge: e });
        }
        *span = Span {
            lo: e as u64 * share,
            count: count as u32,
            size: size as u32,
        };
    }
    Ok(Layout { spans, edges })
}

#[cfg(test)]
mod tests {
    use super::*;
    use conflux_flow_protocol::api::{MAX_BUFFER, MAX_TRANSFORMERS, MIN_BUFFER};
    use proptest::prelude::*;

    fn req(transformers: &[StageSpec], buffer: u32) -> FlowRequest {
        FlowRequest::new(
            StageSpec::Pattern { count: 10, seed: 1 },
            transformers,
            StageSpec::Null,
            0,
            0,
            buffer,
        )
        .unwrap()
    }

    #[test]
    fn crc32c_grows_the_buffers_after_it() {
        let l = cut(2 << 20, &req(&[StageSpec::Crc32c, StageSpec::Crc32c], 1024)).unwrap();
        assert_eq!(l.edges, 3);
        let sizes: Vec<u32> = l.spans[..3].iter().map(|s| s.size).collect();
        // 1024, 1028 → 1088, 1032 → 1088.
        assert_eq!(sizes, [1024, 1088, 1088]);
        assert!(l.spans[..3].iter().all(|s| s.count == MAX_BUFFERS));
    }

    #[test]
    fn a_small_pool_gives_fewer_buffers_then_refuses() {
        let l = cut(3 * 4096, &req(&[StageSpec::Crc32c], 1024)).unwrap();
        assert_eq!((l.spans[0].count, l.spans[1].count), (6, 5));
        assert_eq!(
            cut(2 * 1024, &req(&[StageSpec::Crc32c], 1024)),
            Err(TooSmall { edge: 1 })
        );
        assert_eq!(cut(0, &req(&[], 64)), Err(TooSmall { edge: 0 }));
    }

    #[test]
    fn a_replica_s_lanes_are_cut_like_the_edges_around_it() {
        let cipher = StageSpec::Cipher(conflux_flow_protocol::stage::Cipher {
            mode: conflux_flow_protocol::stage::Mode::Ctr,
            direction: conflux_flow_protocol::stage::Direction::Encrypt,
            engine: conflux_flow_protocol::stage::Engine::Any,
            key: conflux_flow_protocol::stage::Key::new(&[0; 16]).unwrap(),
            iv: [0; 16],
        });
        // pattern → crc32c → cipher → null: the cipher (2) replicated.
        let r = req(&[StageSpec::Crc32c, cipher], 1024);
        let l = cut_replicated(5 * 64 * 1088, &r, 2).unwrap();
        assert_eq!(l.edges, 5);
        let sizes: Vec<u32> = l.spans[..5].iter().map(|s| s.size).collect();
        assert_eq!(sizes, [1024, 1088, 1088, 1088, 1088]);
        assert!(l.spans[..5]
            .windows(2)
            .all(|w| w[0].bytes().end <= w[1].bytes().start));
        // The source or sink cannot be replicated; five stages leave no room.
        assert!(cut_replicated(1 << 20, &r, 0).is_err());
        assert!(cut_replicated(1 << 20, &r, 3).is_err());
        let five = req(&[StageSpec::Crc32c, cipher, cipher], 1024);
        assert!(cut_replicated(1 << 20, &five, 2).is_err());
    }

    proptest! {
        /// Every span fits the pool, holds whole aligned buffers large
        /// enough for what its upstream stage writes, and no two overlap.
        #[test]
        fn spans_fit_and_never_overlap(
            pool in 0u64..(8 << 20),
            crcs in proptest::collection::vec(any::<bool>(), 0..=MAX_TRANSFORMERS),
            buffer in (MIN_BUFFER / 16)..=(MAX_BUFFER / 16),
        ) {
            let buffer = buffer * 16;
            let ts: Vec<StageSpec> = crcs.iter().map(|&c| if c { StageSpec::Crc32c } else {
                StageSpec::Cipher(conflux_flow_protocol::stage::Cipher {
                    mode: conflux_flow_protocol::stage::Mode::Ctr,
                    direction: conflux_flow_protocol::stage::Direction::Encrypt,
                    engine: conflux_flow_protocol::stage::Engine::Any,
                    key: conflux_flow_protocol::stage::Key::new(&[0; 16]).unwrap(),
                    iv: [0; 16],
                })
            }).collect();
            let r = req(&ts, buffer);
            if let Ok(l) = cut(pool, &r) {
                prop_assert_eq!(l.edges, ts.len() + 1);
                let mut grown = 0;
                for (e, s) in l.spans[..l.edges].iter().enumerate() {
                    if e > 0 && crcs[e - 1] { grown += 4; }
                    prop_assert!(s.fits(pool));
                    prop_assert!(s.count <= MAX_BUFFERS);
                    prop_assert!(s.size >= buffer + grown);
                    prop_assert_eq!(u64::from(s.size) % ALIGN, 0);
                    prop_assert_eq!(s.lo % ALIGN, 0);
                    for t in &l.spans[e + 1..l.edges] {
                        prop_assert!(s.bytes().end <= t.bytes().start);
                    }
                }
            }
        }
    }
}
