//! Flows as text, for the shell's `flow` command: a request written as
//! words, and statistics as lines.
//!
//! ```text
//! flow create SOURCE [TRANSFORMER ...] SINK [buffer=BYTES] [priority=0..7] [rate=BYTES_PER_S] [replicas=1|2]
//!   sources:      pattern:COUNT:SEED   udp:PORT   blocks:FIRST:COUNT
//!   transformers: encrypt:MODE:KEY[:IV[:ENGINE]]   decrypt:...   crc32c
//!                 (MODE cbc|ctr, KEY 32/48/64 hex digits, IV 32 hex digits,
//!                  default zero; ENGINE any|device|software, default any)
//!   sinks:        null   check:SEED   blocks:FIRST:COUNT
//!                 file:PATH[:OFFSET[:LENGTH]]   tcp:A.B.C.D:PORT   udpto:A.B.C.D:PORT
//!   (file is a source too: LENGTH bytes from OFFSET, default the whole file)
//! ```
//!
//! For example `flow create pattern:1000:7 crc32c null` or
//! `flow create pattern:1000:7 encrypt:cbc:00112233445566778899aabbccddeeff decrypt:cbc:00112233445566778899aabbccddeeff check:7`.

use conflux_flow_protocol::api::{FlowRequest, FlowStats, RequestError, MAX_STAGES};
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{
    kind, Cipher, Direction, Engine, FilePath, Key, Mode, Peer, StageSpec,
};
use core::fmt;

/// The buffer size when none is given.
pub const DEFAULT_BUFFER: u32 = 1024;

/// Why the words are not a flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError<'a> {
    /// A word is not a stage or an option.
    Word(&'a str),
    /// A stage's field is missing or not a number (the word, the field).
    Field(&'a str, &'static str),
    /// More stages than a flow has.
    TooMany,
    /// The stages do not make a flow.
    Request(RequestError),
}

impl fmt::Display for ParseError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Word(w) => write!(f, "`{w}` is not a stage (pattern, udp, blocks, file, encrypt, decrypt, crc32c, null, check, tcp, udpto) or an option (buffer=, priority=, rate=, replicas=)"),
            Self::Field(w, what) => write!(f, "`{w}`: {what}"),
            Self::TooMany => write!(f, "a flow has at most {MAX_STAGES} stages"),
            Self::Request(e) => write!(f, "{e}"),
        }
    }
}

fn number<'a>(
    word: &'a str,
    field: Option<&str>,
    what: &'static str,
) -> Result<u64, ParseError<'a>> {
    field
        .and_then(|f| f.parse().ok())
        .ok_or(ParseError::Field(word, what))
}

fn hex<const N: usize>(s: &str) -> Option<([u8; N], usize)> {
    if !s.len().is_multiple_of(2) || s.len() > 2 * N {
        return None;
    }
    let mut out = [0; N];
    for (i, o) in out.iter_mut().enumerate().take(s.len() / 2) {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some((out, s.len() / 2))
}

fn cipher<'a>(
    word: &'a str,
    direction: Direction,
    mut f: core::str::Split<'a, char>,
) -> Result<StageSpec, ParseError<'a>> {
    let mode = match f.next() {
        Some("cbc") => Mode::Cbc,
        Some("ctr") => Mode::Ctr,
        _ => return Err(ParseError::Field(word, "the mode is cbc or ctr")),
    };
    let key = f
        .next()
        .and_then(hex::<32>)
        .and_then(|(k, n)| Key::new(&k[..n]))
        .ok_or(ParseError::Field(
            word,
            "the key is 32, 48 or 64 hex digits",
        ))?;
    let iv = match f.next() {
        None | Some("") => [0; 16],
        Some(s) => match hex::<16>(s) {
            Some((iv, 16)) => iv,
            _ => return Err(ParseError::Field(word, "the IV is 32 hex digits")),
        },
    };
    let engine = match f.next() {
        None | Some("any") => Engine::Any,
        Some("device") => Engine::Device,
        Some("software") => Engine::Software,
        _ => {
            return Err(ParseError::Field(
                word,
                "the engine is any, device or software",
            ))
        }
    };
    Ok(StageSpec::Cipher(Cipher {
        mode,
        direction,
        engine,
        key,
        iv,
    }))
}

