//! Specs and start messages round-trip, and every bad field is refused
//! with its own error, whatever words a caller sends.

use super::*;
use proptest::prelude::*;

fn cipher() -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Ctr,
        direction: Direction::Decrypt,
        engine: Engine::Software,
        key: Key::new(&[7; 24]).unwrap(),
        iv: [9; 16],
    })
}

fn specs() -> [StageSpec; 10] {
    [
        StageSpec::Udp { port: 5700 },
        StageSpec::Blocks {
            first: 2048,
            count: 4096,
        },
        cipher(),
        StageSpec::Crc32c,
        StageSpec::Null,
        StageSpec::Pattern {
            count: 1_000_000,
            seed: 42,
        },
        StageSpec::Check { seed: 42 },
        StageSpec::File {
            path: FilePath::new("/flows/a-32-byte-long-filename.x").unwrap(),
            offset: 4096,
            length: u64::MAX,
        },
        StageSpec::Tcp {
            peer: Peer {
                addr: [10, 0, 2, 100],
                port: 5800,
            },
        },
        StageSpec::UdpTo {
            peer: Peer {
                addr: [10, 0, 2, 2],
                port: 65535,
            },
        },
    ]
}

#[test]
fn paths_are_checked() {
    for bad in [
        "",
        "/",
        "a",
        "/a/",
        "/a//b",
        "/a\0b",
        "/123456789012345678901234567890123",
    ] {
        assert_eq!(FilePath::new(bad), None, "{bad:?}");
    }
    assert_eq!(FilePath::new("/a/b").unwrap().as_str(), "/a/b");
    // A path's length word beyond its bytes, or bytes that are not UTF-8.
    let spec = |len: u64, b0: u64| [kind::FILE, 0, 9, len, b0, 0, 0, 0];
    let decode = |w: [u64; 8]| StageSpec::decode(&mut Reader::new(&w));
    assert_eq!(decode(spec(33, 0x612f)), Err(SpecError::BadPath(33)));
    assert_eq!(decode(spec(2, 0xff2f)), Err(SpecError::BadPath(2)));
    assert!(matches!(
        decode(spec(2, 0x612f)),
        Ok(StageSpec::File { length: 9, .. })
    ));
}

#[test]
fn peers_are_checked() {
    let decode = |k: u64, w: u64| StageSpec::decode(&mut Reader::new(&[k, w, 0, 0, 0, 0, 0, 0]));
    assert_eq!(
        decode(kind::TCP, 0x0a00_0202),
        Err(SpecError::BadPeer(0x0a00_0202))
    );
    assert_eq!(
        decode(kind::UDP_TO, 1 << 48 | 1 << 32),
        Err(SpecError::BadPeer(1 << 48 | 1 << 32))
    );
    let tcp = decode(kind::TCP, 80 << 32 | 0x7f00_0001).unwrap();
    assert_eq!(
        format!("{tcp:?}"),
        "Tcp { peer: Peer { addr: [127, 0, 0, 1], port: 80 } }"
    );
}

#[test]
fn every_spec_round_trips_in_its_fixed_words() {
    for spec in specs() {
        let mut words = [0u64; 2 * SPEC_WORDS];
        let mut w = Writer::new(&mut words);
        spec.encode(&mut w).unwrap();
        spec.encode(&mut w).unwrap();
        assert_eq!(w.len(), 2 * SPEC_WORDS);
        let mut r = Reader::new(&words);
        assert_eq!(StageSpec::decode(&mut r), Ok(spec));
        assert_eq!(StageSpec::decode(&mut r), Ok(spec));
    }
}

#[test]
fn start_round_trips() {
    let s = Start {
        flow: 3,
        spec: cipher(),
        input: Some(Span {
            lo: 0,
            count: 32,
            size: 2048,
        }),
        output: Some(Span {
            lo: 65536,
            count: 32,
            size: 2048,
        }),
        sched: Sched {
            priority: 5,
            rate: 1 << 20,
            tsc_hz: 2_000_000_000,
        },
        position: 77,
        input2: Some(Span {
            lo: 131072,
            count: 4,
            size: 2048,
        }),
        output2: None,
        replica: true,
    };
    let mut words = [0; START_WORDS];
    assert_eq!(s.encode(&mut words), Ok(START_WORDS));
    assert_eq!(Start::decode(&words), Ok(s));
    let source = Start {
        input: None,
        input2: None,
        spec: StageSpec::Udp { port: 1 },
        ..s
    };
    source.encode(&mut words).unwrap();
    assert_eq!(Start::decode(&words), Ok(source));
}

