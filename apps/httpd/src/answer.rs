//! What httpd answers to one request: the file (its head now, its body
//! streamed later by [`crate::out`]), a directory listing, or an error
//! page. Only heads, listings and error pages pass through httpd's own
//! memory; file bytes never do.

use alloc::string::String;
use alloc::vec::Vec;

use conflux_fs_client::{Error as FsErr, Fs};
use conflux_fs_protocol::ops;
use conflux_fs_protocol::record::Kind;
use conflux_fs_protocol::FsError;
use conflux_http::response::{self, Entry};
use conflux_http::{Method, Request, Status};

use crate::out::{FileBody, Out};

/// The answer to `req`.
pub fn to(fs: &mut Fs, req: &Request) -> Out {
    let keep = req.keep_alive;
    let st = match fs.stat(&req.path) {
        Ok(st) => st,
        Err(FsErr::Fs(FsError::NotFound | FsError::NotADirectory | FsError::NameTooLong)) => {
            return error(
                req.method,
                Status::NotFound,
                &alloc::format!("{}: no such file", req.path),
                keep,
            )
        }
        Err(e) => return server_error(req, "stat", e),
    };
    if st.kind == Kind::Directory {
        return listing(fs, req);
    }
    if st.kind != Kind::File {
        return error(
            req.method,
            Status::NotFound,
            &alloc::format!("{}: not a regular file", req.path),
            keep,
        );
    }
    let head = response::head(Status::Ok, response::content_type(&req.path), st.size, keep);
    if req.method == Method::Head || st.size == 0 {
        return Out::text(head.into_bytes(), keep);
    }
    match fs.open(&req.path, ops::O_RDONLY, 0) {
        Ok(fd) => Out::file(head.into_bytes(), FileBody::new(fd, st.size), keep),
        Err(e) => server_error(req, "open", e),
    }
}

/// A directory: `/dir` without the slash lists it too.
fn listing(fs: &mut Fs, req: &Request) -> Out {
    let (entries, cut) = match fs.list_long(&req.path) {
        Ok(listed) => listed,
        Err(e) => return server_error(req, "list", e),
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
    )
}

/// An error page; the connection closes after it unless `keep`.
pub fn error(method: Method, status: Status, detail: &str, keep: bool) -> Out {
    page(
        method,
        status,
        "text/html; charset=utf-8",
        response::error_page(status, detail),
        keep,
    )
}

fn server_error(req: &Request, what: &str, e: FsErr) -> Out {
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
    )
}

fn page(method: Method, status: Status, ctype: &str, body: String, keep: bool) -> Out {
    let mut bytes = response::head(status, ctype, body.len() as u64, keep).into_bytes();
    if method == Method::Get {
        bytes.extend_from_slice(body.as_bytes());
    }
    Out::text(bytes, keep)
}

pub fn method_name(m: Method) -> &'static str {
    match m {
        Method::Get => "GET",
        Method::Head => "HEAD",
    }
}
