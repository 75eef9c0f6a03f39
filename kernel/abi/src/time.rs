//! Kernel time: the tick that drives preemption and task timers.
//!
//! The kernel counts ticks of its periodic APIC timer from boot; `timer_set`
//! takes and returns times in ticks. A timer of `n` ticks fires at the
//! `n`-th tick after the call, so it waits between `n - 1` and `n` tick
//! periods (the call itself falls somewhere inside a period).

/// Length of one kernel tick in nanoseconds (the APIC timer's period).
pub const TICK_NS: u64 = 10_000_000;

/// The longest timer `timer_set` accepts: one day. Longer waits are
/// almost certainly a unit mistake (nanoseconds for ticks), so they are
/// refused with `TimerTooLong` rather than armed.
pub const TIMER_MAX_TICKS: u64 = 24 * 60 * 60 * 1_000_000_000 / TICK_NS;

/// The ticks that cover `ms` milliseconds, rounded up, at least 1: a
/// deadline or timer of that many ticks waits at least `ms - TICK` and at
/// most `ms` rounded up to the tick.
pub const fn ticks_for_ms(ms: u64) -> u64 {
    let ticks = ms.saturating_mul(1_000_000).div_ceil(TICK_NS);
    if ticks == 0 {
        1
    } else {
        ticks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_round_up_to_whole_ticks() {
        assert_eq!(ticks_for_ms(0), 1);
        assert_eq!(ticks_for_ms(1), 1);
        assert_eq!(ticks_for_ms(10), 1);
        assert_eq!(ticks_for_ms(11), 2);
        assert_eq!(ticks_for_ms(2_000), 200);
        assert_eq!(
            ticks_for_ms(u64::MAX),
            u64::MAX.div_ceil(TICK_NS),
            "saturates"
        );
    }

    #[test]
    fn a_day_of_ten_millisecond_ticks() {
        assert_eq!(TIMER_MAX_TICKS, 8_640_000);
    }
}
