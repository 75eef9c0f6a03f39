//! Crowd exchanges: many clients connecting at the same moment, as a
//! load generator's do, and a normal client after them.
//!
//! `clients` threads wait at a barrier, then each connects, sends one
//! GET (`Connection: close`) and reads the answer. Rules:
//!
//! - An answer is 200 with every body byte right, or 503 carrying
//!   `Retry-After` (a full server says when to come back); any other
//!   status, a wrong byte or a 200 cut short fails.
//! - A connection the guest resets or closes before answering, and one
//!   that cannot be made at all, is counted, not failed: the report says
//!   how many of each, so a run shows where clients were turned away
//!   (before the guest: refused at connect; by the guest: reset or
//!   closed). At least one client must be served.
//! - Then a normal client GETs the same path and must be served 200
//!   within the probe time (503s tried again): the crowd left nothing
//!   wedged.

use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use super::conn::{Broke, Conn, HeadError};
use super::fetch::Expected;
use super::hold::fetch_probe;
use super::{escape, Probe, Target};

/// A crowd exchange.
#[derive(Debug, Clone)]
pub struct CrowdPlan {
    pub target: Target,
    pub path: String,
    pub expected: Expected,
    pub clients: u32,
    /// How long the normal client afterwards may take.
    pub probe_within: Duration,
    /// For the whole exchange, from its start.
    pub deadline: Duration,
}

/// What a passed crowd exchange saw.
#[derive(Debug, Clone, Default)]
pub struct CrowdReport {
    pub served: u32,
    pub turned_away: u32,
    /// Closed by the server before an answer.
    pub closed: u32,
    /// Reset by the server before or while it answered.
    pub reset: u32,
    /// The connection could not be made.
    pub refused: u32,
    /// The first refusal's error, for the log.
    pub first_refusal: Option<String>,
    /// The normal client's tries and time until it was served.
    pub probe: (u32, Duration),
    /// From the barrier until every client had its outcome.
    pub crowd_took: Duration,
    pub elapsed: Duration,
}

impl CrowdReport {
    /// One line for the log.
    pub fn summary(&self, plan: &CrowdPlan) -> String {
        let refusal = self
            .first_refusal
            .as_ref()
            .map_or(String::new(), |e| format!(" (the first: {e})"));
        format!(
            "{} clients at once on {}: {} served 200, {} answered 503 with Retry-After, {} closed and {} reset by the guest without an answer, {} refused before reaching it{refusal}, all in {} ms; then a normal client was served on try {} after {} ms ({} ms in all)",
            plan.clients,
            plan.path,
            self.served,
            self.turned_away,
            self.closed,
            self.reset,
            self.refused,
            self.crowd_took.as_millis(),
            self.probe.0,
            self.probe.1.as_millis(),
            self.elapsed.as_millis()
        )
    }
}

/// How one client fared.
enum Outcome {
    Served,
    TurnedAway,
    Closed,
    Reset,
    Refused(String),
}

/// Runs `plan`: `Ok` with what was seen when every rule holds.
pub fn crowd(plan: &CrowdPlan) -> Result<CrowdReport, String> {
    let start = Instant::now();
    let deadline = start + plan.deadline;
    let mut report = gather(plan, deadline)?;
    if report.served == 0 {
        return Err(format!(
            "not one of {} clients was served 200: {}",
            plan.clients,
            report.summary(plan)
        ));
    }
    let probe = Probe {
        path: plan.path.clone(),
        expected: plan.expected.clone(),
        within: plan.probe_within,
    };
    report.probe = fetch_probe(plan.target, &probe, deadline)?;
    report.elapsed = start.elapsed();
    Ok(report)
}

