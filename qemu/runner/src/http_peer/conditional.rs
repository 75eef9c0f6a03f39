//! A conditional exchange: what HTTP clients expect of a file server
//! beyond a plain GET, checked on one file whose bytes are known.
//!
//! On one kept-alive connection, in order:
//!
//! 1. the status page (`/?status`): the counters before;
//! 2. GET the file: 200, the whole body, `Date` (an IMF-fixdate within
//!    [`DATE_SLACK`] of this machine's clock: the guest's wall clock is
//!    the host's, read from the emulated real-time clock at boot),
//!    `Last-Modified` and `Accept-Ranges: bytes`;
//! 3. ranges `0-99`, `-100`, `100-` (206, `Content-Range`, the bytes
//!    of that part), one starting at the file's length (416 with
//!    `Content-Range: bytes */len`) and two at once (200, whole);
//! 4. `If-Modified-Since` with the `Last-Modified` value, and the same
//!    instant in RFC 850 and asctime form (304, no body; HEAD too), a
//!    second earlier (200: modified since), and with a range (304 wins);
//! 5. a missing file (404);
//! 6. the status page again: `requests` and each `responses_Nxx` must
//!    have moved by exactly the requests made since the first page (the
//!    second one included), `bytes_sent` by exactly the bytes received
//!    since (the first page included), and nothing turned away, evicted
//!    or cut; `connections_open` must count at least this connection.
//!
//! Then, where `curl` is installed, the same checks through it (`-r
//! 0-99`, `-z` with the `Last-Modified` date and with a date a day
//! before it); where it is not, the summary says they were skipped.
//! Every other exchange must be over before this one starts: the
//! counters are the server's, for all its clients.

use std::collections::HashMap;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use conflux_abi::calendar::{weekday, Civil};
use conflux_http::date::{DateValue, HttpDate};

use super::conn::{Conn, Head, HeadError};
use super::{escape, Target};

/// How far the guest's `Date` may be from this machine's clock. The
/// guest's clock is the host's at boot plus its ticks, which fall behind
/// when QEMU is starved of CPU: minutes here mean a decoding error
/// (a wrong hour or day), not a slow machine.
const DATE_SLACK: Duration = Duration::from_secs(300);

#[derive(Debug, Clone)]
pub struct ConditionalPlan {
    pub target: Target,
    pub path: String,
    pub body: Arc<[u8]>,
    pub deadline: Duration,
}

/// One request of the conversation: what is sent and what must come.
struct Ask<'a> {
    method: &'a str,
    path: &'a str,
    headers: Vec<(&'static str, String)>,
    status: u16,
    /// The body bytes that must come (`None`: any, delimited by its length).
    body: Option<&'a [u8]>,
}

/// An answer as it came.
struct Got {
    head: Head,
    headers: HashMap<String, String>,
    /// Head and body bytes.
    bytes: u64,
    body: Vec<u8>,
}

struct Peer<'a> {
    conn: Conn,
    target: Target,
    plan: &'a ConditionalPlan,
    /// Requests sent, and their answers' statuses.
    statuses: Vec<u16>,
    /// Bytes received.
    bytes: u64,
}

