//! Hold exchanges: peers that take a connection and then stop reading,
//! as a slow or hostile client does, and what the server does about it.
//!
//! `peers` connections are opened one at a time, each sending a GET (HTTP
//! 1.1, so kept alive) and reading its answer's head and no more: a large
//! file's answer then stalls in the buffers between server and peer, a
//! small one's is done and the connection sits idle. Rules:
//!
//! - Every peer gets a status line, 200 or 503: a full server answers,
//!   it is never silent; and at least `served` get 200.
//! - With a probe, a normal client then fetches the probe path and must
//!   be served 200 with the right body before `within` passes, trying
//!   again 200 ms after each 503 (as `Retry-After` allows): the held
//!   peers do not lock it out.
//! - The peers stay quiet for `hold` from when the last got its head.
//!   With `cut`, each peer served 200 then reads on and must find its
//!   answer cut short — the end of the stream or a reset before the
//!   body's end — within [`READ_ON`]: whatever was buffered comes at once,
//!   so a peer still receiving, or still connected, after that was not
//!   cut.

use std::time::{Duration, Instant};

use super::conn::{remaining, Conn, Head, HeadError, ReadOn};
use super::fetch::Expected;
use super::{escape, Target};

/// How long a held peer reads on to see whether its answer was cut.
const READ_ON: Duration = Duration::from_secs(5);
/// The probe's pause after a 503.
const RETRY_AFTER: Duration = Duration::from_millis(200);

/// A normal client's fetch beside the held peers.
#[derive(Debug, Clone)]
pub struct Probe {
    pub path: String,
    pub expected: Expected,
    /// From the probe's first try.
    pub within: Duration,
}

/// A hold exchange.
#[derive(Debug, Clone)]
pub struct HoldPlan {
    pub target: Target,
    pub path: String,
    pub peers: u32,
    /// At least this many must be served 200.
    pub served: u32,
    pub hold: Duration,
    pub cut: bool,
    pub probe: Option<Probe>,
    /// For the whole exchange, from its start.
    pub deadline: Duration,
}

/// What a passed hold exchange saw.
#[derive(Debug, Clone, Default)]
pub struct HoldReport {
    pub served: u32,
    pub turned_away: u32,
    /// The probe's tries and time until it was served.
    pub probe: Option<(u32, Duration)>,
    /// Answers cut: by an end of stream, by a reset.
    pub cut: Option<(u32, u32)>,
    pub elapsed: Duration,
}

impl HoldReport {
    /// One line for the log.
    pub fn summary(&self, plan: &HoldPlan) -> String {
        let mut line = format!(
            "{} peers held: {} served 200, {} answered 503",
            plan.peers, self.served, self.turned_away
        );
        if let (Some(p), Some((tries, took))) = (&plan.probe, self.probe) {
            line += &format!(
                "; {} served to a normal client on try {tries} after {} ms",
                p.path,
                took.as_millis()
            );
        }
        if let Some((ended, reset)) = self.cut {
            line += &format!(
                "; after {} s without reading, every answer served was cut ({ended} by an end of stream, {reset} by a reset)",
                plan.hold.as_secs()
            );
        }
        line + &format!(" ({} ms in all)", self.elapsed.as_millis())
    }
}

/// One held peer: its connection and its answer's body length.
struct Held {
    conn: Conn,
    body: u64,
}

