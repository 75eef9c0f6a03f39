//! What httpd writes back: response heads, error pages, directory listings.
//!
//! Bodies are built here as text; file bodies are not (httpd sends those
//! from the file server's data without copying them through here). Names
//! from the disk are escaped before they enter HTML, so a file called
//! `<script>` lists as text.

use alloc::string::String;
use core::fmt::Write;

use crate::path::encode_segment;
use crate::status::Status;

/// The server's name in every response.
pub const SERVER: &str = "conflux-httpd";

/// A response head: status line and headers, ending with the blank line.
pub fn head(status: Status, content_type: &str, length: u64, keep_alive: bool) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "HTTP/1.1 {} {}\r\nServer: {SERVER}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\nConnection: {}\r\n",
        status.code(),
        status.reason(),
        if keep_alive { "keep-alive" } else { "close" }
    );
    if status == Status::MethodNotAllowed {
        out.push_str("Allow: GET, HEAD\r\n");
    }
    // A 503 is httpd being full for a moment (`seats`): say when to come
    // back rather than leave a client to guess.
    if status == Status::Unavailable {
        out.push_str("Retry-After: 1\r\n");
    }
    out.push_str("\r\n");
    out
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
