//! Raw exchanges: bytes written as they are, and the answer judged.
//!
//! A reader thread collects the answer while the bytes are written, so an
//! answer the server sends before reading everything (a 431 in the middle
//! of a header flood, then a close) is kept even if writing then fails.
//! Write errors are noted, not failures: the answer decides. The rules
//! ([`RawThen`]), where "a status line" is a whole `HTTP/1.x NNN ...\r\n`
//! at the start of the answer:
//!
//! - `Wait`: the answer starts with a status line with the expected code
//!   before the deadline; what follows (more bytes, a close, a reset)
//!   does not matter.
//! - `Close`: after the bytes the peer shuts its sending side; the server
//!   must then end the connection (end of stream or reset) before the
//!   deadline, having sent nothing or a status line (with the expected
//!   code, if one is given).
//! - `Idle(n)`: the peer stays quiet; within `n` after its last byte the
//!   server must send a status line with the expected code, or end the
//!   connection having sent nothing.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::conn::remaining;
use super::{escape, status_of, Target};

/// What the peer does after its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawThen {
    Wait,
    Close,
    Idle(Duration),
}

#[derive(Debug, Clone)]
pub struct RawPlan {
    pub target: Target,
    pub send: Vec<u8>,
    pub then: RawThen,
    /// Required except with `Close`.
    pub expect_status: Option<u16>,
    /// For the whole exchange, from its start.
    pub deadline: Duration,
}

/// How the answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// A whole status line came (the peer stopped reading there).
    StatusLine,
    /// End of stream.
    Closed,
    /// A read error (a reset, mostly).
    Error(String),
    /// Nothing more came before the deadline.
    Deadline,
}

/// What a passed raw exchange saw.
#[derive(Debug, Clone)]
pub struct RawReport {
    pub answer: Vec<u8>,
    pub ending: Ending,
    /// Bytes written, and why writing stopped early if it did.
    pub sent: usize,
    pub write_error: Option<String>,
    pub elapsed: Duration,
}

impl RawReport {
    /// One line for the log.
    pub fn summary(&self) -> String {
        let answer = match status_of(&self.answer) {
            Some(_) => {
                let end = self.answer.iter().position(|b| *b == b'\r').unwrap_or(0);
                format!("answered {}", escape(&self.answer[..end]))
            }
            None => "no answer".to_owned(),
        };
        let write = match &self.write_error {
            Some(e) => format!(", writing stopped after {} bytes ({e})", self.sent),
            None => String::new(),
        };
        format!(
            "{answer}, then {:?} after {} ms{write}",
            self.ending,
            self.elapsed.as_millis()
        )
    }
}

/// A request head of at least `bytes` bytes: a request line, `X-Flood-N`
/// header lines of up to 1000 bytes, the blank line.
pub fn flood_head(bytes: u64) -> Vec<u8> {
    let want = usize::try_from(bytes).expect("floods are at most 64 MiB");
    let mut out = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".to_vec();
    let mut n = 0;
    while out.len() + 2 < want {
        let name = format!("X-Flood-{n}: ");
        let fill = (want - out.len() - 2)
            .saturating_sub(name.len() + 2)
            .clamp(1, 1000);
        out.extend_from_slice(name.as_bytes());
        out.extend(std::iter::repeat_n(b'a', fill));
        out.extend_from_slice(b"\r\n");
        n += 1;
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// Runs `plan`: `Ok` with what was seen when the answer obeys the rule.
pub fn raw(plan: &RawPlan) -> Result<RawReport, String> {
    let start = Instant::now();
    let deadline = start + plan.deadline;
    let wait = remaining(deadline).ok_or("the deadline passed before connecting")?;
    let mut stream = super::gate::connect(plan.target.addr(), wait)
        .map_err(|e| format!("cannot connect to 127.0.0.1:{}: {e}", plan.target.port()))?;
    let reader = stream
        .try_clone()
        .map_err(|e| format!("cannot clone the socket: {e}"))?;
    let until_status = plan.then != RawThen::Close;
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        let _ = tx.send(read_answer(reader, deadline, until_status));
    });
    let (sent, write_error) = write_all(&mut stream, &plan.send, deadline);
    let judge_by = match plan.then {
        RawThen::Close => {
            let _ = stream.shutdown(Shutdown::Write);
            deadline
        }
        RawThen::Idle(n) => deadline.min(Instant::now() + n),
        RawThen::Wait => deadline,
    };
    let (answer, ending) = match rx.recv_timeout(remaining(judge_by).unwrap_or_default()) {
        Ok(result) => result,
        Err(_) => {
            // Past the rule's time: end the reader and keep what it has.
            let _ = stream.shutdown(Shutdown::Both);
            let answer = rx.recv_timeout(Duration::from_secs(5)).map(|(a, _)| a);
            (answer.unwrap_or_default(), Ending::Deadline)
        }
    };
    let _ = thread.join();
    let report = RawReport {
        answer,
        ending,
        sent,
        write_error,
        elapsed: start.elapsed(),
    };
    match verdict(plan, &report) {
        None => Ok(report),
        Some(problem) => Err(format!(
            "{problem}; got {} ({:?} after {} ms{})",
            escape(&report.answer),
            report.ending,
            report.elapsed.as_millis(),
            report
                .write_error
                .as_ref()
                .map(|e| format!("; writing stopped after {} bytes: {e}", report.sent))
                .unwrap_or_default()
        )),
    }
}

