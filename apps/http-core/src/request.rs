//! Parsing a request head: the one place untrusted request bytes are read.
//!
//! [`parse`] takes what has arrived on a connection and answers that the
//! head is complete (with the validated [`Request`] and how many bytes it
//! took), that more is needed, or that the request is refused, with the
//! status to answer and a sentence for the error page. The limits are
//! checked here: a head longer than [`HEAD_MAX`] or with more than
//! [`HEADERS_MAX`] lines is refused with 431 (so a client cannot make the
//! server buffer without end), methods other than GET and HEAD with 405,
//! a body (which neither method has) with 400, so a request cannot smuggle
//! a second one inside a body httpd would not read.

use alloc::string::String;

use crate::cond::{Conditions, Seen};
use crate::path;
use crate::stats::STATUS_TARGET;
use crate::status::Status;

/// The longest request head (request line and headers) accepted.
pub const HEAD_MAX: usize = 8 * 1024;
/// The most header lines accepted.
pub const HEADERS_MAX: usize = 32;

/// The methods httpd serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    /// As GET, without the body.
    Head,
}

/// A request head that passed every check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub method: Method,
    /// Absolute, normalised, without `..` ([`path::resolve`]).
    pub path: String,
    /// Whether the connection stays open after the answer.
    pub keep_alive: bool,
    /// The target is the status page ([`crate::stats::STATUS_TARGET`]).
    pub status_page: bool,
    /// Conditional and range headers ([`crate::cond`]).
    pub conditions: Conditions,
}

/// What the bytes received so far amount to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// A whole head: the request, and the bytes it took.
    Complete { request: Request, consumed: usize },
    /// The head is not complete yet (and still within the limits).
    Partial,
    /// Refused: answer `status` with `why` and close the connection.
    Refused { status: Status, why: String },
}

fn refuse(status: Status, why: &str) -> Parsed {
    Parsed::Refused {
        status,
        why: String::from(why),
    }
}

/// Parses the head at the start of `buf`.
pub fn parse(buf: &[u8]) -> Parsed {
    let mut headers = [httparse::EMPTY_HEADER; HEADERS_MAX];
    let mut req = httparse::Request::new(&mut headers);
    let consumed = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) if n <= HEAD_MAX => n,
        Ok(httparse::Status::Partial) if buf.len() < HEAD_MAX => return Parsed::Partial,
        Ok(_) => {
            return refuse(
                Status::HeaderTooLarge,
                "the request head (request line and headers) is longer than 8 KiB",
            )
        }
        Err(httparse::Error::TooManyHeaders) => {
            return refuse(
                Status::HeaderTooLarge,
                "the request has more than 32 header lines",
            )
        }
        Err(httparse::Error::Version) => {
            return refuse(
                Status::VersionNotSupported,
                "only HTTP/1.0 and HTTP/1.1 are served",
            )
        }
        Err(e) => {
            return refuse(
                Status::BadRequest,
                &alloc::format!("malformed request: {e}"),
            )
        }
    };
    let (Some(method), Some(target), Some(version)) = (req.method, req.path, req.version) else {
        return refuse(Status::BadRequest, "the request line is incomplete");
    };
    let method = match method {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        other => {
            return refuse(
                Status::MethodNotAllowed,
                &alloc::format!("method {other} is not served: only GET and HEAD are"),
            )
        }
    };
    let mut keep_alive = version == 1;
    let mut host = false;
    let mut seen = Seen::default();
    for h in req.headers.iter() {
        let value = core::str::from_utf8(h.value).unwrap_or("").trim();
        seen.header(h.name, value);
        if h.name.eq_ignore_ascii_case("content-length") && value != "0" {
            return refuse(
                Status::BadRequest,
                "GET and HEAD requests carry no body, but this one has a Content-Length",
            );
        }
        if h.name.eq_ignore_ascii_case("transfer-encoding") {
            return refuse(
                Status::BadRequest,
                "GET and HEAD requests carry no body, but this one has a Transfer-Encoding",
            );
        }
        if h.name.eq_ignore_ascii_case("host") {
            host = true;
        }
        if h.name.eq_ignore_ascii_case("connection") {
            for token in value.split(',').map(str::trim) {
                if token.eq_ignore_ascii_case("close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case("keep-alive") {
                    keep_alive = true;
                }
            }
        }
    }
    if version == 1 && !host {
        return refuse(
            Status::BadRequest,
            "an HTTP/1.1 request needs a Host header",
        );
    }
    match path::resolve(target) {
        Ok(path) => Parsed::Complete {
            request: Request {
                method,
                path,
                keep_alive,
                status_page: target == STATUS_TARGET,
                conditions: seen.finish(),
            },
            consumed,
        },
        Err(bad) => refuse(Status::BadRequest, bad.why()),
    }
}
