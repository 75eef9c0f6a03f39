//! Paths made safe, and what the server writes back.

use conflux_http::path::{encode_segment, resolve, BadPath};
use conflux_http::response::{content_type, error_page, head, listing, Entry};
use conflux_http::Status;

#[test]
fn paths_are_normalised_and_cannot_climb_out() {
    assert_eq!(resolve("/").unwrap(), "/");
    assert_eq!(resolve("//a/./b//c/../d?x=1#f").unwrap(), "/a/b/d");
    assert_eq!(resolve("/a%20b/%2e%2e/c").unwrap(), "/c");
    assert_eq!(resolve("/a/..").unwrap(), "/");
    assert_eq!(resolve("/.."), Err(BadPath::Escapes));
    assert_eq!(resolve("/a/%2e%2e/%2E%2E"), Err(BadPath::Escapes));
    assert_eq!(resolve("/%zz"), Err(BadPath::BadEscape));
    assert_eq!(resolve("/%4"), Err(BadPath::BadEscape));
    assert_eq!(resolve("/a%00"), Err(BadPath::BadBytes));
    assert_eq!(resolve("/%ff"), Err(BadPath::BadBytes));
    assert_eq!(resolve("*"), Err(BadPath::NotAbsolute));
    assert_eq!(encode_segment("a b/<c>"), "a%20b%2F%3Cc%3E");
}

#[test]
fn heads_say_length_and_connection() {
    let h = head(Status::Ok, "text/plain", 277, true);
    assert!(h.starts_with("HTTP/1.1 200 OK\r\n"));
    assert!(h.contains("\r\nContent-Length: 277\r\n"));
    assert!(h.contains("\r\nConnection: keep-alive\r\n"));
    assert!(h.ends_with("\r\n\r\n"));
    let h = head(Status::MethodNotAllowed, "text/html", 10, false);
    assert!(h.contains("\r\nAllow: GET, HEAD\r\n"));
    assert!(h.contains("\r\nConnection: close\r\n"));
    assert!(!h.contains("Retry-After"));
    let h = head(Status::Unavailable, "text/html", 10, false);
    assert!(h.starts_with("HTTP/1.1 503 Service Unavailable\r\n"));
    assert!(
        h.contains("\r\nRetry-After: 1\r\n"),
        "a 503 says when to come back"
    );
}

#[test]
fn pages_escape_what_they_quote() {
    let page = error_page(Status::NotFound, "/<script>: no such file");
    assert!(page.contains("<h1>404 Not Found</h1>"));
    assert!(page.contains("/&lt;script&gt;: no such file"));
    let l = listing(
        "/d ir",
        &[
            Entry {
                name: "a&b".into(),
                is_dir: false,
                size: 3,
            },
            Entry {
                name: "sub".into(),
                is_dir: true,
                size: 0,
            },
        ],
    );
    assert!(l.contains("<h1>Index of /d ir</h1>"));
    assert!(l.contains("<a href=\"../\">../</a>"));
    assert!(l.contains("<a href=\"/d%20ir/a%26b\">a&amp;b</a> 3 bytes"));
    assert!(l.contains("<a href=\"/d%20ir/sub/\">sub/</a>"));
    assert!(!listing("/", &[]).contains("../"));
}

#[test]
fn content_types_follow_the_extension() {
    assert_eq!(content_type("/README"), "text/plain; charset=utf-8");
    assert_eq!(content_type("/a/index.HTML"), "text/html; charset=utf-8");
    assert_eq!(content_type("/x.bin"), "application/octet-stream");
    assert_eq!(content_type("/.hidden/x.svg"), "image/svg+xml");
}
