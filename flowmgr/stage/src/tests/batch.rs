//! A transformer that hands its device several buffers at once
//! ([`FlowIo::transform_batch`]): order, sequence numbers and failures
//! come out as if it went buffer by buffer.

use super::*;
use std::collections::HashSet;

/// Runs the source `s0` four turns, so it fills its whole edge (4
/// buffers) between its neighbour's turns and the neighbour has several
/// to batch: records 0 to 39, each its number in its first 4 bytes.
fn feed(s0: &mut Stages<Toy>, os: &mut FakeOs, sent: &mut u32) {
    for _ in 0..4 {
        s0.run(|_, io, _| {
            io.source(os, |dst| {
                if *sent == 40 {
                    return Err(io::Failure::Permanent);
                }
                dst[..4].copy_from_slice(&sent.to_le_bytes());
                *sent += 1;
                Ok(Some(4))
            })
        });
    }
}

/// What the batch work does with the buffer of sequence number `seq`
/// the `n`th time it sees it.
type Verdict = fn(seq: u32, n: u32) -> Result<(), io::Failure>;

/// Source (40 records, up to four per turn) → batch transformer (adds 1 to every byte) →
/// sink, each turn of each stage in order; the sink's (seq, first byte)
/// and the largest batch the transformer was handed.
fn pipeline(verdict: Verdict) -> (Vec<(u32, u8)>, usize, u64) {
    let mut rig = Rig::new();
    let mut works = [Toy::default(), Toy::default(), Toy::default()];
    let mut stages = [
        Stages::new(config(0)),
        Stages::new(config(1)),
        Stages::new(config(2)),
    ];
    let specs = [
        spec(1, StageSpec::Udp { port: 9 }, None, Some(IN)),
        spec(1, StageSpec::Crc32c, Some(IN), Some(OUT)),
        spec(1, StageSpec::Null, Some(OUT), None),
    ];
    for p in 0..3 {
        rig.attach(&mut stages[p], &mut works[p], 1, p);
        assert_eq!(
            start(&mut stages[p], &mut works[p], &mut rig.os, specs[p]),
            StageStatus::Ok
        );
    }
    let [s0, s1, s2] = &mut stages;
    let (mut sent, mut largest) = (0u32, 0usize);
    let mut tries: HashMap<u32, u32> = HashMap::new();
    let mut seen = Vec::new();
    for _round in 0..200 {
        feed(s0, &mut rig.os, &mut sent);
        s1.run(|_, io, _| {
            io.transform_batch(&mut rig.os, |pairs, results| {
                largest = largest.max(pairs.len());
                for ((src, dst), r) in pairs.iter_mut().zip(results.iter_mut()) {
                    let seq = u32::from_le_bytes(src[..4].try_into().unwrap());
                    let n = tries.entry(seq).or_default();
                    *n += 1;
                    *r = verdict(seq, *n).map(|()| {
                        for (d, s) in dst.iter_mut().zip(src.iter()) {
                            *d = s.wrapping_add(1);
                        }
                        src.len()
                    });
                }
            })
        });
        s2.run(|_, io, _| {
            io.sink(&mut rig.os, |src, seq| {
                seen.push((seq, src[0]));
                Ok(())
            })
        });
    }
    let retries = match s1.get(1) {
        Some((io, _)) => io.retries,
        None => 0,
    };
    (seen, largest, retries)
}

#[test]
fn a_batch_delivers_every_buffer_in_order_transformed() {
    let (seen, largest, _) = pipeline(|_, _| Ok(()));
    let want: Vec<(u32, u8)> = (0..40).map(|i| (i, (i as u8).wrapping_add(1))).collect();
    assert_eq!(seen, want);
    assert!(largest > 1, "the device was handed one buffer at a time");
    assert!(largest <= crate::BATCH);
}

