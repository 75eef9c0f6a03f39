//! The Range header: what parses, what is ignored, what each form
//! selects from a file, and the conditional rules around it (304, 206,
//! 416, 200) as a request head carries them.

use conflux_http::cond::Decision;
use conflux_http::date::HttpDate;
use conflux_http::range::{RangeSet, Selected, Spec, MAX_RANGES};
use conflux_http::{parse, Method, Parsed, Request};
use proptest::prelude::*;

fn select(header: &str, len: u64) -> Option<Selected> {
    RangeSet::parse(header).map(|r| r.select(len))
}

fn part(first: u64, last: u64) -> Option<Selected> {
    Some(Selected::Part { first, last })
}

#[test]
fn the_three_forms() {
    assert_eq!(select("bytes=0-99", 1000), part(0, 99));
    assert_eq!(select("bytes=100-", 1000), part(100, 999));
    assert_eq!(select("bytes=-100", 1000), part(900, 999));
    assert_eq!(select("bytes=999-999", 1000), part(999, 999));
    // A last past the end, or a suffix longer than the file, is cut to it.
    assert_eq!(select("bytes=500-5000", 1000), part(500, 999));
    assert_eq!(select("bytes=-5000", 1000), part(0, 999));
    // The unit in any case; whitespace and empty elements in the list.
    assert_eq!(select("Bytes=0-0", 10), part(0, 0));
    assert_eq!(select("bytes= , 0-0 ,", 10), part(0, 0));
}

#[test]
fn nothing_satisfiable_is_416() {
    assert_eq!(select("bytes=1000-", 1000), Some(Selected::Unsatisfiable));
    assert_eq!(
        select("bytes=1000-2000", 1000),
        Some(Selected::Unsatisfiable)
    );
    assert_eq!(select("bytes=-0", 1000), Some(Selected::Unsatisfiable));
    assert_eq!(
        select("bytes=99999999999999999999999-", 1000),
        Some(Selected::Unsatisfiable),
        "a number past 64 bits starts past any end"
    );
    // One satisfiable among unsatisfiable ones is that part.
    assert_eq!(select("bytes=2000-,5-6", 1000), part(5, 6));
}

#[test]
fn several_ranges_get_the_whole_file_and_empty_files_go_whole() {
    assert_eq!(select("bytes=0-1,5-6", 1000), Some(Selected::Whole));
    assert_eq!(select("bytes=0-1,0-1", 1000), Some(Selected::Whole));
    assert_eq!(select("bytes=0-99", 0), Some(Selected::Whole));
    assert_eq!(select("bytes=-5", 0), Some(Selected::Whole));
}

#[test]
fn headers_that_are_ignored() {
    for bad in [
        "",
        "bytes",
        "bytes=",
        "bytes=,",
        "items=0-1",
        "bytes=1-0",
        "bytes=a-b",
        "bytes=0-1-2",
        "bytes=-",
        "bytes=--1",
        "bytes=+1-2",
        "bytes=0x10-20",
        "bytes=1 -2",
        "bytes=0-1;x",
    ] {
        assert_eq!(RangeSet::parse(bad), None, "{bad:?} was accepted");
    }
    let many = format!("bytes={}", vec!["0-0"; MAX_RANGES].join(","));
    assert_eq!(RangeSet::parse(&many).unwrap().specs().len(), MAX_RANGES);
    let too_many = format!("bytes={}", vec!["0-0"; MAX_RANGES + 1].join(","));
    assert_eq!(RangeSet::parse(&too_many), None, "past the limit: ignored");
}

fn request(extra: &str) -> Request {
    let head = format!("GET /f HTTP/1.1\r\nHost: x\r\n{extra}\r\n");
    match parse(head.as_bytes()) {
        Parsed::Complete { request, .. } => request,
        other => panic!("{extra:?}: {other:?}"),
    }
}

const MODIFIED: u64 = 784_111_777; // Sun, 06 Nov 1994 08:49:37 GMT
const NOW: u64 = 1_795_824_000; // 2026-11-28

fn decide(extra: &str, method: Method) -> Decision {
    request(extra).conditions.decide(
        method,
        HttpDate::from_unix(MODIFIED),
        1000,
        HttpDate::from_unix(NOW),
    )
}