impl Peer<'_> {
    fn ask(&mut self, ask: &Ask<'_>) -> Result<Got, String> {
        let what = format!(
            "{} {}{}",
            ask.method,
            ask.path,
            ask.headers
                .iter()
                .map(|(n, v)| format!(" [{n}: {v}]"))
                .collect::<String>()
        );
        let mut request = format!(
            "{} {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n",
            ask.method,
            ask.path,
            self.target.port()
        );
        for (name, value) in &ask.headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        self.conn
            .send(request.as_bytes())
            .map_err(|e| format!("{what}: {}", e.message()))?;
        let head = self.conn.read_head().map_err(|e| match e {
            HeadError::ClosedBeforeAnswer => {
                format!("{what}: the server closed the connection instead of answering")
            }
            HeadError::Cut(m) | HeadError::Other(m) => format!("{what}: {m}"),
        })?;
        if head.status != ask.status {
            return Err(format!(
                "{what}: expected status {}, got {}",
                ask.status,
                escape(&head.text)
            ));
        }
        let headers = headers_of(&head.text);
        let len = if ask.method == "HEAD" || head.status == 304 {
            0
        } else {
            head.content_length
                .ok_or_else(|| format!("{what}: no Content-Length in {}", escape(&head.text)))?
        };
        if let Some(want) = ask.body {
            if len != want.len() as u64 {
                return Err(format!(
                    "{what}: expected a body of {} bytes, the head says {len}: {}",
                    want.len(),
                    escape(&head.text)
                ));
            }
        }
        let body = self
            .conn
            .body_bytes(len)
            .map_err(|e| format!("{what}: {}", e.message()))?;
        if let Some(want) = ask.body {
            if let Some(at) = body.iter().zip(want).position(|(a, b)| a != b) {
                return Err(format!(
                    "{what}: the body differs from the file's bytes at byte {at}"
                ));
            }
        }
        if head.status != 503 && !headers.contains_key("date") {
            return Err(format!("{what}: no Date header in {}", escape(&head.text)));
        }
        let bytes = head.text.len() as u64 + len;
        self.bytes += bytes;
        self.statuses.push(head.status);
        Ok(Got {
            head,
            headers,
            bytes,
            body,
        })
    }

    fn get(
        &mut self,
        headers: Vec<(&'static str, String)>,
        status: u16,
        body: Option<&[u8]>,
    ) -> Result<Got, String> {
        let path = self.plan.path.clone();
        self.ask(&Ask {
            method: "GET",
            path: &path,
            headers,
            status,
            body,
        })
    }

    fn status_page(&mut self) -> Result<(Counters, u64), String> {
        let got = self.ask(&Ask {
            method: "GET",
            path: "/?status",
            headers: Vec::new(),
            status: 200,
            body: None,
        })?;
        let text = String::from_utf8_lossy(&got.body);
        Ok((Counters::parse(&text)?, got.bytes))
    }
}

/// The status page's counters by name.
struct Counters(HashMap<String, u64>);

impl Counters {
    fn parse(text: &str) -> Result<Counters, String> {
        let map: HashMap<String, u64> = text
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter_map(|(k, v)| Some((k.to_owned(), v.parse().ok()?)))
            .collect();
        let need = [
            "requests",
            "responses_2xx",
            "bytes_sent",
            "connections_open",
        ];
        match need.iter().find(|k| !map.contains_key(**k)) {
            Some(k) => Err(format!("the status page has no `{k}` line: {text:?}")),
            None => Ok(Counters(map)),
        }
    }

    fn get(&self, name: &str) -> u64 {
        self.0.get(name).copied().unwrap_or(0)
    }
}

/// Runs `plan`: a summary for the log, or what went wrong.
pub fn conditional(plan: &ConditionalPlan) -> Result<String, String> {
    let deadline = Instant::now() + plan.deadline;
    let mut peer = Peer {
        conn: Conn::connect(plan.target, deadline)?,
        target: plan.target,
        plan,
        statuses: Vec::new(),
        bytes: 0,
    };
    let file = &plan.body[..];
    let len = file.len();
    if len < 200 {
        return Err(format!(
            "{} has {len} bytes; the ranges need at least 200",
            plan.path
        ));
    }
    let (before, first_page) = peer.status_page()?;
    peer.statuses.clear();
    peer.bytes = first_page;

    let whole = peer.get(Vec::new(), 200, Some(file))?;
    let skew = check_dates(&whole)?;
    let modified = whole.headers["last-modified"].clone();
    if whole.headers.get("accept-ranges").map(String::as_str) != Some("bytes") {
        return Err(format!(
            "GET {}: no `Accept-Ranges: bytes`: {}",
            plan.path,
            escape(&whole.head.text)
        ));
    }
    ranges(&mut peer, file)?;
    conditions(&mut peer, file, &modified)?;
    peer.ask(&Ask {
        method: "GET",
        path: "/no/such/file",
        headers: vec![("Range", "bytes=0-9".into())],
        status: 404,
        body: None,
    })?;
    let sent_since = peer.bytes;
    let (after, _) = peer.status_page()?;
    counters_moved(&before, &after, &peer.statuses, sent_since)?;
    let curl = curl_checks(plan, file, &modified)?;
    Ok(format!(
        "{} requests; Date {} s from this machine's clock; counters moved by exactly the requests and bytes; {curl}",
        peer.statuses.len(),
        skew
    ))
}