#[test]
fn a_permanent_failure_drops_that_buffer_only() {
    let (seen, _, _) = pipeline(|seq, _| {
        if seq % 5 == 2 {
            Err(io::Failure::Permanent)
        } else {
            Ok(())
        }
    });
    let want: Vec<(u32, u8)> = (0..40)
        .filter(|i| i % 5 != 2)
        .map(|i| (i, (i as u8).wrapping_add(1)))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn a_transient_failure_retries_that_buffer_and_the_rest_in_order() {
    // Every third buffer fails the first time the device sees it; the
    // buffers after it in the same batch must wait and come after it.
    let (seen, _, retries) = pipeline(|seq, n| {
        if seq % 3 == 1 && n == 1 {
            Err(io::Failure::Transient)
        } else {
            Ok(())
        }
    });
    let want: Vec<(u32, u8)> = (0..40).map(|i| (i, (i as u8).wrapping_add(1))).collect();
    assert_eq!(seen, want);
    assert!(retries >= 13, "{retries} retries counted");
    let unique: HashSet<u32> = seen.iter().map(|(s, _)| *s).collect();
    assert_eq!(unique.len(), 40, "nothing delivered twice");
}

/// Source (40 records, up to four per turn) → a sink taking up to
/// [`crate::BATCH`] at once, each judged by `verdict`; what it took,
/// in order, and the largest batch.
fn sink_pipeline(verdict: Verdict) -> (Vec<u32>, usize) {
    let mut rig = Rig::new();
    let mut works = [Toy::default(), Toy::default()];
    let mut stages = [Stages::new(config(0)), Stages::new(config(1))];
    let specs = [
        spec(1, StageSpec::Udp { port: 9 }, None, Some(IN)),
        spec(1, StageSpec::Null, Some(IN), None),
    ];
    // The sink sits where the rig's middle stage would: input edge 0.
    for (p, at) in [(0, 0), (1, 1)] {
        rig.attach(&mut stages[p], &mut works[p], 1, at);
    }
    let [s0, s1] = &mut stages;
    assert_eq!(
        start(s0, &mut works[0], &mut rig.os, specs[0]),
        StageStatus::Ok
    );
    // The middle position also took an output edge; a sink ignores it.
    assert_eq!(
        start(s1, &mut works[1], &mut rig.os, specs[1]),
        StageStatus::Ok
    );
    let (mut sent, mut largest) = (0u32, 0usize);
    let mut tries: HashMap<u32, u32> = HashMap::new();
    let mut taken = Vec::new();
    for _round in 0..200 {
        feed(s0, &mut rig.os, &mut sent);
        s1.run(|_, io, _| {
            io.sink_batch(&mut rig.os, |bufs, results| {
                largest = largest.max(bufs.len());
                // Like a sink that takes at most three at once.
                let mut got = 0;
                for ((src, seq), r) in bufs.iter().zip(results.iter_mut()).take(3) {
                    assert_eq!(u32::from_le_bytes(src[..4].try_into().unwrap()), *seq);
                    let n = tries.entry(*seq).or_default();
                    *n += 1;
                    *r = verdict(*seq, *n);
                    got += 1;
                    match r {
                        Ok(()) => taken.push(*seq),
                        // Like a socket that is full: nothing after it.
                        Err(io::Failure::Transient) => break,
                        Err(io::Failure::Permanent) => {}
                    }
                }
                got
            })
        });
    }
    (taken, largest)
}

#[test]
fn a_sink_batch_takes_every_buffer_once_in_order() {
    let (taken, largest) = sink_pipeline(|_, _| Ok(()));
    assert_eq!(taken, (0..40).collect::<Vec<u32>>());
    assert!(largest > 1, "the sink was handed one buffer at a time");
}

#[test]
fn a_sink_batch_retries_from_the_buffer_that_did_not_go() {
    let (taken, _) = sink_pipeline(|seq, n| match (seq % 4, n) {
        (3, 1) => Err(io::Failure::Transient),
        (1, _) if seq == 9 => Err(io::Failure::Permanent),
        _ => Ok(()),
    });
    let want: Vec<u32> = (0..40).filter(|&s| s != 9).collect();
    assert_eq!(
        taken, want,
        "each once, in order; only the given-up one missing"
    );
}

#[test]
fn a_source_batch_numbers_its_buffers_in_order_and_keeps_the_rest() {
    let mut rig = Rig::new();
    let mut works = [Toy::default(), Toy::default()];
    let mut stages = [Stages::new(config(0)), Stages::new(config(1))];
    for (p, at) in [(0, 0), (1, 1)] {
        rig.attach(&mut stages[p], &mut works[p], 1, at);
    }
    let [s0, s1] = &mut stages;
    let source = spec(1, StageSpec::Udp { port: 9 }, None, Some(IN));
    let sink = spec(1, StageSpec::Null, Some(IN), None);
    assert_eq!(
        start(s0, &mut works[0], &mut rig.os, source),
        StageStatus::Ok
    );
    assert_eq!(start(s1, &mut works[1], &mut rig.os, sink), StageStatus::Ok);
    let (mut made, mut largest, mut finished) = (0u32, 0usize, false);
    let mut taken = Vec::new();
    for _round in 0..200 {
        s0.run(|_, io, _| {
            let step = io.source_batch(&mut rig.os, |bufs, results| {
                largest = largest.max(bufs.len());
                // Up to three per read; a fourth of the way through, the
                // source has nothing for a moment.
                let mut got = 0;
                for (buf, r) in bufs.iter_mut().zip(results.iter_mut()).take(3) {
                    got += 1;
                    *r = if made == 40 {
                        Err(io::Failure::Permanent)
                    } else if made == 10 && !finished {
                        finished = true;
                        Ok(None)
                    } else {
                        buf[..4].copy_from_slice(&made.to_le_bytes());
                        made += 1;
                        Ok(Some(4))
                    };
                    if !matches!(r, Ok(Some(_))) {
                        break;
                    }
                }
                got
            });
            step
        });
        s1.run(|_, io, _| {
            io.sink(&mut rig.os, |src, seq| {
                taken.push((seq, u32::from_le_bytes(src[..4].try_into().unwrap())));
                Ok(())
            })
        });
    }
    let want: Vec<(u32, u32)> = (0..40).map(|i| (i, i)).collect();
    assert_eq!(
        taken, want,
        "each buffer numbered in order, none lost or repeated"
    );
    assert!(largest > 1, "the source was lent one buffer at a time");
}
