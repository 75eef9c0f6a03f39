//! What httpd writes back: response heads, error pages, directory listings.
//!
//! Bodies are built here as text; file bodies are not (httpd sends those
//! from the file server's data without copying them through here). Names
//! from the disk are escaped before they enter HTML, so a file called
//! `<script>` lists as text.

use alloc::string::String;
use core::fmt::Write;

use crate::date::HttpDate;
use crate::path::encode_segment;
use crate::status::Status;

/// The server's name in every response.
pub const SERVER: &str = "conflux-httpd";

/// A response head: status line and headers, ending with the blank line
/// (no `Date`, `Last-Modified` or `Content-Range`: see [`Head`]).
pub fn head(status: Status, content_type: &str, length: u64, keep_alive: bool) -> String {
    Head::new(status, content_type, length, keep_alive).render()
}

/// What `Content-Range` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentRange {
    /// `bytes first-last/len`, with a 206.
    Part { first: u64, last: u64, len: u64 },
    /// `bytes */len`, with a 416.
    Unsatisfied { len: u64 },
}

/// A response head with every header httpd may send. A 304 carries no
/// `Content-Type` or `Content-Length` (it has no body, and its headers
/// update a cache's stored ones: a length there would have to be the
/// 200's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head<'a> {
    pub status: Status,
    pub content_type: &'a str,
    /// The body's length (of the part, for a 206).
    pub length: u64,
    pub keep_alive: bool,
    /// When the answer is made; `None` without a wall clock.
    pub date: Option<HttpDate>,
    pub last_modified: Option<HttpDate>,
    pub content_range: Option<ContentRange>,
    /// `Accept-Ranges: bytes`: the resource is a file ranges can name.
    pub accept_ranges: bool,
}

impl<'a> Head<'a> {
    pub fn new(status: Status, content_type: &'a str, length: u64, keep_alive: bool) -> Head<'a> {
        Head {
            status,
            content_type,
            length,
            keep_alive,
            date: None,
            last_modified: None,
            content_range: None,
            accept_ranges: false,
        }
    }

    /// The status line and headers, then the blank line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "HTTP/1.1 {} {}\r\nServer: {SERVER}\r\n",
            self.status.code(),
            self.status.reason(),
        );
        if let Some(date) = self.date {
            let _ = write!(out, "Date: {date}\r\n");
        }
        if !self.status.bodiless() {
            let _ = write!(
                out,
                "Content-Type: {}\r\nContent-Length: {}\r\n",
                self.content_type, self.length
            );
        }
        if let Some(modified) = self.last_modified {
            let _ = write!(out, "Last-Modified: {modified}\r\n");
        }
        if self.accept_ranges {
            out.push_str("Accept-Ranges: bytes\r\n");
        }
        match self.content_range {
            Some(ContentRange::Part { first, last, len }) => {
                let _ = write!(out, "Content-Range: bytes {first}-{last}/{len}\r\n");
            }
            Some(ContentRange::Unsatisfied { len }) => {
                let _ = write!(out, "Content-Range: bytes */{len}\r\n");
            }
            None => {}
        }
        let _ = write!(
            out,
            "Connection: {}\r\n",
            if self.keep_alive {
                "keep-alive"
            } else {
                "close"
            }
        );
        if self.status == Status::MethodNotAllowed {
            out.push_str("Allow: GET, HEAD\r\n");
        }
        // A 503 is httpd being full for a moment (`seats`): say when to come
        // back rather than leave a client to guess.
        if self.status == Status::Unavailable {
            out.push_str("Retry-After: 1\r\n");
        }
        out.push_str("\r\n");
        out
    }
}

/// The page for an error: a short HTML document that says what went
/// wrong (`detail`, escaped).
pub fn error_page(status: Status, detail: &str) -> String {
    let title = alloc::format!("{} {}", status.code(), status.reason());
    alloc::format!(
        "<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body><h1>{title}</h1>\n<p>{}</p></body></html>\n",
        escape(detail)
    )
}

/// The Content-Type for a file, by its name's extension.
pub fn content_type(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((_, ext)) = name.rsplit_once('.') else {
        // README, LICENSE, Makefile: text by convention.
        return "text/plain; charset=utf-8";
    };
    match ext.to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "txt" | "md" | "rs" | "toml" | "c" | "h" => "text/plain; charset=utf-8",
        "css" => "text/css",
        "js" => "text/javascript",
        "json" => "application/json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// One directory entry for a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub is_dir: bool,
    pub size: u64,
}

/// An HTML listing of directory `path` (absolute, normalised).
pub fn listing(path: &str, entries: &[Entry]) -> String {
    let base = if path == "/" { "" } else { path };
    let mut out = alloc::format!(
        "<!DOCTYPE html>\n<html><head><title>Index of {0}</title></head>\n<body><h1>Index of {0}</h1>\n<ul>\n",
        escape(path)
    );
    if path != "/" {
        out.push_str("<li><a href=\"../\">../</a></li>\n");
    }
    for e in entries {
        let slash = if e.is_dir { "/" } else { "" };
        let href = alloc::format!("{}/{}{slash}", href_base(base), encode_segment(&e.name));
        let _ = writeln!(
            out,
            "<li><a href=\"{href}\">{}{slash}</a> {}</li>",
            escape(&e.name),
            if e.is_dir {
                String::from("-")
            } else {
                alloc::format!("{} bytes", e.size)
            }
        );
    }
    out.push_str("</ul></body></html>\n");
    out
}

/// `base` with each segment percent-encoded, for an href.
fn href_base(base: &str) -> String {
    let mut out = String::new();
    for segment in base.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        out.push_str(&encode_segment(segment));
    }
    out
}

/// `text` safe inside HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
