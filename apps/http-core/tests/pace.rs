//! An answer's deadlines, with the time passed in: a stall cuts it, a
//! trickle below the rate floor cuts it, a reader at the floor or faster
//! never is, whatever the size.

use conflux_http::pace::{Pace, Verdict, GRACE_MS, MIN_RATE, STALL_MS};

const MIB: u64 = 1024 * 1024;

#[test]
fn an_answer_that_makes_no_progress_is_cut_at_the_stall_deadline() {
    let mut p = Pace::new(16 * MIB, 1_000);
    p.sent(512 * 1024, 1_200);
    assert_eq!(
        p.check(1_200 + STALL_MS - 1),
        Verdict::OnTime {
            check_at: 1_200 + STALL_MS
        },
        "one ms before the stall deadline"
    );
    assert_eq!(p.check(1_200 + STALL_MS), Verdict::Stalled, "at it");
    assert_eq!(
        p.check(1_200 + STALL_MS + 5_000),
        Verdict::Stalled,
        "past it"
    );
}

#[test]
fn a_stalled_answer_that_never_sent_a_byte_is_cut_too() {
    let p = Pace::new(100, 0);
    assert!(matches!(p.check(STALL_MS - 1), Verdict::OnTime { .. }));
    assert_eq!(p.check(STALL_MS), Verdict::Stalled);
}

#[test]
fn progress_moves_the_stall_deadline() {
    let mut p = Pace::new(16 * MIB, 0);
    for step in 1..=30u64 {
        let now = step * (STALL_MS - 1);
        assert!(
            matches!(p.check(now), Verdict::OnTime { .. }),
            "step {step}"
        );
        p.sent(MIB / 2, now);
    }
    assert_eq!(p.moved_at(), 30 * (STALL_MS - 1));
}

#[test]
fn the_whole_answer_gets_the_grace_plus_one_second_per_min_rate_bytes() {
    let p = Pace::new(16 * MIB, 7);
    assert_eq!(p.deadline(), 7 + GRACE_MS + 16 * MIB * 1000 / MIN_RATE);
    assert_eq!(p.deadline(), 7 + 10_000 + 512_000, "16 MiB: 522 s");
    assert_eq!(Pace::new(0, 7).deadline(), 7 + GRACE_MS);
}

#[test]
fn a_reader_at_the_floor_is_never_cut() {
    // One second's worth every second, for a whole 16 MiB.
    let total = 16 * MIB;
    let mut p = Pace::new(total, 0);
    let mut now = 0;
    while p.progress().0 < total {
        now += 1_000;
        assert!(
            matches!(p.check(now), Verdict::OnTime { .. }),
            "at {now} ms with {:?} sent",
            p.progress()
        );
        p.sent(MIN_RATE, now);
    }
    assert_eq!(
        p.check(now + 10 * STALL_MS),
        Verdict::OnTime { check_at: u64::MAX }
    );
}

#[test]
fn a_normal_download_of_16_mib_is_never_cut() {
    // 1 MiB/s, a fifth of what the guest does under TCG.
    let mut p = Pace::new(16 * MIB, 0);
    for s in 1..=16 {
        assert!(matches!(p.check(s * 1_000), Verdict::OnTime { .. }));
        p.sent(MIB, s * 1_000);
    }
    assert!(matches!(p.check(1_000_000), Verdict::OnTime { .. }));
}

#[test]
fn a_trickle_reader_falls_behind_the_floor_and_is_cut() {
    // 1 MiB goes at once (buffers between httpd and the peer), then 1 KiB
    // a second: never a stall, but far below the floor.
    let mut p = Pace::new(16 * MIB, 0);
    p.sent(MIB, 0);
    let behind_at = GRACE_MS + (MIB + 1) * 1000 / MIN_RATE;
    let mut now = 0;
    let cut = loop {
        now += 1_000;
        match p.check(now) {
            Verdict::OnTime { .. } => p.sent(1024, now),
            verdict => break verdict,
        }
    };
    assert_eq!(cut, Verdict::TooSlow);
    // Not while it was ahead (1 MiB at once bought it 32 s), soon after
    // it fell behind, and long before the whole answer's deadline.
    assert!(
        (behind_at..behind_at + 5_000).contains(&now),
        "cut at {now} ms, behind from about {behind_at} ms"
    );
    assert!(now < p.deadline() / 10);
}

#[test]
fn the_rate_check_is_exact_at_the_byte() {
    let mut p = Pace::new(10 * MIN_RATE, 0);
    p.sent(MIN_RATE, 5_000);
    // Byte MIN_RATE + 1 is due at GRACE_MS + 1000 ms (+ a fraction, cut off).
    let due = GRACE_MS + (MIN_RATE + 1) * 1000 / MIN_RATE;
    assert_eq!(p.check(due - 1), Verdict::OnTime { check_at: due });
    // The stall would come later (moved at 5 s), so it is the rate.
    assert_eq!(p.check(due), Verdict::TooSlow);
}

#[test]
fn an_answer_all_sent_has_no_deadline_left() {
    let mut p = Pace::new(300, 0);
    p.sent(300, 5);
    assert_eq!(p.check(u64::MAX), Verdict::OnTime { check_at: u64::MAX });
    p.sent(10, 6);
    assert_eq!(p.progress(), (300, 300), "never counted past the length");
}

#[test]
fn huge_lengths_and_late_clocks_saturate_instead_of_overflowing() {
    let p = Pace::new(u64::MAX, u64::MAX - 5);
    assert_eq!(p.deadline(), u64::MAX);
    assert_eq!(
        p.check(u64::MAX - 1),
        Verdict::OnTime { check_at: u64::MAX }
    );
}
