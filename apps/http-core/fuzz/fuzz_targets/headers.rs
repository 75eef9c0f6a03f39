//! Fuzz target: arbitrary text as a `Range` value and as an HTTP-date.
//!
//! Neither parser may panic; a range set must select bytes inside the
//! file or nothing; a date must resolve (against several "now"s) to an
//! instant an IMF-fixdate can write, and that text must read back as the
//! same instant.
#![no_main]

use conflux_http::date::{DateValue, HttpDate};
use conflux_http::range::{RangeSet, Selected};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    if let Some(set) = RangeSet::parse(text) {
        for len in [0, 1, 2, 100, 4096, u64::MAX] {
            if let Selected::Part { first, last } = set.select(len) {
                assert!(first <= last && last < len);
            }
        }
    }
    if let Some(date) = DateValue::parse(text) {
        for now in [0, 784_111_777, 4_102_444_800] {
            let at = date.at(HttpDate::from_unix(now));
            let written = at.to_string();
            let again = DateValue::parse(&written).expect("an IMF-fixdate httpd wrote parses");
            assert_eq!(again.at(HttpDate::from_unix(now)), at);
        }
    }
});