#[test]
fn if_modified_since_in_each_form() {
    let get = |h: &str| decide(h, Method::Get);
    assert_eq!(get(""), Decision::Whole);
    for same in [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Mon, 07 Nov 1994 00:00:00 GMT",
    ] {
        let h = format!("If-Modified-Since: {same}\r\n");
        assert_eq!(get(&h), Decision::NotModified, "{same}");
        assert_eq!(decide(&h, Method::Head), Decision::NotModified, "{same}");
    }
    // Modified after the date: the file.
    assert_eq!(
        get("If-Modified-Since: Sun, 06 Nov 1994 08:49:36 GMT\r\n"),
        Decision::Whole
    );
    // Ignored: not a date, two of them, a date after now.
    assert_eq!(get("If-Modified-Since: yesterday\r\n"), Decision::Whole);
    assert_eq!(
        get("If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
        Decision::Whole
    );
    assert_eq!(
        get("If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT\r\n"),
        Decision::Whole
    );
}

#[test]
fn if_none_match_overrides_if_modified_since() {
    let get = |h: &str| decide(h, Method::Get);
    assert_eq!(get("If-None-Match: *\r\n"), Decision::NotModified);
    assert_eq!(
        get("If-None-Match: \"abc\"\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
        Decision::Whole,
        "a tag httpd never sent does not match, and If-Modified-Since is ignored"
    );
    assert_eq!(
        get("If-None-Match: \"a\"\r\nIf-None-Match: *\r\n"),
        Decision::NotModified
    );
}

#[test]
fn ranges_apply_to_get_only_and_after_the_conditions() {
    assert_eq!(
        decide("Range: bytes=0-99\r\n", Method::Get),
        Decision::Part { first: 0, last: 99 }
    );
    assert_eq!(
        decide("Range: bytes=0-99\r\n", Method::Head),
        Decision::Whole
    );
    assert_eq!(
        decide("Range: bytes=1000-\r\n", Method::Get),
        Decision::Unsatisfiable
    );
    assert_eq!(
        decide(
            "Range: bytes=0-99\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n",
            Method::Get
        ),
        Decision::NotModified
    );
    assert_eq!(
        decide("Range: bytes=0-99\r\nRange: bytes=0-9\r\n", Method::Get),
        Decision::Whole,
        "two Range headers: ignored"
    );
}

#[test]
fn if_range_with_the_last_modified_date_or_not() {
    let get = |h: &str| decide(h, Method::Get);
    assert_eq!(
        get("Range: bytes=0-9\r\nIf-Range: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
        Decision::Part { first: 0, last: 9 }
    );
    assert_eq!(
        get("Range: bytes=0-9\r\nIf-Range: Sun, 06 Nov 1994 08:49:38 GMT\r\n"),
        Decision::Whole
    );
    assert_eq!(
        get("Range: bytes=0-9\r\nIf-Range: \"tag\"\r\n"),
        Decision::Whole
    );
    // Modified this very second: the date is no strong validator.
    let r = request("Range: bytes=0-9\r\nIf-Range: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
    let at = HttpDate::from_unix(MODIFIED);
    assert_eq!(
        r.conditions.decide(Method::Get, at, 1000, at),
        Decision::Whole
    );
}

#[test]
fn the_status_page_target() {
    assert!(!request("").status_page);
    let head = b"GET /?status HTTP/1.1\r\nHost: x\r\n\r\n";
    let Parsed::Complete { request, .. } = parse(head) else {
        panic!("the status page's request parses");
    };
    assert!(request.status_page);
    assert_eq!(request.path, "/");
    let head = b"GET /?status=1 HTTP/1.1\r\nHost: x\r\n\r\n";
    let Parsed::Complete { request, .. } = parse(head) else {
        panic!("parses");
    };
    assert!(!request.status_page, "only the exact target");
}

fn spec_text(s: &Spec) -> String {
    match s {
        Spec::From {
            first,
            last: Some(l),
        } => format!("{first}-{l}"),
        Spec::From { first, last: None } => format!("{first}-"),
        Spec::Suffix(n) => format!("-{n}"),
    }
}

fn any_spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        (0u64..5000, 0u64..5000).prop_map(|(a, n)| Spec::From {
            first: a,
            last: Some(a + n)
        }),
        (0u64..5000).prop_map(|a| Spec::From {
            first: a,
            last: None
        }),
        (0u64..5000).prop_map(Spec::Suffix),
    ]
}

proptest! {
    /// Any text: parsed or ignored, never a panic; what parses selects
    /// bytes inside the file.
    #[test]
    fn arbitrary_headers(text in "\\PC{0,60}", len in 0u64..10_000) {
        if let Some(r) = RangeSet::parse(&text) {
            if let Selected::Part { first, last } = r.select(len) {
                prop_assert!(first <= last && last < len);
            }
        }
    }

    /// Text near the grammar (digits, dashes, commas, spaces).
    #[test]
    fn near_the_grammar(tail in "[0-9, \\-]{0,30}", len in 0u64..2_000) {
        if let Some(r) = RangeSet::parse(&format!("bytes={tail}")) {
            match r.select(len) {
                Selected::Part { first, last } => prop_assert!(first <= last && last < len),
                Selected::Unsatisfiable => prop_assert!(len > 0),
                Selected::Whole => {}
            }
        }
    }

    /// Written range sets read back as themselves, and one spec selects
    /// exactly the bytes the RFC says.
    #[test]
    fn written_sets_read_back(specs in prop::collection::vec(any_spec(), 1..8), len in 1u64..6000) {
        let text = format!("bytes={}", specs.iter().map(spec_text).collect::<Vec<_>>().join(", "));
        let parsed = RangeSet::parse(&text).expect("a written set parses");
        prop_assert_eq!(parsed.specs(), specs.as_slice());
        if let [one] = specs.as_slice() {
            let want = match *one {
                Spec::From { first, .. } if first >= len => Selected::Unsatisfiable,
                Spec::From { first, last } => Selected::Part { first, last: last.unwrap_or(len - 1).min(len - 1) },
                Spec::Suffix(0) => Selected::Unsatisfiable,
                Spec::Suffix(n) => Selected::Part { first: len.saturating_sub(n), last: len - 1 },
            };
            prop_assert_eq!(parsed.select(len), want);
        }
    }
}