/// `A.B.C.D:PORT` (the two fields after the stage's kind).
fn peer<'a>(word: &'a str, f: &mut core::str::Split<'a, char>) -> Result<Peer, ParseError<'a>> {
    const WHAT: &str = "the peer is A.B.C.D:PORT, PORT 1..=65535";
    let bad = ParseError::Field(word, WHAT);
    let mut addr = [0u8; 4];
    let mut octets = f.next().ok_or(bad.clone())?.split('.');
    for a in &mut addr {
        *a = octets
            .next()
            .and_then(|o| o.parse().ok())
            .ok_or(bad.clone())?;
    }
    let port = f.next().and_then(|p| p.parse::<u16>().ok());
    match (octets.next(), port, f.next()) {
        (None, Some(port @ 1..), None) => Ok(Peer { addr, port }),
        _ => Err(bad),
    }
}

/// `file:PATH[:OFFSET[:LENGTH]]`.
fn file<'a>(word: &'a str, mut f: core::str::Split<'a, char>) -> Result<StageSpec, ParseError<'a>> {
    const WHAT: &str = "file:PATH[:OFFSET[:LENGTH]], PATH absolute, at most 32 bytes";
    let path = f
        .next()
        .and_then(FilePath::new)
        .ok_or(ParseError::Field(word, WHAT))?;
    let mut field = || match f.next() {
        None => Ok(None),
        Some(n) => n
            .parse()
            .map(Some)
            .map_err(|_| ParseError::Field(word, WHAT)),
    };
    let offset = field()?.unwrap_or(0);
    let length = field()?.unwrap_or(u64::MAX);
    if f.next().is_some() {
        return Err(ParseError::Field(word, "too many fields"));
    }
    Ok(StageSpec::File {
        path,
        offset,
        length,
    })
}

/// One stage word.
fn stage(word: &str) -> Result<StageSpec, ParseError<'_>> {
    let mut f = word.split(':');
    let kind = f.next().unwrap_or("");
    let spec = match kind {
        "pattern" => StageSpec::Pattern {
            count: number(word, f.next(), "pattern:COUNT:SEED")?,
            seed: number(word, f.next(), "pattern:COUNT:SEED")?,
        },
        "udp" => StageSpec::Udp {
            port: number(word, f.next(), "udp:PORT, PORT 1..=65535")?
                .try_into()
                .ok()
                .filter(|p| *p != 0)
                .ok_or(ParseError::Field(word, "udp:PORT, PORT 1..=65535"))?,
        },
        "blocks" => StageSpec::Blocks {
            first: number(word, f.next(), "blocks:FIRST:COUNT (512-byte sectors)")?,
            count: number(word, f.next(), "blocks:FIRST:COUNT (512-byte sectors)")?,
        },
        "file" => return file(word, f),
        "tcp" => StageSpec::Tcp {
            peer: peer(word, &mut f)?,
        },
        "udpto" => StageSpec::UdpTo {
            peer: peer(word, &mut f)?,
        },
        "encrypt" => return cipher(word, Direction::Encrypt, f),
        "decrypt" => return cipher(word, Direction::Decrypt, f),
        "crc32c" => StageSpec::Crc32c,
        "null" => StageSpec::Null,
        "check" => StageSpec::Check {
            seed: number(word, f.next(), "check:SEED")?,
        },
        _ => return Err(ParseError::Word(word)),
    };
    if f.next().is_some() {
        return Err(ParseError::Field(word, "too many fields"));
    }
    Ok(spec)
}

/// The words after `flow create` as a request.
pub fn request<'a, S: AsRef<str>>(words: &'a [S]) -> Result<FlowRequest, ParseError<'a>> {
    let mut stages = [StageSpec::Null; MAX_STAGES];
    let mut n = 0;
    let (mut buffer, mut priority, mut rate, mut replicas) = (DEFAULT_BUFFER, 0u8, 0u64, 1u8);
    for w in words {
        let w = w.as_ref();
        if let Some(v) = w.strip_prefix("buffer=") {
            buffer = v
                .parse()
                .map_err(|_| ParseError::Field(w, "buffer=BYTES"))?;
        } else if let Some(v) = w.strip_prefix("priority=") {
            priority = v
                .parse()
                .map_err(|_| ParseError::Field(w, "priority=0..7"))?;
        } else if let Some(v) = w.strip_prefix("rate=") {
            rate = v
                .parse()
                .map_err(|_| ParseError::Field(w, "rate=BYTES_PER_S"))?;
        } else if let Some(v) = w.strip_prefix("replicas=") {
            replicas = v
                .parse()
                .map_err(|_| ParseError::Field(w, "replicas=1|2"))?;
        } else {
            *stages.get_mut(n).ok_or(ParseError::TooMany)? = stage(w)?;
            n += 1;
        }
    }
    if n < 2 {
        return Err(ParseError::Request(RequestError::StageCount(n as u64)));
    }
    FlowRequest::new(
        stages[0],
        &stages[1..n - 1],
        stages[n - 1],
        priority,
        rate,
        buffer,
    )
    .and_then(|r| r.with_replicas(replicas))
    .map_err(ParseError::Request)
}

