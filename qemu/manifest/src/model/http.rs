//! Host-side HTTP exchanges of a test (`[test] http = [...]`) and the
//! generated files of a folder disk (`[devices.NAME] generate = [...]`),
//! as the validated manifest holds them. The runner performs the
//! exchanges against forwarded ports (`qemu/runner/src/http_peer.rs`).

/// One `generate` entry: a file of `size` bytes that the runner adds, at
/// `path` (relative, `/`-separated, no `..`), to the disk built from the
/// folder. Its bytes come from `seed` through the runner's one generator
/// (xorshift64, see `qemu/runner/src/disks/generate.rs`).
///
/// With `files` (written `{ dir = "ls/5000", files = 5000, size = 0,
/// seed = 5 }`), `path` is a directory of that many files of `size` bytes
/// each, named by the runner (`f00000`, `f00001`, ...): directories as
/// large as `ls -l` benchmarks list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: String,
    pub size: u64,
    pub seed: u64,
    /// `Some(n)`: `path` is a directory of `n` generated files.
    pub files: Option<u32>,
}

impl GeneratedFile {
    /// The bytes all its files take together.
    pub fn total(&self) -> u64 {
        self.size.saturating_mul(u64::from(self.files.unwrap_or(1)))
    }
}

/// One `[test] http` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpExchange {
    /// The host port of one of the system's forwards (on 127.0.0.1).
    pub port: u16,
    /// The console text after which the exchange starts.
    pub after: String,
    /// Start it and go on with the next exchange at once; it is joined and
    /// judged with the others at the end.
    pub background: bool,
    /// Time the whole exchange may take, from its start.
    pub deadline_secs: u32,
    pub kind: HttpKind,
}

/// What an exchange does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpKind {
    /// Well-formed requests whose answers are checked.
    Fetch(Fetch),
    /// Bytes written as they are, and the one answer expected.
    Raw(Raw),
    /// Peers that take a connection and stop reading; a normal client
    /// beside them.
    Hold(Hold),
    /// Range and conditional requests, `Date`, and the status page's
    /// counters, on one file (rules: `qemu/runner/src/http_peer/
    /// conditional.rs`).
    Conditional(Conditional),
    /// Many clients connecting at once, then one normal client.
    Crowd(Crowd),
}

/// `conditional = "/path"` with `body` ("generated" or "folder": the
/// ranges are checked byte for byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conditional {
    pub path: String,
    pub body: BodyCheck,
}

/// `crowd = "/path"` with `clients`, `body` and `probe_secs` (rules:
/// `qemu/runner/src/http_peer/crowd.rs`): `clients` connections opened at
/// once, each GETs `path`; then a normal client's GET of it must be
/// served 200 within `probe_secs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crowd {
    pub path: String,
    pub body: BodyCheck,
    pub clients: u32,
    pub probe_secs: u32,
}

/// `get = "/path"` or `head = "/path"`, with `paths`, `status`, `body`,
/// `clients` and `requests`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    pub method: Method,
    /// The paths each client cycles through (the `get`/`head` path first).
    pub paths: Vec<String>,
    pub status: u16,
    pub body: BodyCheck,
    /// Concurrent connections, each on its own thread.
    pub clients: u32,
    /// Requests per client, kept alive on one connection.
    pub requests: u32,
    /// `may_cut_secs`: an answer may end early (a reset, a close, or this
    /// many seconds without a byte) if what came was right; the client
    /// then stops. For a server restarted mid-transfer on purpose.
    pub may_cut_secs: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
}

/// What a fetched body must be (for HEAD: what `Content-Length` must say,
/// with no body bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyCheck {
    /// The generated file at the URL path (without its leading `/`).
    Generated,
    /// The file of the disk folder at the URL path.
    Folder,
    /// Zero bytes.
    Empty,
    /// Not checked (its `Content-Length` still delimits it).
    None,
}

/// A raw exchange: `send` or `send_header_bytes`, then `close` or
/// `idle_secs` or neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raw {
    pub send: RawSend,
    /// The status code the answer's status line must carry; `None` only
    /// with [`Then::Close`] (then any status line, or none, passes).
    pub expect_status: Option<u16>,
    pub then: Then,
}

/// `hold = "/path"` with `peers`, `served`, `hold_secs`, `cut` and optionally
/// `probe`, `body` and `probe_secs` (rules: `qemu/runner/src/http_peer/
/// hold.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    /// What each peer GETs before it stops reading.
    pub path: String,
    /// Connections opened, one at a time.
    pub peers: u32,
    /// How many of them at least must be served 200 (the rest may be
    /// answered 503).
    pub served: u32,
    /// How long the peers stay quiet once the last one was answered.
    pub hold_secs: u32,
    /// Each answer served 200 must have been cut by the end of the hold.
    pub cut: bool,
    /// A normal client's fetch while the peers hold.
    pub probe: Option<HoldProbe>,
}

/// `probe = "/path"`, `body`, `probe_secs`: must be served 200 within
/// `within_secs` (503s are tried again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldProbe {
    pub path: String,
    pub body: BodyCheck,
    pub within_secs: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawSend {
    /// These bytes (the TOML string's UTF-8).
    Text(String),
    /// A request head of at least this many bytes: a request line, then
    /// header lines until the size is reached, then the blank line.
    HeaderFlood(u64),
}

/// What the peer does after sending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// Wait for the status line.
    Wait,
    /// Shut its sending side (a truncated request), then wait for the
    /// server to close.
    Close,
    /// Stay quiet; the server must answer or close within this many
    /// seconds.
    Idle(u32),
}

impl BodyCheck {
    pub const ALL: [BodyCheck; 4] = [
        BodyCheck::Generated,
        BodyCheck::Folder,
        BodyCheck::Empty,
        BodyCheck::None,
    ];
    pub const NAMES: &'static [&'static str] = &["generated", "folder", "empty", "none"];

    pub fn as_str(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|b| *b == self).expect("listed")]
    }
}

impl HttpKind {
    /// The kind's name in messages and logs.
    pub fn name(&self) -> &'static str {
        match self {
            HttpKind::Fetch(f) if f.method == Method::Head => "head",
            HttpKind::Fetch(_) => "get",
            HttpKind::Raw(Raw {
                send: RawSend::HeaderFlood(_),
                ..
            }) => "header flood",
            HttpKind::Raw(Raw {
                then: Then::Close, ..
            }) => "truncated",
            HttpKind::Raw(Raw {
                then: Then::Idle(_),
                ..
            }) => "idle",
            HttpKind::Raw(_) => "raw",
            HttpKind::Hold(_) => "hold",
            HttpKind::Conditional(_) => "conditional",
            HttpKind::Crowd(_) => "crowd",
        }
    }
}