/// Writes `bytes` in pieces until done, an error, or the deadline.
fn write_all(stream: &mut TcpStream, bytes: &[u8], deadline: Instant) -> (usize, Option<String>) {
    let mut sent = 0;
    for piece in bytes.chunks(16 * 1024) {
        let Some(wait) = remaining(deadline) else {
            return (sent, Some("the deadline passed".into()));
        };
        let _ = stream.set_write_timeout(Some(wait));
        if let Err(e) = stream.write_all(piece) {
            return (sent, Some(e.to_string()));
        }
        sent += piece.len();
    }
    (sent, None)
}

/// Reads until the end of stream, an error, the deadline, or (with
/// `until_status`) a whole status line.
fn read_answer(mut stream: TcpStream, deadline: Instant, until_status: bool) -> (Vec<u8>, Ending) {
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if until_status && answer.windows(2).any(|w| w == b"\r\n") {
            return (answer, Ending::StatusLine);
        }
        let Some(wait) = remaining(deadline) else {
            return (answer, Ending::Deadline);
        };
        let _ = stream.set_read_timeout(Some(wait));
        match stream.read(&mut chunk) {
            Ok(0) => return (answer, Ending::Closed),
            // Bounded: an endless answer is cut off at 1 MiB.
            Ok(n) if answer.len() < 1 << 20 => answer.extend_from_slice(&chunk[..n]),
            Ok(_) => return (answer, Ending::Error("more than 1 MiB of answer".into())),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return (answer, Ending::Deadline)
            }
            Err(e) => return (answer, Ending::Error(e.to_string())),
        }
    }
}

/// What is wrong with `report` under `plan`'s rule, if anything.
fn verdict(plan: &RawPlan, report: &RawReport) -> Option<String> {
    let status = status_of(&report.answer);
    let closed = matches!(report.ending, Ending::Closed | Ending::Error(_));
    let status_ok = |code: Option<u16>| match plan.expect_status {
        Some(want) => code == Some(want),
        None => code.is_some(),
    };
    let want = match plan.expect_status {
        Some(code) => format!("a status line with {code}"),
        None => "a status line".to_owned(),
    };
    match plan.then {
        RawThen::Wait if status_ok(status) => None,
        RawThen::Wait => Some(format!("expected {want}")),
        RawThen::Close if !closed => Some(format!(
            "expected the server to close the connection before the deadline ({} s) after the request was cut short",
            plan.deadline.as_secs()
        )),
        RawThen::Close if report.answer.is_empty() || status_ok(status) => None,
        RawThen::Close => Some(format!("expected nothing or {want} before the close")),
        RawThen::Idle(_) if status_ok(status) => None,
        RawThen::Idle(_) if closed && report.answer.is_empty() => None,
        RawThen::Idle(n) => Some(format!(
            "expected {want}, or a close with nothing sent, within {:.1} s of the last byte sent",
            n.as_secs_f64()
        )),
    }
}
