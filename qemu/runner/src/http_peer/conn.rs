//! One client connection with a deadline: reads a response head and
//! checks a body against the bytes expected, never waiting past the
//! deadline.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::{escape, status_of, Target};

/// The largest response head the peer reads.
const MAX_HEAD: usize = 64 * 1024;
/// Bytes read at once.
const CHUNK: usize = 64 * 1024;

pub(super) struct Conn {
    stream: TcpStream,
    /// Read but not yet consumed.
    buf: Vec<u8>,
    deadline: Instant,
    /// Silence that counts as the answer being cut short (a fetch that
    /// allows cuts); without it only the deadline ends a wait.
    stall: Option<Duration>,
}

/// Why reading an answer stopped early.
pub(super) enum Broke {
    /// The answer was cut short: the connection was reset or closed, or
    /// (with a stall time) went silent. What came before was right.
    Cut(String),
    /// Anything else: a wrong byte, the deadline.
    Other(String),
}

impl Broke {
    pub fn message(self) -> String {
        match self {
            Broke::Cut(m) | Broke::Other(m) => m,
        }
    }
}

/// A response head.
pub(super) struct Head {
    pub status: u16,
    pub content_length: Option<u64>,
    /// The server said `Connection: close`.
    pub close: bool,
    /// The head as it came, for messages.
    pub text: Vec<u8>,
}

/// Why a head could not be read.
pub(super) enum HeadError {
    /// The server closed before sending a byte of it (a kept-alive
    /// connection it chose to end: the request may be sent again).
    ClosedBeforeAnswer,
    /// The connection was reset, or went silent past the stall time.
    Cut(String),
    Other(String),
}

impl Conn {
    pub fn connect(target: Target, deadline: Instant) -> Result<Self, String> {
        let wait = remaining(deadline).ok_or("the deadline passed before connecting")?;
        let stream = super::gate::connect(target.addr(), wait)
            .map_err(|e| format!("cannot connect to 127.0.0.1:{}: {e}", target.port()))?;
        let _ = stream.set_nodelay(true);
        Ok(Self {
            stream,
            buf: Vec::new(),
            deadline,
            stall: None,
        })
    }

    /// From now on, `stall` without a byte ends a read as [`Broke::Cut`].
    pub fn cut_after(&mut self, stall: Duration) {
        self.stall = Some(stall);
    }

    pub fn send(&mut self, bytes: &[u8]) -> Result<(), Broke> {
        let wait = remaining(self.deadline)
            .ok_or_else(|| Broke::Other("the deadline passed before sending".into()))?;
        let _ = self.stream.set_write_timeout(Some(wait));
        self.stream.write_all(bytes).map_err(|e| {
            let message = format!("sending the request failed: {e}");
            if reset(&e) {
                Broke::Cut(message)
            } else {
                Broke::Other(message)
            }
        })
    }