/// `Date` is an IMF-fixdate near this machine's time and `Last-Modified`
/// one not after it; returns how far `Date` was from the host's clock (s).
fn check_dates(got: &Got) -> Result<i64, String> {
    let text = || escape(&got.head.text);
    let date = got
        .headers
        .get("date")
        .ok_or_else(|| format!("no Date: {}", text()))?;
    let modified = got
        .headers
        .get("last-modified")
        .ok_or_else(|| format!("no Last-Modified: {}", text()))?;
    let imf = |v: &str| {
        let d = DateValue::parse(v).map(|d| d.at(HttpDate::from_unix(0)))?;
        (d.to_string() == v).then_some(d)
    };
    let date = imf(date).ok_or_else(|| format!("Date is no IMF-fixdate: {}", text()))?;
    let modified =
        imf(modified).ok_or_else(|| format!("Last-Modified is no IMF-fixdate: {}", text()))?;
    let host = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| format!("this machine's clock is before 1970: {e}"))?
        .as_secs();
    let skew = date.unix() as i64 - host as i64;
    if skew.unsigned_abs() > DATE_SLACK.as_secs() {
        return Err(format!(
            "Date says {date}, {skew} s from this machine's clock ({}); the guest's wall clock is wrong",
            HttpDate::from_unix(host)
        ));
    }
    if modified > date {
        return Err(format!("Last-Modified ({modified}) is after Date ({date})"));
    }
    Ok(skew)
}

fn ranges(peer: &mut Peer<'_>, file: &[u8]) -> Result<(), String> {
    let len = file.len();
    let range = |v: String| vec![("Range", v)];
    let parts = [
        ("bytes=0-99".to_owned(), 0, 99),
        ("bytes=-100".to_owned(), len - 100, len - 1),
        ("bytes=100-".to_owned(), 100, len - 1),
    ];
    for (value, first, last) in parts {
        let got = peer.get(range(value.clone()), 206, Some(&file[first..=last]))?;
        let want = format!("bytes {first}-{last}/{len}");
        if got.headers.get("content-range") != Some(&want) {
            return Err(format!(
                "Range: {value}: expected Content-Range {want:?}: {}",
                escape(&got.head.text)
            ));
        }
    }
    let got = peer.get(range(format!("bytes={len}-")), 416, None)?;
    let want = format!("bytes */{len}");
    if got.headers.get("content-range") != Some(&want) {
        return Err(format!(
            "Range past the end: expected Content-Range {want:?}: {}",
            escape(&got.head.text)
        ));
    }
    peer.get(range("bytes=0-1,5-6".into()), 200, Some(file))?;
    Ok(())
}

fn conditions(peer: &mut Peer<'_>, file: &[u8], modified: &str) -> Result<(), String> {
    let at = DateValue::parse(modified)
        .map(|d| d.at(HttpDate::from_unix(0)).unix())
        .ok_or("Last-Modified does not parse")?;
    let since = |v: String| vec![("If-Modified-Since", v)];
    for form in [modified.to_owned(), rfc850(at), asctime(at)] {
        let got = peer.get(since(form.clone()), 304, None)?;
        if got.head.content_length.is_some() || !got.body.is_empty() {
            return Err(format!(
                "If-Modified-Since: {form}: a 304 with a length or body: {}",
                escape(&got.head.text)
            ));
        }
    }
    let path = peer.plan.path.clone();
    peer.ask(&Ask {
        method: "HEAD",
        path: &path,
        headers: since(modified.to_owned()),
        status: 304,
        body: None,
    })?;
    let earlier = HttpDate::from_unix(at - 1).to_string();
    peer.get(since(earlier), 200, Some(file))?;
    let mut both = since(modified.to_owned());
    both.push(("Range", "bytes=0-9".into()));
    peer.get(both, 304, None)?;
    Ok(())
}

