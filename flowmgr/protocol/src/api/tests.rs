//! Requests and statistics round-trip; misplaced stages, counts, priorities
//! and buffer sizes are refused with their own errors.

use super::*;
use crate::stage::{Cipher, Direction, Engine, Key, Mode};
use proptest::prelude::*;

fn decrypt() -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction: Direction::Decrypt,
        engine: Engine::Any,
        key: Key::new(&[1; 16]).unwrap(),
        iv: [2; 16],
    })
}

fn paper_flow() -> FlowRequest {
    FlowRequest::new(
        StageSpec::Udp { port: 5700 },
        &[decrypt(), StageSpec::Crc32c],
        StageSpec::Blocks {
            first: 0,
            count: 1 << 20,
        },
        3,
        0,
        1024,
    )
    .unwrap()
}

#[test]
fn the_paper_s_flow_round_trips() {
    let r = paper_flow();
    let mut words = [0; REQUEST_WORDS];
    let n = r.encode(&mut words).unwrap();
    assert_eq!(n, 3 + 4 * SPEC_WORDS);
    assert_eq!(FlowRequest::decode(&words[..n]), Ok(r));
    assert_eq!(r.stages().len(), 4);
}

#[test]
fn misplaced_stages_are_refused_by_index() {
    let udp = StageSpec::Udp { port: 1 };
    let m = |i| Err(RequestError::Misplaced { index: i });
    assert_eq!(
        FlowRequest::new(StageSpec::Null, &[], StageSpec::Null, 0, 0, 64),
        m(0)
    );
    assert_eq!(FlowRequest::new(udp, &[], udp, 0, 0, 64), m(1));
    assert_eq!(
        FlowRequest::new(udp, &[StageSpec::Null], StageSpec::Null, 0, 0, 64),
        m(1)
    );
    assert_eq!(
        FlowRequest::new(udp, &[StageSpec::Crc32c; 5], StageSpec::Null, 0, 0, 64),
        Err(RequestError::StageCount(7))
    );
    assert_eq!(
        FlowRequest::new(udp, &[], StageSpec::Null, 8, 0, 64),
        Err(RequestError::Priority(8))
    );
    for b in [0, 48, 100, MAX_BUFFER + 16] {
        assert_eq!(
            FlowRequest::new(udp, &[], StageSpec::Null, 0, 0, b),
            Err(RequestError::Buffer(b.into()))
        );
    }
}

#[test]
fn decode_names_the_stage_whose_spec_is_bad() {
    let mut words = [0; REQUEST_WORDS];
    let n = paper_flow().encode(&mut words).unwrap();
    let mut bad = words;
    bad[3 + SPEC_WORDS] = 42; // stage 1's kind
    assert_eq!(
        FlowRequest::decode(&bad[..n]),
        Err(RequestError::Spec {
            index: 1,
            error: SpecError::UnknownKind(42)
        })
    );
    bad = words;
    bad[0] = 9;
    assert_eq!(FlowRequest::decode(&bad), Err(RequestError::StageCount(9)));
    assert!(matches!(
        FlowRequest::decode(&words[..n - SPEC_WORDS + 1]),
        Err(RequestError::Spec {
            index: 3,
            error: SpecError::Short { .. }
        })
    ));
}

#[test]
fn stats_round_trip_and_refuse_impossible_counts() {
    let mut s = FlowStats {
        state: FlowState::Recovering,
        ladder: [1, 2, 3, 4],
        sink: [5, 6],
        replications: 11,
        tsc_hz: 12,
        sink_kind: 7,
        edges: [EdgeFigures::default(); MAX_EDGES],
        edge_count: 3,
    };
    s.edges[2] = EdgeFigures {
        queued: 5,
        buffers: 6,
        bytes: 7,
        drops: 8,
        first: 9,
        last: 10,
    };
    let mut words = [0; STATS_WORDS];
    let n = s.encode(&mut words).unwrap();
    assert_eq!(FlowStats::decode(&words[..n]), Some(s));
    words[1] = MAX_EDGES as u64 + 1;
    assert_eq!(FlowStats::decode(&words), None);
    words[1] = 3;
    words[0] = 5;
    assert_eq!(FlowStats::decode(&words), None);
}

proptest! {
    #[test]
    fn any_words_decode_or_fail_without_panicking(words in proptest::collection::vec(any::<u64>(), 0..60)) {
        if let Ok(r) = FlowRequest::decode(&words) {
            let mut again = [0; REQUEST_WORDS];
            let n = r.encode(&mut again).unwrap();
            prop_assert_eq!(FlowRequest::decode(&again[..n]), Ok(r));
        }
        let _ = FlowStats::decode(&words);
    }
}

/// A flow from UDP to blocks through `transformers`.
fn through(transformers: &[StageSpec]) -> Result<FlowRequest, RequestError> {
    let sink = StageSpec::Blocks { first: 0, count: 8 };
    FlowRequest::new(
        StageSpec::Udp { port: 5700 },
        transformers,
        sink,
        0,
        0,
        1024,
    )
}

#[test]
fn a_flow_of_max_stages_is_taken_and_one_more_is_refused() {
    let full = [StageSpec::Crc32c; MAX_TRANSFORMERS];
    let r = through(&full).expect("at MAX_STAGES");
    assert_eq!(r.stages().len(), MAX_STAGES);
    let mut words = [0; REQUEST_WORDS];
    let n = r.encode(&mut words).unwrap();
    assert_eq!(FlowRequest::decode(&words[..n]), Ok(r), "fits the request");
    let over = [StageSpec::Crc32c; MAX_TRANSFORMERS + 1];
    assert_eq!(
        through(&over),
        Err(RequestError::StageCount(MAX_STAGES as u64 + 1))
    );
    let shown = RequestError::StageCount(MAX_STAGES as u64 + 1).to_string();
    let want = format!("at most {MAX_TRANSFORMERS} transformers");
    assert!(shown.contains(&want), "{shown}");
}

#[test]
fn replication_needs_room_for_two_more_edges() {
    // A cipher and transformers up to MAX_REPLICATED_STAGES: replicable.
    let mut t = [StageSpec::Crc32c; MAX_TRANSFORMERS];
    t[0] = decrypt();
    let at = MAX_REPLICATED_STAGES - 2;
    assert_eq!(through(&t[..at]).unwrap().replicable(), Some(1));
    // One stage more and the replicas' edges would not fit: not offered.
    assert_eq!(through(&t[..at + 1]).unwrap().replicable(), None);
}

#[test]
fn buffers_of_max_buffer_bytes_are_taken_and_larger_ones_refused() {
    let flow = |buffer| {
        let sink = StageSpec::Blocks { first: 0, count: 8 };
        FlowRequest::new(StageSpec::Udp { port: 5700 }, &[], sink, 0, 0, buffer)
    };
    assert!(flow(MAX_BUFFER).is_ok(), "at the limit");
    assert_eq!(
        flow(MAX_BUFFER + 16),
        Err(RequestError::Buffer(u64::from(MAX_BUFFER) + 16)),
        "the next multiple of 16"
    );
}
