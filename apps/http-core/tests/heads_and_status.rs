//! Response heads with the headers of conditional and range answers, and
//! the status page's counters as text.

use conflux_http::date::HttpDate;
use conflux_http::response::{ContentRange, Head};
use conflux_http::stats::Counters;
use conflux_http::Status;

/// Sun, 06 Nov 1994 08:49:37 GMT
fn example() -> HttpDate {
    HttpDate::from_unix(784_111_777)
}

#[test]
fn a_partial_answer_says_its_range_dates_and_length() {
    let mut h = Head::new(Status::PartialContent, "text/plain", 100, true);
    h.date = Some(HttpDate::from_unix(784_111_787));
    h.last_modified = Some(example());
    h.accept_ranges = true;
    h.content_range = Some(ContentRange::Part {
        first: 0,
        last: 99,
        len: 1000,
    });
    assert_eq!(
        h.render(),
        "HTTP/1.1 206 Partial Content\r\nServer: conflux-httpd\r\nDate: Sun, 06 Nov 1994 08:49:47 GMT\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\nAccept-Ranges: bytes\r\nContent-Range: bytes 0-99/1000\r\nConnection: keep-alive\r\n\r\n"
    );
}

#[test]
fn not_modified_has_no_length_and_416_says_the_size() {
    let mut h = Head::new(Status::NotModified, "text/plain", 1000, true);
    h.date = Some(example());
    let text = h.render();
    assert!(text.starts_with("HTTP/1.1 304 Not Modified\r\n"));
    assert!(text.contains("\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"));
    assert!(!text.contains("Content-Length"), "{text}");
    assert!(!text.contains("Content-Type"), "{text}");
    let mut h = Head::new(Status::RangeNotSatisfiable, "text/html", 10, false);
    h.content_range = Some(ContentRange::Unsatisfied { len: 1000 });
    let text = h.render();
    assert!(text.starts_with("HTTP/1.1 416 Range Not Satisfiable\r\n"));
    assert!(text.contains("\r\nContent-Range: bytes */1000\r\n"));
    assert!(text.contains("\r\nContent-Length: 10\r\n"));
    assert!(!text.contains("Date:"), "no clock, no Date");
}

#[test]
fn the_status_page_lists_every_counter() {
    let mut c = Counters::new();
    c.request(Status::Ok);
    c.request(Status::PartialContent);
    c.request(Status::NotModified);
    c.request(Status::NotFound);
    c.request(Status::RangeNotSatisfiable);
    c.response(Status::Unavailable);
    c.bytes_sent = 12_345;
    c.connections_open = 2;
    c.connections_accepted = 7;
    c.turned_away = 1;
    c.evicted = 3;
    c.cut = 4;
    c.reset_by_peer = 5;
    assert_eq!(
        c.page(Some(example()), 61_999),
        "conflux-httpd status\n\
         date Sun, 06 Nov 1994 08:49:37 GMT\n\
         uptime_secs 61\n\
         requests 5\n\
         responses_1xx 0\n\
         responses_2xx 2\n\
         responses_3xx 1\n\
         responses_4xx 2\n\
         responses_5xx 1\n\
         bytes_sent 12345\n\
         connections_open 2\n\
         connections_accepted 7\n\
         turned_away 1\n\
         evicted 3\n\
         cut 4\n\
         reset_by_peer 5\n"
    );
    assert!(!Counters::new().page(None, 0).contains("date"));
}