    /// Reads more bytes into the buffer: `Ok(0)` at end of stream.
    fn fill(&mut self) -> Result<usize, Broke> {
        let left = remaining(self.deadline)
            .ok_or_else(|| Broke::Other("no answer before the deadline".into()))?;
        let wait = self.stall.map_or(left, |s| s.min(left));
        let _ = self.stream.set_read_timeout(Some(wait));
        let mut chunk = vec![0; CHUNK];
        match self.stream.read(&mut chunk) {
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(n)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                match self.stall {
                    Some(s) if wait < left => {
                        Err(Broke::Cut(format!("no byte for {:.1} s", s.as_secs_f64())))
                    }
                    _ => Err(Broke::Other("no answer before the deadline".into())),
                }
            }
            Err(e) if reset(&e) => Err(Broke::Cut(format!("reading the answer failed: {e}"))),
            Err(e) => Err(Broke::Other(format!("reading the answer failed: {e}"))),
        }
    }

    pub fn read_head(&mut self) -> Result<Head, HeadError> {
        let end = loop {
            if let Some(at) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(HeadError::Other(format!(
                    "the head is longer than {MAX_HEAD} bytes: {}",
                    escape(&self.buf)
                )));
            }
            match self.fill() {
                Ok(0) if self.buf.is_empty() => return Err(HeadError::ClosedBeforeAnswer),
                Ok(0) => {
                    return Err(HeadError::Other(format!(
                        "the server closed within the head: {}",
                        escape(&self.buf)
                    )))
                }
                Ok(_) => {}
                Err(Broke::Cut(e)) => {
                    return Err(HeadError::Cut(format!("{e}; got {}", escape(&self.buf))))
                }
                Err(Broke::Other(e)) => {
                    return Err(HeadError::Other(format!("{e}; got {}", escape(&self.buf))))
                }
            }
        };
        let text: Vec<u8> = self.buf.drain(..end).collect();
        parse_head(text).map_err(HeadError::Other)
    }

    /// Reads `len` body bytes, comparing them with `expected` when given
    /// (of the same length). A cut says how far the body got.
    pub fn body(&mut self, len: u64, expected: Option<&[u8]>) -> Result<(), Broke> {
        let mut at = 0u64;
        while at < len {
            if self.buf.is_empty() {
                match self.fill() {
                    Ok(0) => {
                        return Err(Broke::Cut(format!(
                            "the server closed after {at} of {len} body bytes"
                        )))
                    }
                    Ok(_) => {}
                    Err(Broke::Cut(e)) => {
                        return Err(Broke::Cut(format!("{e} after {at} of {len} body bytes")))
                    }
                    Err(other) => return Err(other),
                }
            }
            let take = self
                .buf
                .len()
                .min(usize::try_from(len - at).unwrap_or(usize::MAX));
            if let Some(want) = expected {
                let from = usize::try_from(at).expect("bodies fit memory");
                let got = &self.buf[..take];
                if let Some(i) = got.iter().zip(&want[from..]).position(|(a, b)| a != b) {
                    let off = from + i;
                    return Err(Broke::Other(format!(
                        "the body differs at byte {off}: expected {}, got {}",
                        escape(&want[off..(off + 16).min(want.len())]),
                        escape(&got[i..(i + 16).min(got.len())])
                    )));
                }
            }
            self.buf.drain(..take);
            at += take as u64;
        }
        Ok(())
    }
}

impl Conn {
    /// Reads a body of `len` bytes (at most 1 MiB) and returns it.
    pub fn body_bytes(&mut self, len: u64) -> Result<Vec<u8>, Broke> {
        if len > 1 << 20 {
            return Err(Broke::Other(format!(
                "a body of {len} bytes is more than this peer keeps (1 MiB)"
            )));
        }
        while (self.buf.len() as u64) < len {
            match self.fill() {
                Ok(0) => {
                    return Err(Broke::Cut(format!(
                        "the server closed after {} of {len} body bytes",
                        self.buf.len()
                    )))
                }
                Ok(_) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.buf.drain(..len as usize).collect())
    }
}

/// How reading on, after a pause, ended ([`Conn::read_on`]).
pub(super) enum ReadOn {
    /// The stream ended (or was reset, or failed) before the body's end.
    Ended { reset: bool },
    /// The whole body came.
    Whole,
    /// Still open when the time was up, `got` body bytes in.
    Open { got: u64 },
}

impl Conn {
    /// Reads what is left of a body of `len` bytes, whose head was read,
    /// dropping it, until its end, the stream's end or `until`.
    pub fn read_on(&mut self, len: u64, until: Instant) -> ReadOn {
        let mut got = self.buf.len() as u64;
        self.buf.clear();
        let mut chunk = vec![0; CHUNK];
        loop {
            if got >= len {
                return ReadOn::Whole;
            }
            let Some(wait) = remaining(until) else {
                return ReadOn::Open { got };
            };
            let _ = self.stream.set_read_timeout(Some(wait));
            match self.stream.read(&mut chunk) {
                Ok(0) => return ReadOn::Ended { reset: false },
                Ok(n) => got += n as u64,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return ReadOn::Open { got }
                }
                Err(e) => return ReadOn::Ended { reset: reset(&e) },
            }
        }
    }
}

/// The status, `Content-Length` and `Connection: close` of `text`.
fn parse_head(text: Vec<u8>) -> Result<Head, String> {
    let status =
        status_of(&text).ok_or_else(|| format!("no valid status line: {}", escape(&text)))?;
    let mut content_length = None;
    let mut close = text.starts_with(b"HTTP/1.0");
    for line in text.split(|b| *b == b'\n').skip(1) {
        let line = String::from_utf8_lossy(line);
        let Some((name, value)) = line.trim_end().split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            let n = value
                .parse()
                .map_err(|_| format!("a Content-Length that is not a number: {}", escape(&text)))?;
            content_length = Some(n);
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close");
        }
    }
    Ok(Head {
        status,
        content_length,
        close,
        text,
    })
}

/// An error that means the peer reset or dropped the connection.
pub(super) fn reset(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe
    )
}

/// Time left until `deadline`, if any.
pub(super) fn remaining(deadline: Instant) -> Option<std::time::Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
}
