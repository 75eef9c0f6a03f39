//! Well-formed requests from concurrent clients, every answer checked.
//!
//! Client `c` (a thread) sends `requests` requests on one kept-alive
//! connection, request `r` for path `(c + r) % paths`; when the server
//! ends the connection (it said `Connection: close`, or closed before
//! answering the next request) the client connects again and sends that
//! request again. Each answer must have the expected status, a
//! `Content-Length`, and the expected body (for HEAD: the length alone).
//!
//! A plan that allows cuts (`may_cut`: a server restarted on purpose
//! mid-transfer) accepts an answer that ends early — the connection reset
//! or closed, or silent for the stall time — as long as every byte that
//! came was right; that client then stops and the cut is counted. A wrong
//! byte, status or length still fails, and so does a fetch where no
//! answer was cut (the restart did not happen mid-transfer) unless it is
//! complete.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::conn::{Broke, Conn, HeadError};
use super::{escape, Target};

/// What a body must be.
#[derive(Debug, Clone)]
pub enum Expected {
    /// Exactly these bytes.
    Bytes(Arc<[u8]>),
    /// Nothing (`Content-Length: 0`).
    Empty,
    /// Anything (its `Content-Length` still delimits it).
    Unchecked,
}

/// A fetch exchange.
#[derive(Debug, Clone)]
pub struct FetchPlan {
    pub target: Target,
    /// HEAD instead of GET.
    pub head: bool,
    /// URL paths and their bodies, cycled through.
    pub paths: Vec<(String, Expected)>,
    pub status: u16,
    pub clients: u32,
    pub requests: u32,
    /// For the whole exchange, from its start.
    pub deadline: Duration,
    /// Answers may be cut short: a reset, a close, or this long without a
    /// byte (see the module docs).
    pub may_cut: Option<Duration>,
}

/// What a fetch did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub requests: u64,
    /// Body bytes received (for HEAD, none).
    pub body_bytes: u64,
    /// Connections made beyond one per client.
    pub reconnects: u64,
    /// Answers cut short (only where the plan allows it).
    pub cut: u64,
    /// How the first cut answer ended, for the log.
    pub first_cut: Option<String>,
    pub elapsed: Duration,
    /// Each answered request's time, in microseconds, from sending it to
    /// its answer's last byte (a reconnect's time included).
    pub latencies_us: Vec<f64>,
}

impl Stats {
    pub fn requests_per_sec(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn bytes_per_sec(&self) -> f64 {
        self.body_bytes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn add(&mut self, other: Stats) {
        self.requests += other.requests;
        self.body_bytes += other.body_bytes;
        self.reconnects += other.reconnects;
        self.cut += other.cut;
        self.first_cut = self.first_cut.take().or(other.first_cut);
        self.latencies_us.extend(other.latencies_us);
    }
}

/// Runs `plan`; the first failure (of any client) is the error, and
/// stops the other clients.
pub fn fetch(plan: &FetchPlan) -> Result<Stats, String> {
    assert!(!plan.paths.is_empty(), "a fetch has at least one path");
    let start = Instant::now();
    let deadline = start + plan.deadline;
    let stop = AtomicBool::new(false);
    let results: Vec<Result<Stats, String>> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..plan.clients)
            .map(|c| {
                let stop = &stop;
                scope.spawn(move || {
                    let result = client(plan, c, deadline, stop);
                    if result.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    result
                })
            })
            .collect();
        clients
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a client thread panicked".into()))
            })
            .collect()
    });
    let mut stats = Stats::default();
    // A client that saw another's failure says only "stopped:"; the
    // failure that stopped it is the error, whichever client had it (a
    // later client's thread may fail first and stop an earlier one).
    let (stopped, mut failures): (Vec<String>, Vec<String>) = results
        .into_iter()
        .filter_map(|r| match r {
            Ok(s) => {
                stats.add(s);
                None
            }
            Err(e) => Some(e),
        })
        .partition(|e| e.starts_with("stopped:"));
    failures.extend(stopped);
    let mut failures = failures.into_iter();
    if let Some(first) = failures.next() {
        let others = failures.filter(|e| !e.starts_with("stopped:")).count();
        let more = if others > 0 {
            format!(" ({others} other clients failed too)")
        } else {
            String::new()
        };
        return Err(format!("{first}{more}"));
    }
    stats.elapsed = start.elapsed();
    Ok(stats)
}