/// Runs `plan`: `Ok` with what was seen when every rule holds.
pub fn hold(plan: &HoldPlan) -> Result<HoldReport, String> {
    let start = Instant::now();
    let deadline = start + plan.deadline;
    let request = format!("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", plan.path);
    let mut report = HoldReport::default();
    let mut held = Vec::new();
    for i in 0..plan.peers {
        let mut conn =
            Conn::connect(plan.target, deadline).map_err(|e| format!("peer {i}: {e}"))?;
        conn.send(request.as_bytes())
            .map_err(|e| format!("peer {i}: {}", e.message()))?;
        let head = conn
            .read_head()
            .map_err(|e| format!("peer {i}: {}", head_error(e)))?;
        match head.status {
            200 => {
                report.served += 1;
                let body = length(&head).map_err(|e| format!("peer {i}: {e}"))?;
                held.push(Held { conn, body });
            }
            503 => report.turned_away += 1,
            _ => {
                return Err(format!(
                    "peer {i}: expected 200, or 503 from a full server; got {}",
                    escape(&head.text)
                ))
            }
        }
    }
    if report.served < plan.served {
        return Err(format!(
            "only {} of {} peers were served 200 ({} answered 503); at least {} must be",
            report.served, plan.peers, report.turned_away, plan.served
        ));
    }
    let quiet_from = Instant::now();
    if let Some(probe) = &plan.probe {
        report.probe = Some(fetch_probe(plan.target, probe, deadline)?);
    }
    let until = (quiet_from + plan.hold).min(deadline);
    std::thread::sleep(remaining(until).unwrap_or_default());
    if plan.cut {
        report.cut = Some(read_on(&mut held, deadline)?);
    }
    report.elapsed = start.elapsed();
    Ok(report)
}

fn head_error(e: HeadError) -> String {
    match e {
        HeadError::ClosedBeforeAnswer => {
            "the server closed the connection without an answer (a full server must answer 503)"
                .into()
        }
        HeadError::Cut(m) | HeadError::Other(m) => m,
    }
}

fn length(head: &Head) -> Result<u64, String> {
    head.content_length
        .ok_or_else(|| format!("the answer has no Content-Length: {}", escape(&head.text)))
}

/// Fetches the probe until it is served 200 (after 503s); its tries and
/// the time it took.
pub(super) fn fetch_probe(
    target: Target,
    probe: &Probe,
    deadline: Instant,
) -> Result<(u32, Duration), String> {
    let start = Instant::now();
    let until = (start + probe.within).min(deadline);
    let request = format!("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", probe.path);
    let mut tries = 0;
    loop {
        tries += 1;
        let late = |e: String| {
            format!(
                "the normal client's GET {} (try {tries}, {} ms after the first): {e}",
                probe.path,
                start.elapsed().as_millis()
            )
        };
        let mut conn = Conn::connect(target, until).map_err(late)?;
        conn.send(request.as_bytes())
            .map_err(|e| late(e.message()))?;
        let head = conn.read_head().map_err(|e| late(head_error(e)))?;
        match head.status {
            200 => {
                let len = length(&head).map_err(late)?;
                let bytes = match &probe.expected {
                    Expected::Bytes(b) if b.len() as u64 != len => {
                        return Err(late(format!(
                            "expected Content-Length {}, got {len}",
                            b.len()
                        )))
                    }
                    Expected::Bytes(b) => Some(&b[..]),
                    _ => None,
                };
                conn.body(len, bytes).map_err(|e| late(e.message()))?;
                return Ok((tries, start.elapsed()));
            }
            503 if remaining(until).is_some_and(|left| left > RETRY_AFTER) => {
                std::thread::sleep(RETRY_AFTER);
            }
            503 => {
                return Err(late(format!(
                    "still 503 after {} s: the held peers lock it out",
                    probe.within.as_secs()
                )))
            }
            _ => return Err(late(format!("expected 200, got {}", escape(&head.text)))),
        }
    }
}

/// Each held peer reads on: its answer must have been cut. Returns how
/// many ended by an end of stream and by a reset.
fn read_on(held: &mut [Held], deadline: Instant) -> Result<(u32, u32), String> {
    let (mut ended, mut reset) = (0, 0);
    for (i, h) in held.iter_mut().enumerate() {
        let until = (Instant::now() + READ_ON).min(deadline);
        match h.conn.read_on(h.body, until) {
            ReadOn::Ended { reset: false } => ended += 1,
            ReadOn::Ended { reset: true } => reset += 1,
            ReadOn::Whole => {
                return Err(format!(
                    "held answer {i} was not cut: once read, all {} bytes of its body came",
                    h.body
                ))
            }
            ReadOn::Open { got } => {
                return Err(format!(
                    "held answer {i} was not cut: the connection was still open after reading on for {} s ({got} of {} body bytes came)",
                    READ_ON.as_secs(),
                    h.body
                ))
            }
        }
    }
    Ok((ended, reset))
}
