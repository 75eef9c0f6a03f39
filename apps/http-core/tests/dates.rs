//! HTTP-dates: IMF-fixdate written and read back, the two obsolete forms
//! read, two-digit years resolved against the present, and anything else
//! refused without a panic.

use conflux_abi::calendar::Civil;
use conflux_http::date::{DateValue, HttpDate};
use proptest::prelude::*;

/// 1994-11-06 08:49:37 UTC, RFC 9110's example.
const EXAMPLE: u64 = 784_111_777;
/// 2026-11-28 00:00:00 UTC, a "now" for two-digit years.
const NOW: u64 = 1_795_824_000;

fn at(text: &str) -> Option<u64> {
    DateValue::parse(text).map(|d| d.at(HttpDate::from_unix(NOW)).unix())
}

#[test]
fn the_three_forms_of_the_rfc_example() {
    assert_eq!(
        HttpDate::from_unix(EXAMPLE).to_string(),
        "Sun, 06 Nov 1994 08:49:37 GMT"
    );
    assert_eq!(at("Sun, 06 Nov 1994 08:49:37 GMT"), Some(EXAMPLE));
    assert_eq!(at("Sunday, 06-Nov-94 08:49:37 GMT"), Some(EXAMPLE));
    assert_eq!(at("Sun Nov  6 08:49:37 1994"), Some(EXAMPLE));
    assert_eq!(at("Sun Nov 16 08:49:37 1994"), Some(EXAMPLE + 10 * 86_400));
}

#[test]
fn epoch_and_far_future() {
    assert_eq!(
        HttpDate::from_unix(0).to_string(),
        "Thu, 01 Jan 1970 00:00:00 GMT"
    );
    assert_eq!(
        HttpDate::from_unix(u64::MAX).to_string(),
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "clamped to the last date four digits hold"
    );
    assert_eq!(HttpDate::from_unix_ms(1_999).unix(), 1);
    assert_eq!(at("Fri, 31 Dec 9999 23:59:59 GMT"), Some(253_402_300_799));
}

#[test]
fn two_digit_years_more_than_fifty_years_ahead_are_past() {
    // Now is 2026: 76 would be 2076, exactly 50 years ahead: kept.
    let y = |yy: &str| {
        at(&format!("Monday, 01-Jan-{yy} 00:00:00 GMT")).map(|s| Civil::from_unix(s as i64).year)
    };
    assert_eq!(y("26"), Some(2026));
    assert_eq!(y("76"), Some(2076));
    assert_eq!(y("77"), Some(1977));
    assert_eq!(y("99"), Some(1999));
    assert_eq!(y("00"), Some(2000));
}

#[test]
fn malformed_dates_are_refused() {
    for bad in [
        "",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "sun, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 31 Apr 1994 08:49:37 GMT",
        "Sun, 29 Feb 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 08:49:60 GMT",
        "Sun, 06 Nov 1969 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ",
        "Sun, 06 Nov 1994 08-49-37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sund, 06-Nov-94 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sunday, 06 Nov 94 08:49:37 GMT",
        "Sun Nov 6 08:49:37 1994",
        "Sun Nov  6 08:49:37 94",
        "Sun Nov 0 08:49:37 1994",
        "Sun Nov  0 08:49:37 1994",
        "1994-11-06T08:49:37Z",
        "784111777",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{e9}",
        "Sun, 06 Nov 19\u{e9}4 08:49:37 GMT",
    ] {
        assert_eq!(DateValue::parse(bad), None, "{bad:?} was accepted");
    }
    // A weekday that is wrong for the date names the same instant.
    assert_eq!(at("Mon, 06 Nov 1994 08:49:37 GMT"), Some(EXAMPLE));
}

fn asctime(secs: u64) -> String {
    let c = Civil::from_unix(secs as i64);
    let imf = HttpDate::from_unix(secs).to_string();
    format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {:04}",
        &imf[..3],
        &imf[8..11],
        c.day,
        c.hour,
        c.minute,
        c.second,
        c.year
    )
}

fn rfc850(secs: u64) -> String {
    let long = [
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
    ];
    let short = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    let imf = HttpDate::from_unix(secs).to_string();
    let day = long[short.iter().position(|d| *d == &imf[..3]).unwrap()];
    format!(
        "{day}, {}-{}-{} {} GMT",
        &imf[5..7],
        &imf[8..11],
        &imf[14..16],
        &imf[17..25]
    )
}

proptest! {
    /// Every second from 1970 to 9999 written as IMF-fixdate (and as
    /// asctime) reads back as itself.
    #[test]
    fn written_dates_read_back(secs in 0u64..=253_402_300_799) {
        let text = HttpDate::from_unix(secs).to_string();
        prop_assert_eq!(text.len(), 29);
        prop_assert_eq!(at(&text), Some(secs));
        prop_assert_eq!(at(&asctime(secs)), Some(secs));
    }

    /// RFC 850 dates within 49 years of now read back as themselves.
    #[test]
    fn rfc850_dates_near_now_read_back(secs in NOW - 49 * 365 * 86_400..NOW + 49 * 365 * 86_400) {
        prop_assert_eq!(at(&rfc850(secs)), Some(secs));
    }

    /// Arbitrary text never panics, and what is accepted is a valid date.
    #[test]
    fn arbitrary_text_is_refused_or_valid(text in "\\PC{0,40}") {
        if let Some(d) = DateValue::parse(&text) {
            let _ = d.at(HttpDate::from_unix(NOW));
        }
    }

    /// A valid date with one byte changed is either refused or still a
    /// date (never a panic): the parser's fuzz near the grammar.
    #[test]
    fn one_byte_changed(secs in 0u64..4_000_000_000, at_byte in 0usize..29, to in any::<u8>()) {
        let mut bytes = HttpDate::from_unix(secs).to_string().into_bytes();
        bytes[at_byte] = to;
        if let Ok(text) = String::from_utf8(bytes) {
            if let Some(d) = DateValue::parse(&text) {
                prop_assert!(d.at(HttpDate::from_unix(NOW)).unix() <= 253_402_300_799);
            }
        }
    }
}