/// One client's requests on (mostly) one connection.
fn client(plan: &FetchPlan, c: u32, deadline: Instant, stop: &AtomicBool) -> Result<Stats, String> {
    let mut stats = Stats::default();
    let mut conn: Option<(Conn, u32)> = None;
    for r in 0..plan.requests {
        if stop.load(Ordering::Relaxed) {
            return Err("stopped: another client failed".into());
        }
        let (path, expected) = &plan.paths[(c + r) as usize % plan.paths.len()];
        let place = |e: String| format!("path {path}, client {c}, request {r}: {e}");
        match request(plan, &mut conn, &mut stats, r, deadline, path, expected) {
            Ok(()) => {}
            Err(Broke::Cut(e)) if plan.may_cut.is_some() => {
                stats.cut += 1;
                stats.first_cut.get_or_insert_with(|| place(e));
                return Ok(stats);
            }
            Err(broke) => return Err(place(broke.message())),
        }
    }
    Ok(stats)
}

/// Request `r` for `path` on the client's connection (made, or made
/// again when the server closed a kept-alive one), its answer checked.
fn request(
    plan: &FetchPlan,
    conn: &mut Option<(Conn, u32)>,
    stats: &mut Stats,
    r: u32,
    deadline: Instant,
    path: &str,
    expected: &Expected,
) -> Result<(), Broke> {
    let request = format!(
        "{} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        if plan.head { "HEAD" } else { "GET" }
    );
    let sent = Instant::now();
    // A kept-alive connection the server closed gets one new try.
    let head = loop {
        let reused = conn.as_ref().is_some_and(|(_, served)| *served > 0);
        if conn.is_none() {
            if r > 0 {
                stats.reconnects += 1;
            }
            let mut open = Conn::connect(plan.target, deadline).map_err(Broke::Other)?;
            if let Some(stall) = plan.may_cut {
                open.cut_after(stall);
            }
            *conn = Some((open, 0));
        }
        let (open, _) = conn.as_mut().expect("connected above");
        open.send(request.as_bytes())?;
        match open.read_head() {
            Ok(head) => break head,
            Err(HeadError::ClosedBeforeAnswer) if reused => *conn = None,
            Err(HeadError::ClosedBeforeAnswer) => {
                return Err(Broke::Cut(
                    "the server closed the connection without answering".into(),
                ))
            }
            Err(HeadError::Cut(e)) => return Err(Broke::Cut(e)),
            Err(HeadError::Other(e)) => return Err(Broke::Other(e)),
        }
    };
    let (open, served) = conn.as_mut().expect("answered on it");
    stats.body_bytes += answer(plan, open, &head, expected)?;
    stats.requests += 1;
    stats.latencies_us.push(sent.elapsed().as_secs_f64() * 1e6);
    *served += 1;
    if head.close {
        *conn = None;
    }
    Ok(())
}

/// Checks one answer whose head is read; returns the body bytes read.
fn answer(
    plan: &FetchPlan,
    conn: &mut Conn,
    head: &super::conn::Head,
    expected: &Expected,
) -> Result<u64, Broke> {
    if head.status != plan.status {
        return Err(Broke::Other(format!(
            "expected status {}, got {}",
            plan.status,
            escape(&head.text)
        )));
    }
    let Some(len) = head.content_length else {
        return Err(Broke::Other(format!(
            "the answer has no Content-Length (the peer reads only sized bodies): {}",
            escape(&head.text)
        )));
    };
    let want = match expected {
        Expected::Bytes(bytes) => Some(bytes.len() as u64),
        Expected::Empty => Some(0),
        Expected::Unchecked => None,
    };
    if let Some(want) = want.filter(|w| *w != len) {
        return Err(Broke::Other(format!(
            "expected Content-Length {want}, got {len}: {}",
            escape(&head.text)
        )));
    }
    if plan.head {
        return Ok(0);
    }
    let bytes = match expected {
        Expected::Bytes(bytes) => Some(&bytes[..]),
        _ => None,
    };
    conn.body(len, bytes)?;
    Ok(len)
}
