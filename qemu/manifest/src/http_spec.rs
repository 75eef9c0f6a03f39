//! `[test] http = [...]`: exchanges the runner performs against the
//! system's forwarded ports once the console shows each one's `after`.
//!
//! An entry is one of four kinds, told apart by its keys:
//!
//! - a fetch, `get = "/path"` or `head = "/path"`, with `paths` (more
//!   paths to cycle through), `status` (default 200), `body` (required:
//!   "generated", "folder", "empty" or "none"), `clients` (default 1),
//!   `requests` (per client, default 1) and `may_cut_secs` (answers may be
//!   cut short — a reset, a close, or this many seconds without a byte —
//!   if every byte that came is right: a server restarted mid-transfer);
//! - a raw exchange, `send = "bytes"` or `send_header_bytes = N`, with
//!   `expect_status`, and `close = true` (a truncated request: shut the
//!   sending side, the server must close) or `idle_secs = N` (stay quiet;
//!   the server must answer or close within N s);
//! - a hold, `hold = "/path"`: `peers` connections (default 1) each GET
//!   the path, read the answer's head and stop reading for `hold_secs`;
//!   at least `served` (default 0) must be served 200, the rest 503;
//!   with `cut = true` every answer served must have been cut by then; a
//!   `probe = "/path"` (with `body`, and `probe_secs`, default 10) is a
//!   normal client's GET that must be served 200 meanwhile;
//! - a conditional exchange, `conditional = "/path"` with `body`
//!   ("generated" or "folder"): on one connection, ranges (206, 416, two
//!   ranges answered whole), `If-Modified-Since` in the three date forms
//!   (304, and 200 for a date before the file's), `Date` and
//!   `Last-Modified` on every answer, and the status page's counters
//!   before and after, which must have moved by exactly the requests
//!   made (so no other exchange may run beside it); then the same with
//!   `curl` where it is installed.
//! - a crowd, `crowd = "/path"`: `clients` connections opened at once,
//!   each GETs the path (`body` checks a 200), then a normal client's GET
//!   must be served within `probe_secs` (default 10).
//!
//! Every entry has `port` (a forwarded host port of the system), `after`
//! (console text), and optionally `background` and `deadline_secs`.
//! Single values are read here ([`read`]); the rules that need the whole
//! system (ports, generated paths, the folder disk) are in [`check`].

use crate::error::{Error, ExchangeRule};
use crate::limits::*;
use crate::model::{
    BodyCheck, Conditional, Crowd, DiskImage, Fetch, Hold, HoldProbe, HttpExchange, HttpKind,
    Manifest, Method, Protocol, Raw, RawSend, Then,
};
use crate::rules::{self, Unit};
use crate::strict::Fields;
use crate::suggest::{Suggestion, Words};

/// Keys allowed in one `test.http` entry.
const KEYS: &[&str] = &[
    "port",
    "after",
    "background",
    "deadline_secs",
    "get",
    "head",
    "paths",
    "status",
    "body",
    "clients",
    "requests",
    "may_cut_secs",
    "send",
    "send_header_bytes",
    "expect_status",
    "close",
    "idle_secs",
    "hold",
    "peers",
    "served",
    "hold_secs",
    "cut",
    "probe",
    "probe_secs",
    "conditional",
    "crowd",
];
/// The keys that say what an entry does; exactly one per entry.
const KIND_KEYS: [&str; 7] = [
    "get",
    "head",
    "send",
    "send_header_bytes",
    "hold",
    "conditional",
    "crowd",
];
const FETCH_KEYS: &[&str] = &[
    "paths",
    "status",
    "body",
    "clients",
    "requests",
    "may_cut_secs",
];
const RAW_KEYS: &[&str] = &["expect_status", "close", "idle_secs"];
const CONDITIONAL_KEYS: &[&str] = &["body"];
const HOLD_KEYS: &[&str] = &[
    "peers",
    "served",
    "hold_secs",
    "cut",
    "probe",
    "body",
    "probe_secs",
];

const CROWD_KEYS: &[&str] = &["clients", "body", "probe_secs"];

/// Reads `test.http`; deadlines are bounded by the test's timeout.
pub(crate) fn read(fields: &Fields, timeout_secs: u32) -> Result<Vec<HttpExchange>, Error> {
    let entries = fields
        .optional::<Vec<&toml::Table>>("http")?
        .unwrap_or_default();
    entries
        .into_iter()
        .enumerate()
        .map(|(index, table)| {
            let path = format!("{}[{index}]", fields.path_of("http"));
            exchange(
                &Fields::new(fields.origin(), path, table, KEYS)?,
                timeout_secs,
            )
        })
        .collect()
}

fn fail(entry: &Fields, rule: ExchangeRule) -> Error {
    Error::Exchange {
        origin: entry.origin().to_owned(),
        path: entry.path().to_owned(),
        rule,
    }
}

