//! The real-time clock's registers decoded (BCD and binary, 12- and
//! 24-hour, the century register or its absence, readings that are no
//! date), and `wall_clock` built on them.

use super::sim::{Obj, Sim};
use crate::rtc::{decode, BadRtc, RtcRegisters, STATUS_B_24H, STATUS_B_BINARY};
use conflux_abi::calendar::Civil;
use conflux_abi::{SysError, Sysno};
use proptest::prelude::*;

/// 2026-11-28 13:05:09 in BCD, 24-hour, century 20.
fn bcd() -> RtcRegisters {
    RtcRegisters {
        second: 0x09,
        minute: 0x05,
        hour: 0x13,
        day: 0x28,
        month: 0x11,
        year: 0x26,
        century: 0x20,
        status_b: STATUS_B_24H,
    }
}

fn date(year: i64, month: u8, day: u8, hour: u8, minute: u8, second: u8) -> Civil {
    Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
    }
}

#[test]
fn bcd_24_hour_with_century() {
    assert_eq!(decode(&bcd()), Ok(date(2026, 11, 28, 13, 5, 9)));
}

#[test]
fn binary_digits() {
    let r = RtcRegisters {
        second: 9,
        minute: 5,
        hour: 13,
        day: 28,
        month: 11,
        year: 26,
        century: 20,
        status_b: STATUS_B_24H | STATUS_B_BINARY,
    };
    assert_eq!(decode(&r), Ok(date(2026, 11, 28, 13, 5, 9)));
}

#[test]
fn twelve_hour_form_midnight_noon_and_afternoon() {
    let at = |hour| {
        decode(&RtcRegisters {
            hour,
            status_b: 0,
            ..bcd()
        })
        .map(|c| c.hour)
    };
    assert_eq!(at(0x12), Ok(0), "12 AM is midnight");
    assert_eq!(at(0x01), Ok(1));
    assert_eq!(at(0x11), Ok(11));
    assert_eq!(at(0x80 | 0x12), Ok(12), "12 PM is noon");
    assert_eq!(at(0x80 | 0x01), Ok(13));
    assert_eq!(at(0x80 | 0x11), Ok(23));
    assert_eq!(
        at(0x00),
        Err(BadRtc::OutOfRange {
            field: "hour (12-hour form)",
            value: 0
        })
    );
    // Binary 12-hour: PM is still bit 7.
    let r = RtcRegisters {
        second: 9,
        minute: 5,
        hour: 0x80 | 7,
        day: 28,
        month: 11,
        year: 26,
        century: 20,
        status_b: STATUS_B_BINARY,
    };
    assert_eq!(decode(&r).map(|c| c.hour), Ok(19));
}

#[test]
fn the_century_register_or_a_guess_without_it() {
    let with = |century, year| {
        decode(&RtcRegisters {
            century,
            year,
            ..bcd()
        })
        .map(|c| c.year)
    };
    assert_eq!(with(0x19, 0x99), Ok(1999));
    assert_eq!(with(0x21, 0x00), Ok(2100));
    // No century register (reads 0 or garbage): 70..99 → 1900s.
    assert_eq!(with(0x00, 0x99), Ok(1999));
    assert_eq!(with(0x00, 0x69), Ok(2069));
    assert_eq!(with(0xff, 0x26), Ok(2026));
}

#[test]
fn readings_that_are_no_date_are_refused() {
    let bad = |r: RtcRegisters| decode(&r).unwrap_err();
    assert_eq!(
        bad(RtcRegisters {
            minute: 0x5a,
            ..bcd()
        }),
        BadRtc::NotBcd {
            field: "minute",
            raw: 0x5a
        }
    );
    assert_eq!(
        bad(RtcRegisters {
            month: 0x13,
            ..bcd()
        }),
        BadRtc::OutOfRange {
            field: "month",
            value: 13
        }
    );
    assert_eq!(
        bad(RtcRegisters {
            month: 0x04,
            day: 0x31,
            ..bcd()
        }),
        BadRtc::OutOfRange {
            field: "day",
            value: 31
        }
    );
    assert_eq!(
        bad(RtcRegisters {
            month: 0x02,
            day: 0x29,
            year: 0x25,
            ..bcd()
        }),
        BadRtc::OutOfRange {
            field: "day",
            value: 29
        }
    );
    assert!(decode(&RtcRegisters {
        month: 0x02,
        day: 0x29,
        year: 0x24,
        ..bcd()
    })
    .is_ok());
    assert_eq!(
        bad(RtcRegisters {
            hour: 0x24,
            ..bcd()
        }),
        BadRtc::OutOfRange {
            field: "hour",
            value: 24
        }
    );
    // The messages say which register and what it held.
    assert_eq!(
        BadRtc::NotBcd {
            field: "minute",
            raw: 0x5a
        }
        .to_string(),
        "its minute register holds 0x5a, which is not BCD"
    );
}

proptest! {
    /// Whatever the registers hold, decoding answers without panicking,
    /// and what it accepts is a valid date.
    #[test]
    fn any_reading_decodes_or_is_refused(raw in any::<[u8; 8]>()) {
        let r = RtcRegisters {
            second: raw[0],
            minute: raw[1],
            hour: raw[2],
            day: raw[3],
            month: raw[4],
            year: raw[5],
            century: raw[6],
            status_b: raw[7],
        };
        if let Ok(c) = decode(&r) {
            prop_assert!(c.is_valid());
            prop_assert!((1900..10_000).contains(&c.year));
        }
    }

    /// Every valid date written in BCD or binary, 24- or 12-hour, reads
    /// back as itself.
    #[test]
    fn written_dates_read_back(
        secs in 0i64..4_102_444_800, // 1970..2100
        binary in any::<bool>(),
        twelve in any::<bool>(),
    ) {
        let c = Civil::from_unix(secs);
        let enc = |v: u8| if binary { v } else { ((v / 10) << 4) | (v % 10) };
        let hour = if twelve {
            let h12 = match c.hour % 12 { 0 => 12, h => h };
            enc(h12) | if c.hour >= 12 { 0x80 } else { 0 }
        } else {
            enc(c.hour)
        };
        let r = RtcRegisters {
            second: enc(c.second),
            minute: enc(c.minute),
            hour,
            day: enc(c.day),
            month: enc(c.month),
            year: enc((c.year % 100) as u8),
            century: enc((c.year / 100) as u8),
            status_b: if binary { STATUS_B_BINARY } else { 0 }
                | if twelve { 0 } else { STATUS_B_24H },
        };
        prop_assert_eq!(decode(&r), Ok(c));
    }
}

#[test]
fn wall_clock_is_the_boot_date_plus_the_ticks() {
    let mut s = Sim::boot(&[1], &[Obj::Notification], &[], false);
    assert_eq!(
        s.call_ok(0, Sysno::WallClock, [0; 6]),
        Err(SysError::NoClock),
        "no date read at boot: no wall clock"
    );
    let boot = date(2026, 11, 28, 13, 5, 9);
    s.k.set_wall_clock(Some(boot));
    let base = boot.to_unix() as u64 * 1000;
    assert_eq!(s.call_ok(0, Sysno::WallClock, [0; 6]), Ok(base));
    for _ in 0..150 {
        s.k.tick();
    }
    assert_eq!(s.call_ok(0, Sysno::WallClock, [0; 6]), Ok(base + 1500));
    // A date before 1970 is no Unix time the call could return.
    s.k.set_wall_clock(Some(date(1969, 12, 31, 23, 59, 59)));
    assert_eq!(
        s.call_ok(0, Sysno::WallClock, [0; 6]),
        Err(SysError::NoClock)
    );
}