/// The crowd alone, without the rules on how many must be served and
/// without the normal client (what a benchmark counts): `Err` only for
/// a wrong answer.
pub fn gather(plan: &CrowdPlan, deadline: Instant) -> Result<CrowdReport, String> {
    let start = Instant::now();
    let barrier = Arc::new(Barrier::new(plan.clients as usize));
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..plan.clients)
        .map(|i| {
            let (plan, barrier, outcomes) = (plan.clone(), barrier.clone(), outcomes.clone());
            std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    barrier.wait();
                    let outcome = one(&plan, deadline).map_err(|e| format!("client {i}: {e}"));
                    outcomes.lock().expect("crowd outcomes").push(outcome);
                })
        })
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot start the crowd's threads: {e}"))?;
    for t in threads {
        t.join().map_err(|_| "a crowd client's thread panicked")?;
    }
    let crowd_took = start.elapsed();
    let mut report = CrowdReport {
        crowd_took,
        ..CrowdReport::default()
    };
    let outcomes = std::mem::take(&mut *outcomes.lock().expect("crowd outcomes"));
    for outcome in outcomes {
        match outcome? {
            Outcome::Served => report.served += 1,
            Outcome::TurnedAway => report.turned_away += 1,
            Outcome::Closed => report.closed += 1,
            Outcome::Reset => report.reset += 1,
            Outcome::Refused(e) => {
                report.refused += 1;
                report.first_refusal.get_or_insert(e);
            }
        }
    }
    Ok(report)
}

/// One client: connect, GET, judge the answer.
fn one(plan: &CrowdPlan, deadline: Instant) -> Result<Outcome, String> {
    let mut conn = match Conn::connect(plan.target, deadline) {
        Ok(conn) => conn,
        Err(e) => return Ok(Outcome::Refused(e)),
    };
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        plan.path
    );
    match conn.send(request.as_bytes()) {
        Ok(()) => {}
        Err(Broke::Cut(_)) => return Ok(Outcome::Reset),
        Err(Broke::Other(e)) => return Err(e),
    }
    let head = match conn.read_head() {
        Ok(head) => head,
        Err(HeadError::ClosedBeforeAnswer) => return Ok(Outcome::Closed),
        Err(HeadError::Cut(_)) => return Ok(Outcome::Reset),
        Err(HeadError::Other(e)) => return Err(e),
    };
    match head.status {
        200 => {
            let len = head
                .content_length
                .ok_or_else(|| format!("a 200 without Content-Length: {}", escape(&head.text)))?;
            let bytes = match &plan.expected {
                Expected::Bytes(b) if b.len() as u64 != len => {
                    return Err(format!("expected Content-Length {}, got {len}", b.len()))
                }
                Expected::Bytes(b) => Some(&b[..]),
                _ => None,
            };
            conn.body(len, bytes).map_err(Broke::message)?;
            Ok(Outcome::Served)
        }
        503 if retry_after(&head.text) => Ok(Outcome::TurnedAway),
        503 => Err(format!(
            "a 503 without Retry-After (a full server must say when to come back): {}",
            escape(&head.text)
        )),
        _ => Err(format!(
            "expected 200, or 503 from a full server; got {}",
            escape(&head.text)
        )),
    }
}

/// Whether a response head carries a `Retry-After` header.
fn retry_after(head: &[u8]) -> bool {
    head.split(|&b| b == b'\n')
        .any(|line| line.len() > 12 && line[..12].eq_ignore_ascii_case(b"retry-after:"))
}

#[cfg(test)]
mod tests {
    use super::retry_after;

    #[test]
    fn retry_after_is_found_in_any_case_and_only_as_a_header() {
        assert!(retry_after(
            b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\r\n"
        ));
        assert!(retry_after(b"HTTP/1.1 503 x\r\nretry-after: 2\r\n\r\n"));
        assert!(!retry_after(b"HTTP/1.1 503 x\r\nX-Retry-After: 2\r\n\r\n"));
        assert!(!retry_after(b"HTTP/1.1 503 x\r\nContent-Length: 0\r\n\r\n"));
    }
}