/// Statistics as lines: the state and ladder, then one line per edge.
pub struct Lines<'a>(pub &'a FlowStats);

impl fmt::Display for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        let [retries, restarts, redirects, fallbacks] = s.ladder;
        write!(
            f,
            "{}; ladder: {retries} retries, {restarts} restarts, {redirects} redirects, {fallbacks} fallbacks; {} replications",
            s.state, s.replications
        )?;
        let [a, b] = s.sink;
        match s.sink_kind {
            kind::CHECK => {
                let (good, missing, repeated, damaged) = Tally::from_words(s.sink);
                write!(f, "\n  sink: {good} records good, {missing} missing, {repeated} repeated, {damaged} damaged")?;
            }
            // A blocks sink reports where it writes next and its bytes.
            kind::BLOCKS => write!(f, "\n  sink: next sector {a}, {b} bytes")?,
            0 => {}
            _ => write!(f, "\n  sink: {a} buffers, {b} bytes")?,
        }
        for (e, x) in s.edges[..s.edge_count.min(s.edges.len())]
            .iter()
            .enumerate()
        {
            write!(
                f,
                "\n  edge {e}: {} queued, {} buffers, {} bytes, {} dropped",
                x.queued, x.buffers, x.bytes, x.drops
            )?;
            // The edge's throughput from its first hand-over to its last,
            // once there is a span of time and a clock rate to read it by.
            let cycles = x.last.saturating_sub(x.first);
            if s.tsc_hz > 0 && cycles > 0 {
                let per_s = x.bytes as f64 * s.tsc_hz as f64 / cycles as f64;
                write!(f, ", {:.0} KiB/s", per_s / 1024.0)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conflux_flow_protocol::api::{EdgeFigures, FlowState, MAX_EDGES};

    #[test]
    fn the_documented_examples_parse() {
        let r = request(&["pattern:1000:7", "crc32c", "check:7"]).unwrap();
        assert_eq!(
            r.stages(),
            [
                StageSpec::Pattern {
                    count: 1000,
                    seed: 7
                },
                StageSpec::Crc32c,
                StageSpec::Check { seed: 7 }
            ]
        );
        assert_eq!((r.buffer, r.priority, r.rate), (1024, 0, 0));
        let key = "00112233445566778899aabbccddeeff";
        let r = request(&[
            "pattern:10:1".into(),
            format!("encrypt:cbc:{key}"),
            format!("decrypt:ctr:{key}{key}:{key}:software"),
            "null".into(),
            "buffer=4096".into(),
            "priority=3".into(),
            "replicas=2".into(),
        ])
        .unwrap();
        let StageSpec::Cipher(c) = r.stages()[2] else {
            panic!()
        };
        assert_eq!(
            (c.mode, c.direction, c.engine),
            (Mode::Ctr, Direction::Decrypt, Engine::Software)
        );
        assert_eq!(c.key.as_bytes().len(), 32);
        assert_eq!(c.iv[1], 0x11);
        assert_eq!((r.buffer, r.priority, r.replicas), (4096, 3, 2));
        assert_eq!(
            request(&["pattern:1:1", "null", "replicas=2"]),
            Err(ParseError::Request(RequestError::Replicas(2))),
            "nothing to replicate"
        );
    }

    #[test]
    fn files_and_peers_parse() {
        let r = request(&["file:/in/data:4096", "tcp:10.0.2.100:5800"]).unwrap();
        let [StageSpec::File {
            path,
            offset: 4096,
            length: u64::MAX,
        }, StageSpec::Tcp { peer }] = r.stages()
        else {
            panic!("{:?}", r.stages())
        };
        assert_eq!(
            (path.as_str(), peer.addr, peer.port),
            ("/in/data", [10, 0, 2, 100], 5800)
        );
        let r = request(&["pattern:9:1", "udpto:1.2.3.4:9", "buffer=512"]).unwrap();
        assert!(matches!(r.stages()[1], StageSpec::UdpTo { peer } if peer.port == 9));
        let r = request(&["blocks:0:8", "file:/out:0:100"]).unwrap();
        assert!(matches!(r.stages()[1], StageSpec::File { length: 100, .. }));
        for bad in [
            "tcp:1.2.3:80",
            "tcp:1.2.3.4.5:80",
            "tcp:1.2.3.4:0",
            "tcp:1.2.3.400:80",
            "udpto:1.2.3.4",
            "udpto:1.2.3.4:1:2",
        ] {
            assert!(
                matches!(request(&["pattern:1:1", bad]), Err(ParseError::Field(w, _)) if w == bad),
                "{bad}"
            );
        }
        for bad in ["file:relative", "file:/a:x", "file:/a:1:2:3", "file:/a/"] {
            assert!(
                matches!(request(&[bad, "null"]), Err(ParseError::Field(w, _)) if w == bad),
                "{bad}"
            );
        }
        assert_eq!(
            request(&["tcp:1.2.3.4:80", "null"]).unwrap_err(),
            ParseError::Request(RequestError::Misplaced { index: 0 })
        );
    }

    #[test]
    fn mistakes_name_the_word() {
        assert_eq!(
            request(&["pattern:1:1", "nul"]).unwrap_err(),
            ParseError::Word("nul")
        );
        assert!(matches!(
            request(&["pattern:x:1", "null"]),
            Err(ParseError::Field("pattern:x:1", _))
        ));
        assert!(matches!(
            request(&["udp:0", "null"]),
            Err(ParseError::Field("udp:0", _))
        ));
        assert!(matches!(
            request(&["pattern:1:1", "encrypt:cbc:00", "null"]),
            Err(ParseError::Field(_, _))
        ));
        assert!(matches!(
            request(&["pattern:1:1", "encrypt:ecb:00", "null"]),
            Err(ParseError::Field(_, _))
        ));
        assert!(matches!(
            request(&["null:1"]),
            Err(ParseError::Field("null:1", _))
        ));
        assert_eq!(
            request(&["null"]).unwrap_err(),
            ParseError::Request(RequestError::StageCount(1))
        );
        assert_eq!(
            request(&["null", "pattern:1:1"]).unwrap_err(),
            ParseError::Request(RequestError::Misplaced { index: 0 })
        );
        assert_eq!(
            request(&["pattern:1:1", "null", "buffer=100"]).unwrap_err(),
            ParseError::Request(RequestError::Buffer(100))
        );
        let many = ["crc32c"; 7];
        assert_eq!(request(&many).unwrap_err(), ParseError::TooMany);
        assert!(ParseError::Word("x").to_string().contains("not a stage"));
    }

    #[test]
    fn stats_print_a_line_per_edge() {
        let mut edges = [EdgeFigures::default(); MAX_EDGES];
        edges[1] = EdgeFigures {
            queued: 3,
            buffers: 10,
            bytes: 10240,
            drops: 1,
            first: 0,
            last: 0,
        };
        let s = FlowStats {
            state: FlowState::Recovering,
            ladder: [1, 2, 0, 0],
            sink: [0, 0],
            replications: 1,
            tsc_hz: 0,
            sink_kind: 0,
            edges,
            edge_count: 2,
        };
        assert_eq!(
            Lines(&s).to_string(),
            "recovering; ladder: 1 retries, 2 restarts, 0 redirects, 0 fallbacks; 1 replications\n  edge 0: 0 queued, 0 buffers, 0 bytes, 0 dropped\n  edge 1: 3 queued, 10 buffers, 10240 bytes, 1 dropped"
        );
        // A check sink's tally, and an edge's rate once the clock is known:
        // 10 KiB over a quarter of a second.
        let tally = Tally {
            good: 998,
            missing: 2,
            repeated: 1,
            damaged: 3,
            bytes: 0,
        };
        edges[1].first = 1000;
        edges[1].last = 1000 + 250_000;
        let s = FlowStats {
            state: FlowState::Done,
            sink: tally.to_words(),
            tsc_hz: 1_000_000,
            sink_kind: StageSpec::Check { seed: 1 }.kind(),
            edges,
            ..s
        };
        let text = Lines(&s).to_string();
        assert!(
            text.contains("\n  sink: 998 records good, 2 missing, 1 repeated, 3 damaged\n"),
            "{text}"
        );
        assert!(text.ends_with("1 dropped, 40 KiB/s"), "{text}");
        let s = FlowStats {
            sink: [10, 10240],
            sink_kind: StageSpec::Null.kind(),
            ..s
        };
        assert!(Lines(&s)
            .to_string()
            .contains("\n  sink: 10 buffers, 10240 bytes\n"));
        let s = FlowStats {
            sink: [2068, 10240],
            sink_kind: StageSpec::Blocks {
                first: 2048,
                count: 64,
            }
            .kind(),
            ..s
        };
        let text = Lines(&s).to_string();
        assert!(
            text.contains("\n  sink: next sector 2068, 10240 bytes\n"),
            "{text}"
        );
    }
}
