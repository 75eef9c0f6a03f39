//! Log lines an attacker cannot multiply: one per period, with the count
//! of the rest.

use conflux_http::tally::{Tally, PERIOD_MS};

#[test]
fn the_first_event_is_logged_and_the_next_ones_in_the_period_are_counted() {
    let mut t = Tally::new();
    assert_eq!(t.event(1_000), Some(0));
    for i in 1..=47 {
        assert_eq!(t.event(1_000 + i * 100), None, "event {i}");
    }
    assert_eq!(
        t.flush(1_000 + PERIOD_MS - 1),
        None,
        "one ms before the period ends"
    );
    assert_eq!(t.flush(1_000 + PERIOD_MS), Some(47), "at its end");
    assert_eq!(t.flush(1_000 + 3 * PERIOD_MS), None, "said once");
}

#[test]
fn an_event_after_the_period_carries_the_count_held_back() {
    let mut t = Tally::new();
    assert_eq!(t.event(0), Some(0));
    assert_eq!(t.event(10), None);
    assert_eq!(t.event(20), None);
    assert_eq!(t.event(PERIOD_MS - 1), None);
    assert_eq!(t.event(PERIOD_MS), Some(3));
    assert_eq!(t.event(PERIOD_MS + 1), None, "a new period began");
}

#[test]
fn a_flood_of_events_makes_one_line_per_period() {
    let mut t = Tally::new();
    let mut lines = 0;
    let mut counted = 0;
    // An event every 10 ms for 10 minutes, a flush every second.
    for now in (0..600_000).step_by(10) {
        if let Some(held) = t.event(now) {
            lines += 1;
            counted += held + 1;
        }
        if now % 1_000 == 0 {
            if let Some(held) = t.flush(now) {
                lines += 1;
                counted += held;
            }
        }
    }
    assert!(lines <= 600_000 / PERIOD_MS + 1, "{lines} lines");
    counted += t.flush(u64::MAX).unwrap_or(0);
    assert_eq!(counted, 60_000, "every event is counted once");
}

#[test]
fn nothing_to_flush_says_nothing() {
    let mut t = Tally::new();
    assert_eq!(t.flush(0), None);
    assert_eq!(t.flush(10 * PERIOD_MS), None);
}
