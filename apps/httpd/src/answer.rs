//! What httpd answers to one request: the file or a part of it (its head
//! now, its body streamed later by [`crate::out`]), 304 or 416 as the
//! request's conditions decide (`conflux_http::cond`), a directory
//! listing, the status page, or an error page. Only heads, listings and
//! pages pass through httpd's own memory; file bytes never do.
//!
//! Every head carries `Date` when the system has a wall clock. A file's
//! `Last-Modified` is its modification time as the file server reports
//! it (`stat`), but never later than now: a file stamped in the future
//! (a clock that was ahead when it was written) would otherwise stay
//! "not modified" for a client until that future came.

use alloc::string::String;
use alloc::vec::Vec;

use conflux_fs_client::{Error as FsErr, Fs};
use conflux_fs_protocol::ops;
use conflux_fs_protocol::record::{Kind, Stat};
use conflux_fs_protocol::FsError;
use conflux_http::cond::Decision;
use conflux_http::date::HttpDate;
use conflux_http::response::{self, ContentRange, Entry, Head};
use conflux_http::{Method, Request, Status};

use crate::out::{FileBody, Out};

/// The time an answer is made: the wall clock, if the system has one.
#[derive(Clone, Copy)]
pub struct When {
    pub wall: Option<HttpDate>,
}

impl When {
    fn head<'a>(self, status: Status, ctype: &'a str, length: u64, keep: bool) -> Head<'a> {
        let mut h = Head::new(status, ctype, length, keep);
        h.date = self.wall;
        h
    }
}

/// The answer to `req`.
pub fn to(fs: &mut Fs, req: &Request, when: When) -> Out {
    let keep = req.keep_alive;
    let st = match fs.stat(&req.path) {
        Ok(st) => st,
        Err(FsErr::Fs(FsError::NotFound | FsError::NotADirectory | FsError::NameTooLong)) => {
            return error(
                req.method,
                Status::NotFound,
                &alloc::format!("{}: no such file", req.path),
                keep,
                when,
            )
        }
        Err(e) => return server_error(req, "stat", e, when),
    };
    if st.kind == Kind::Directory {
        return listing(fs, req, when);
    }
    if st.kind != Kind::File {
        return error(
            req.method,
            Status::NotFound,
            &alloc::format!("{}: not a regular file", req.path),
            keep,
            when,
        );
    }
    file(fs, req, &st, when)
}

/// A regular file: whole, a part, 304 or 416.
fn file(fs: &mut Fs, req: &Request, st: &Stat, when: When) -> Out {
    let keep = req.keep_alive;
    let mtime = HttpDate::from_unix(u64::from(st.mtime));
    let modified = when.wall.map_or(mtime, |now| mtime.min(now));
    // Without a wall clock no date is "after now", and a file's date is
    // taken as it is.
    let now = when.wall.unwrap_or(HttpDate::from_unix(u64::MAX));
    let decision = req.conditions.decide(req.method, modified, st.size, now);
    let ctype = response::content_type(&req.path);
    let (status, first, len) = match decision {
        Decision::NotModified => {
            let mut h = when.head(Status::NotModified, ctype, 0, keep);
            h.last_modified = Some(modified);
            return Out::text(Status::NotModified, h.render().into_bytes(), keep);
        }
        Decision::Unsatisfiable => {
            let detail = alloc::format!(
                "{}: no range asked for lies within the file ({} bytes)",
                req.path,
                st.size
            );
            let body = response::error_page(Status::RangeNotSatisfiable, &detail);
            let mut h = when.head(
                Status::RangeNotSatisfiable,
                "text/html; charset=utf-8",
                body.len() as u64,
                keep,
            );
            h.content_range = Some(ContentRange::Unsatisfied { len: st.size });
            let mut bytes = h.render().into_bytes();
            bytes.extend_from_slice(body.as_bytes());
            return Out::text(Status::RangeNotSatisfiable, bytes, keep);
        }
        Decision::Whole => (Status::Ok, 0, st.size),
        Decision::Part { first, last } => (Status::PartialContent, first, last - first + 1),
    };
    let mut h = when.head(status, ctype, len, keep);
    h.last_modified = Some(modified);
    h.accept_ranges = true;
    if status == Status::PartialContent {
        h.content_range = Some(ContentRange::Part {
            first,
            last: first + len - 1,
            len: st.size,
        });
    }
    let head = h.render().into_bytes();
    if req.method == Method::Head || len == 0 {
        return Out::text(status, head, keep);
    }
    match fs.open(&req.path, ops::O_RDONLY, 0) {
        Ok(fd) => Out::file(status, head, FileBody::new(fd, first, len), keep),
        Err(e) => server_error(req, "open", e, when),
    }
}

/// A directory: `/dir` without the slash lists it too.
fn listing(fs: &mut Fs, req: &Request, when: When) -> Out {
    let (entries, cut) = match fs.list_long(&req.path) {
        Ok(listed) => listed,
        Err(e) => return server_error(req, "list", e, when),
    };
    let entries: Vec<Entry> = entries
        .iter()
        .map(|(d, st)| Entry {
            name: String::from_utf8_lossy(d.name()).into_owned(),
            is_dir: st.kind == Kind::Directory,
            size: st.size,
        })
        .collect();
    let mut body = response::listing(&req.path, &entries);
    if cut {
        body.push_str("<p>(listing cut short: the directory has more entries)</p>\n");
    }
    page(
        req.method,
        Status::Ok,
        "text/html; charset=utf-8",
        body,
        req.keep_alive,
        when,
    )
}

/// The status page, `text`.
pub fn status_page(req: &Request, text: String, when: When) -> Out {
    page(
        req.method,
        Status::Ok,
        "text/plain; charset=utf-8",
        text,
        req.keep_alive,
        when,
    )
}

/// An error page; the connection closes after it unless `keep`.
pub fn error(method: Method, status: Status, detail: &str, keep: bool, when: When) -> Out {
    page(
        method,
        status,
        "text/html; charset=utf-8",
        response::error_page(status, detail),
        keep,
        when,
    )
}

fn server_error(req: &Request, what: &str, e: FsErr, when: When) -> Out {
    conflux_userlib::println!(
        "{} {}: the file server failed to {what} it: {e}",
        method_name(req.method),
        req.path
    );
    error(
        req.method,
        Status::InternalError,
        &alloc::format!("{}: the file server failed to {what} it: {e}", req.path),
        false,
        when,
    )
}

fn page(method: Method, status: Status, ctype: &str, body: String, keep: bool, when: When) -> Out {
    let mut bytes = when
        .head(status, ctype, body.len() as u64, keep)
        .render()
        .into_bytes();
    if method == Method::Get {
        bytes.extend_from_slice(body.as_bytes());
    }
    Out::text(status, bytes, keep)
}

pub fn method_name(m: Method) -> &'static str {
    match m {
        Method::Get => "GET",
        Method::Head => "HEAD",
    }
}