fn exchange(entry: &Fields, timeout_secs: u32) -> Result<HttpExchange, Error> {
    let found: Vec<&'static str> = KIND_KEYS.into_iter().filter(|k| entry.has(k)).collect();
    let &[kind_key] = found.as_slice() else {
        return Err(fail(entry, ExchangeRule::Kind { found }));
    };
    let port = rules::integer(entry, "port", None, MIN_HOST_PORT, u16::MAX, Unit::Count)?;
    let after: &str = entry.required("after")?;
    if after.is_empty() {
        return Err(Error::EmptyPattern {
            origin: entry.origin().to_owned(),
            path: entry.path_of("after"),
        });
    }
    let deadline = DEFAULT_HTTP_DEADLINE_SECS.min(timeout_secs);
    let deadline_secs = rules::integer(
        entry,
        "deadline_secs",
        Some(deadline),
        1,
        timeout_secs,
        Unit::Count,
    )?;
    let (kind, own) = match kind_key {
        "get" | "head" => (fetch(entry, kind_key, deadline_secs)?, FETCH_KEYS),
        "hold" => (hold(entry, deadline_secs)?, HOLD_KEYS),
        "conditional" => (conditional(entry)?, CONDITIONAL_KEYS),
        "crowd" => (crowd(entry, deadline_secs)?, CROWD_KEYS),
        _ => (raw(entry, kind_key, deadline_secs)?, RAW_KEYS),
    };
    let foreign = [
        FETCH_KEYS,
        RAW_KEYS,
        HOLD_KEYS,
        CONDITIONAL_KEYS,
        CROWD_KEYS,
    ]
    .into_iter()
    .flatten()
    .find(|k| !own.contains(k) && entry.has(k));
    if let Some(key) = foreign {
        let kind = kind.name();
        return Err(fail(entry, ExchangeRule::KeyNotForKind { key, kind }));
    }
    Ok(HttpExchange {
        port,
        after: after.to_owned(),
        background: entry.optional("background")?.unwrap_or(false),
        deadline_secs,
        kind,
    })
}

fn fetch(entry: &Fields, key: &'static str, deadline_secs: u32) -> Result<HttpKind, Error> {
    let first: &str = entry.required(key)?;
    let mut paths = vec![first];
    paths.extend(entry.optional::<Vec<&str>>("paths")?.unwrap_or_default());
    if let Some(bad) = paths.iter().find(|p| !url_ok(p)) {
        let value = (*bad).to_owned();
        return Err(fail(entry, ExchangeRule::BadUrl { value }));
    }
    let body = body(entry)?;
    Ok(HttpKind::Fetch(Fetch {
        method: if key == "head" {
            Method::Head
        } else {
            Method::Get
        },
        paths: paths.into_iter().map(str::to_owned).collect(),
        status: rules::integer(entry, "status", Some(200), 100, 599, Unit::Count)?,
        body,
        clients: rules::integer(entry, "clients", Some(1), 1, MAX_HTTP_CLIENTS, Unit::Count)?,
        requests: rules::integer(
            entry,
            "requests",
            Some(1),
            1,
            MAX_HTTP_REQUESTS,
            Unit::Count,
        )?,
        may_cut_secs: entry
            .has("may_cut_secs")
            .then(|| rules::integer(entry, "may_cut_secs", None, 1, deadline_secs, Unit::Count))
            .transpose()?,
    }))
}

/// The required `body`: which check a fetched body gets.
fn body(entry: &Fields) -> Result<BodyCheck, Error> {
    let body_name: &str = entry.required("body")?;
    BodyCheck::NAMES
        .iter()
        .position(|n| *n == body_name)
        .map(|i| BodyCheck::ALL[i])
        .ok_or_else(|| {
            let suggestion = Suggestion::new(body_name, BodyCheck::NAMES, Words::Values);
            let value = body_name.to_owned();
            fail(
                entry,
                ExchangeRule::UnknownBody {
                    value,
                    suggestion: Box::new(suggestion),
                },
            )
        })
}

/// `key`'s URL path.
fn url(entry: &Fields, key: &'static str) -> Result<String, Error> {
    let path: &str = entry.required(key)?;
    if !url_ok(path) {
        let value = path.to_owned();
        return Err(fail(entry, ExchangeRule::BadUrl { value }));
    }
    Ok(path.to_owned())
}

fn hold(entry: &Fields, deadline_secs: u32) -> Result<HttpKind, Error> {
    let path = url(entry, "hold")?;
    let probe = if entry.has("probe") {
        Some(HoldProbe {
            path: url(entry, "probe")?,
            body: body(entry)?,
            within_secs: rules::integer(
                entry,
                "probe_secs",
                Some(DEFAULT_PROBE_SECS.min(deadline_secs)),
                1,
                deadline_secs,
                Unit::Count,
            )?,
        })
    } else {
        if let Some(key) = ["body", "probe_secs"].into_iter().find(|k| entry.has(k)) {
            return Err(fail(entry, ExchangeRule::WithoutProbe { key }));
        }
        None
    };
    let peers = rules::integer(entry, "peers", Some(1), 1, MAX_HOLD_PEERS, Unit::Count)?;
    Ok(HttpKind::Hold(Hold {
        path,
        peers,
        served: rules::integer(entry, "served", Some(0), 0, peers, Unit::Count)?,
        hold_secs: rules::integer(entry, "hold_secs", None, 1, deadline_secs, Unit::Count)?,
        cut: entry.optional("cut")?.unwrap_or(false),
        probe,
    }))
}