#[test]
fn bad_fields_are_named() {
    let mut words = [0u64; START_WORDS];
    Start {
        flow: 0,
        spec: cipher(),
        input: None,
        output: None,
        sched: Sched::default(),
        position: 0,
        input2: None,
        output2: None,
        replica: false,
    }
    .encode(&mut words)
    .unwrap();
    let with = |i: usize, v: u64| {
        let mut w = words;
        w[i] = v;
        Start::decode(&w)
    };
    let p = words[2];
    assert_eq!(with(0, 8), Err(SpecError::BadFlow(8)));
    assert_eq!(with(1, 99), Err(SpecError::UnknownKind(99)));
    assert_eq!(with(2, p | 7), Err(SpecError::BadMode(7)));
    assert_eq!(
        with(2, p & !0xff00 | 2 << 8),
        Err(SpecError::BadDirection(2))
    );
    assert_eq!(
        with(2, p & !0xff_0000 | 3 << 16),
        Err(SpecError::BadEngine(3))
    );
    assert_eq!(
        with(2, p & 0xff_ffff | 17 << 24),
        Err(SpecError::BadKeyLength(17))
    );
    assert_eq!(
        with(2, p & 0xff_ffff | 1 << 60),
        Err(SpecError::BadKeyLength(1 << 36))
    );
    assert_eq!(Start::decode(&words[..5]), Err(SpecError::Short { at: 5 }));
    // A span with buffers but no size, or more buffers than a ring holds.
    assert_eq!(with(10, 5), Err(SpecError::BadSpan));
    let past = u64::from(crate::edge::MAX_BUFFERS) + 1;
    assert_eq!(with(10, past | 16 << 32), Err(SpecError::BadSpan));
    assert!(
        with(10, (past - 1) | 16 << 32).is_ok(),
        "a full ring's worth is taken"
    );
    // Priority past 7; a rate without the TSC's rate; a short position.
    assert_eq!(with(13, 8), Err(SpecError::BadPriority(8)));
    assert_eq!(with(14, 1000), Err(SpecError::NoClock(1000)));
    assert!(with(15, 1000).is_ok(), "a TSC rate without a limit is fine");
    assert_eq!(
        Start::decode(&words[..16]),
        Err(SpecError::Short { at: 16 })
    );
    // A second lane without a first; unknown flags.
    assert_eq!(with(18, 1 | 64 << 32), Err(SpecError::LoneLane));
    assert_eq!(with(20, 1 | 64 << 32), Err(SpecError::LoneLane));
    assert_eq!(with(21, 2), Err(SpecError::BadFlags(2)));
    let mut w = [0u64; SPEC_WORDS];
    w[0] = 1;
    w[1] = 65536;
    assert_eq!(
        StageSpec::decode(&mut Reader::new(&w)),
        Err(SpecError::BadPort(65536))
    );
    w = [2, u64::MAX, 2, 0, 0, 0, 0, 0];
    assert!(matches!(
        StageSpec::decode(&mut Reader::new(&w)),
        Err(SpecError::BadBlocks { .. })
    ));
    w[2] = 0;
    w[1] = 0;
    assert!(matches!(
        StageSpec::decode(&mut Reader::new(&w)),
        Err(SpecError::BadBlocks { .. })
    ));
}

#[test]
fn roles_say_where_a_spec_fits() {
    assert!(StageSpec::Udp { port: 1 }.role().contains(Roles::SOURCE));
    assert!(!StageSpec::Udp { port: 1 }.role().contains(Roles::SINK));
    assert!(StageSpec::Null.role().contains(Roles::SINK));
    assert!(cipher().role().contains(Roles::TRANSFORMER));
    let b = StageSpec::Blocks { first: 0, count: 1 }.role();
    assert!(b.contains(Roles::SOURCE) && b.contains(Roles::SINK));
}

#[test]
fn keys_stay_out_of_debug_output() {
    let s = format!("{:?}", cipher());
    assert!(s.contains("Key(24 bytes)") && !s.contains("7, 7"), "{s}");
}

/// A word as a hostile caller might pick it: small numbers (kinds, lengths,
/// flags), bytes of text, edges of ranges, or anything.
fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..16,
        any::<[u8; 8]>().prop_map(u64::from_le_bytes),
        "/[a-z/]{7}".prop_map(|t| u64::from_le_bytes(t.as_bytes().try_into().unwrap())),
        Just(u64::MAX),
        (0u64..0x1_0000).prop_map(|p| p << 32 | 0x0a00_0264),
        any::<u64>(),
    ]
}

proptest! {
    /// Specs built from likely words reach every kind's checks (random
    /// words alone almost never name a kind); whatever decodes encodes
    /// back to the same words' meaning.
    #[test]
    fn likely_specs_decode_or_fail_without_panicking(kind in 0u64..12, rest in proptest::collection::vec(word(), 0..10)) {
        let mut words = vec![kind];
        words.extend(rest);
        let mut r = Reader::new(&words);
        if let Ok(spec) = StageSpec::decode(&mut r) {
            let mut again = [0; SPEC_WORDS];
            spec.encode(&mut Writer::new(&mut again)).unwrap();
            prop_assert_eq!(StageSpec::decode(&mut Reader::new(&again)), Ok(spec));
            if let StageSpec::File { path, .. } = spec {
                let p = path.as_str();
                prop_assert!(p.starts_with('/') && p.len() <= MAX_PATH && !p.contains("//"));
            }
        }
    }

    #[test]
    fn any_words_decode_or_fail_without_panicking(words in proptest::collection::vec(any::<u64>(), 0..20)) {
        if let Ok(s) = Start::decode(&words) {
            let mut again = [0; START_WORDS];
            s.encode(&mut again).unwrap();
            prop_assert_eq!(Start::decode(&again), Ok(s));
        }
    }
}