/// The counters moved by exactly what this peer did since the first page.
fn counters_moved(
    before: &Counters,
    after: &Counters,
    statuses: &[u16],
    bytes: u64,
) -> Result<(), String> {
    let class = |c: u16| statuses.iter().filter(|s| **s / 100 == c).count() as u64;
    let expect = [
        ("requests", statuses.len() as u64),
        ("responses_2xx", class(2)),
        ("responses_3xx", class(3)),
        ("responses_4xx", class(4)),
        ("responses_5xx", 0),
        ("bytes_sent", bytes),
        ("turned_away", 0),
        ("evicted", 0),
        ("cut", 0),
    ];
    for (name, want) in expect {
        let moved = after.get(name).wrapping_sub(before.get(name));
        if moved != want {
            return Err(format!(
                "the status page's `{name}` moved by {moved} ({} → {}), but this peer's requests account for {want}",
                before.get(name),
                after.get(name)
            ));
        }
    }
    if after.get("connections_open") < 1 {
        return Err(
            "the status page counts no open connection, but it was fetched over one".into(),
        );
    }
    Ok(())
}

/// The same checks through `curl`, or why they were skipped.
fn curl_checks(plan: &ConditionalPlan, file: &[u8], modified: &str) -> Result<String, String> {
    let url = format!("http://127.0.0.1:{}{}", plan.target.port(), plan.path);
    let run = |args: &[&str]| -> Result<Vec<u8>, String> {
        let out = Command::new("curl")
            .args(["--silent", "--show-error", "--max-time", "30"])
            .args(args)
            .arg(&url)
            .output()
            .map_err(|e| format!("curl {}: {e}", args.join(" ")))?;
        if !out.status.success() {
            return Err(format!(
                "curl {} {url} failed ({}): {}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(out.stdout)
    };
    if Command::new("curl").arg("--version").output().is_err() {
        return Ok("curl is not installed on this machine: the curl checks were skipped".into());
    }
    let part = run(&["-r", "0-99"])?;
    if part != file[..100] {
        return Err(format!(
            "curl -r 0-99: got {} bytes, not the file's first 100: {}",
            part.len(),
            escape(&part)
        ));
    }
    let code = |since: &str| -> Result<String, String> {
        let out = run(&[
            "-z",
            since,
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{size_download}",
        ])?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    };
    let same = code(modified)?;
    if same != "304 0" {
        return Err(format!(
            "curl -z {modified:?}: expected \"304 0\" (code, body bytes), got {same:?}"
        ));
    }
    let at = DateValue::parse(modified)
        .map(|d| d.at(HttpDate::from_unix(0)).unix())
        .unwrap_or(0);
    let day_before = HttpDate::from_unix(at.saturating_sub(86_400)).to_string();
    let older = code(&day_before)?;
    let want = format!("200 {}", file.len());
    if older != want {
        return Err(format!(
            "curl -z {day_before:?}: expected {want:?} (code, body bytes), got {older:?}"
        ));
    }
    Ok("curl: -r 0-99 gave the first 100 bytes, -z gave 304 and, a day earlier, 200".into())
}

/// Header names (lower case) and values of a head.
fn headers_of(text: &[u8]) -> HashMap<String, String> {
    String::from_utf8_lossy(text)
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect()
}

const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `secs` in RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`.
fn rfc850(secs: u64) -> String {
    let c = Civil::from_unix(secs as i64);
    format!(
        "{}, {:02}-{}-{:02} {:02}:{:02}:{:02} GMT",
        LONG_DAYS[usize::from(weekday(secs as i64 / 86_400))],
        c.day,
        MONTHS[usize::from(c.month - 1)],
        c.year % 100,
        c.hour,
        c.minute,
        c.second
    )
}

/// `secs` in asctime form: `Sun Nov  6 08:49:37 1994`.
fn asctime(secs: u64) -> String {
    let c = Civil::from_unix(secs as i64);
    format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {}",
        &LONG_DAYS[usize::from(weekday(secs as i64 / 86_400))][..3],
        MONTHS[usize::from(c.month - 1)],
        c.day,
        c.hour,
        c.minute,
        c.second,
        c.year
    )
}