fn conditional(entry: &Fields) -> Result<HttpKind, Error> {
    let path = url(entry, "conditional")?;
    let body = body(entry)?;
    if !matches!(body, BodyCheck::Generated | BodyCheck::Folder) {
        return Err(fail(
            entry,
            ExchangeRule::NeedsBytes {
                body: body.as_str(),
            },
        ));
    }
    Ok(HttpKind::Conditional(Conditional { path, body }))
}

fn crowd(entry: &Fields, deadline_secs: u32) -> Result<HttpKind, Error> {
    Ok(HttpKind::Crowd(Crowd {
        path: url(entry, "crowd")?,
        body: body(entry)?,
        clients: rules::integer(entry, "clients", None, 1, MAX_CROWD_CLIENTS, Unit::Count)?,
        probe_secs: rules::integer(
            entry,
            "probe_secs",
            Some(DEFAULT_PROBE_SECS.min(deadline_secs)),
            1,
            deadline_secs,
            Unit::Count,
        )?,
    }))
}

/// A URL path: `/`, then no spaces or control characters.
fn url_ok(path: &str) -> bool {
    path.starts_with('/') && !path.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn raw(entry: &Fields, key: &'static str, deadline_secs: u32) -> Result<HttpKind, Error> {
    let send = if key == "send" {
        let text: &str = entry.required("send")?;
        if text.is_empty() {
            return Err(fail(entry, ExchangeRule::EmptySend));
        }
        RawSend::Text(text.to_owned())
    } else {
        RawSend::HeaderFlood(rules::unsigned(
            entry,
            key,
            1,
            MAX_FLOOD_BYTES,
            Unit::Bytes,
        )?)
    };
    let close = entry.optional("close")?.unwrap_or(false);
    let then = match (close, entry.has("idle_secs")) {
        (true, true) => return Err(fail(entry, ExchangeRule::CloseAndIdle)),
        (true, false) => Then::Close,
        (false, true) => Then::Idle(rules::integer(
            entry,
            "idle_secs",
            None,
            1,
            deadline_secs,
            Unit::Count,
        )?),
        (false, false) => Then::Wait,
    };
    let expect_status = entry
        .has("expect_status")
        .then(|| rules::integer(entry, "expect_status", None, 100, 599, Unit::Count))
        .transpose()?;
    if expect_status.is_none() && then != Then::Close {
        return Err(fail(entry, ExchangeRule::NeedsStatus));
    }
    Ok(HttpKind::Raw(Raw {
        send,
        expect_status,
        then,
    }))
}

/// The rules between the exchanges and the rest of the system: each port
/// is forwarded, each `generated` body names a generated file, a `folder`
/// body needs a folder disk, and a crash test has no exchanges.
pub(crate) fn check(manifest: &Manifest) -> Result<(), Error> {
    let Some(test) = &manifest.test else {
        return Ok(());
    };
    let forwards: Vec<u16> = manifest
        .devices
        .iter()
        .flat_map(|d| d.forwards.iter())
        .filter(|f| f.protocol == Protocol::Tcp)
        .map(|f| f.host)
        .collect();
    let folder = manifest.devices.iter().find_map(|d| match &d.disk {
        Some(DiskImage::Folder { generate, .. }) => Some(generate),
        _ => None,
    });
    let generated: Vec<String> = folder
        .into_iter()
        .flatten()
        .filter(|g| g.files.is_none())
        .map(|g| g.path.clone())
        .collect();
    for (index, exchange) in test.http.iter().enumerate() {
        let fail = |rule| Error::Exchange {
            origin: manifest.origin.clone(),
            path: format!("test.http[{index}]"),
            rule,
        };
        if test.crash.is_some() {
            return Err(fail(ExchangeRule::WithCrash));
        }
        if !forwards.contains(&exchange.port) {
            let forwards = forwards.clone();
            let port = exchange.port;
            return Err(fail(ExchangeRule::UnknownPort { port, forwards }));
        }
        let (body, paths) = match &exchange.kind {
            HttpKind::Fetch(fetch) => (fetch.body, fetch.paths.as_slice()),
            HttpKind::Hold(Hold {
                probe: Some(probe), ..
            }) => (probe.body, core::slice::from_ref(&probe.path)),
            HttpKind::Conditional(c) => (c.body, core::slice::from_ref(&c.path)),
            HttpKind::Crowd(crowd) => (crowd.body, core::slice::from_ref(&crowd.path)),
            _ => continue,
        };
        match body {
            BodyCheck::Folder if folder.is_none() => return Err(fail(ExchangeRule::NoFolder)),
            BodyCheck::Generated => {
                let missing = |p: &&String| !generated.iter().any(|g| *g == p[1..]);
                if let Some(url) = paths.iter().find(missing) {
                    let (url, generated) = (url.clone(), generated.clone());
                    return Err(fail(ExchangeRule::NotGenerated { url, generated }));
                }
            }
            _ => {}
        }
    }
    Ok(())
}
