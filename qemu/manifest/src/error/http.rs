//! The messages of the rules on generated disk files (`devices.*.generate`)
//! and on a test's HTTP exchanges (`test.http`): one variant per rule.

use std::fmt;

use crate::suggest::Suggestion;

/// Why a `generate` entry was rejected.
#[derive(Debug)]
#[non_exhaustive]
pub enum GeneratedRule {
    /// Empty or absolute.
    NotRelative { value: String },
    /// Has a `..`, `.` or empty component.
    OddComponent { value: String },
    /// The same path twice.
    Duplicate { value: String, first: usize },
    /// `generate` on a disk not built from a folder.
    NeedsFolder,
    /// The files together are larger than the disk.
    TooLarge { total: u64, disk: u64 },
    /// More files than [`crate::limits::MAX_GENERATED_FILES`].
    TooMany { count: usize, max: usize },
    /// Not exactly one of `path` (a file) and `dir` (a directory of
    /// `files`), or `files` without `dir`.
    PathOrDir,
}

/// Why a `test.http` entry was rejected.
#[derive(Debug)]
#[non_exhaustive]
pub enum ExchangeRule {
    /// Not exactly one of the kind keys.
    Kind { found: Vec<&'static str> },
    /// A key the entry's kind does not take.
    KeyNotForKind {
        key: &'static str,
        kind: &'static str,
    },
    /// `port` is not a forwarded host port of the system.
    UnknownPort { port: u16, forwards: Vec<u16> },
    /// `body` names no body check.
    UnknownBody {
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// `body = "generated"` for a path that is not a generated file.
    NotGenerated { url: String, generated: Vec<String> },
    /// `body = "folder"` in a system without a folder disk.
    NoFolder,
    /// A URL path that does not start with `/` or holds spaces or controls.
    BadUrl { value: String },
    /// `send = ""`.
    EmptySend,
    /// Both `close` and `idle_secs`.
    CloseAndIdle,
    /// A raw exchange that waits for an answer without `expect_status`.
    NeedsStatus,
    /// `http` in a crash test.
    WithCrash,
    /// A hold's `body` or `probe_secs` without a `probe`.
    WithoutProbe { key: &'static str },
    /// A conditional exchange whose `body` gives no bytes to compare
    /// ranges with.
    NeedsBytes { body: &'static str },
}

impl fmt::Display for GeneratedRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeneratedRule::NotRelative { value } => write!(
                f,
                "the path {value:?} is not relative; write it inside the disk, as `data/file.bin`"
            ),
            GeneratedRule::OddComponent { value } => write!(
                f,
                "the path {value:?} has a `..`, `.` or empty component; name the file plainly (`dir/file`), inside the disk"
            ),
            GeneratedRule::Duplicate { value, first } => write!(
                f,
                "the path {value:?} is generated already by entry [{first}]; generate each file once"
            ),
            GeneratedRule::NeedsFolder => f.write_str(
                "generated files are added to a disk built from a folder: give the device `folder` and `size_mib`",
            ),
            GeneratedRule::TooLarge { total, disk } => write!(
                f,
                "the generated files take {total} bytes, more than the disk's {disk}; make the disk (`size_mib`) larger or the files smaller"
            ),
            GeneratedRule::TooMany { count, max } => write!(
                f,
                "{count} files are generated, more than the {max} a disk may have; put the rest in the folder"
            ),
            GeneratedRule::PathOrDir => write!(
                f,
                "an entry is either a file, `{{ path, size, seed }}`, or a directory of files, `{{ dir, files, size, seed }}`; write exactly one of `path` and `dir`, and `files` only with `dir`"
            ),
        }
    }
}

impl fmt::Display for ExchangeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExchangeRule::Kind { found } if found.is_empty() => f.write_str(
                "says nothing to do; give exactly one of `get`, `head`, `send`, `send_header_bytes`, `hold`, `conditional` or `crowd`",
            ),
            ExchangeRule::Kind { found } => write!(
                f,
                "has {}; give exactly one of `get`, `head`, `send`, `send_header_bytes`, `hold`, `conditional` or `crowd` (one exchange does one thing)",
                found.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" and ")
            ),
            ExchangeRule::KeyNotForKind { key, kind } => write!(
                f,
                "has `{key}`, which a {kind} exchange does not take; remove it or change the kind"
            ),
            ExchangeRule::UnknownPort { port, forwards } if forwards.is_empty() => write!(
                f,
                "`port` is {port}, but the system forwards no port; add `forwards = [{{ host = {port}, guest = ... }}]` to its virtio-net device"
            ),
            ExchangeRule::UnknownPort { port, forwards } => write!(
                f,
                "`port` is {port}, which is not a forwarded host port of the system (those are {}); use one of them",
                forwards.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")
            ),
            ExchangeRule::UnknownBody { value, suggestion } => {
                write!(f, "`body` is {value:?}, which is not a body check; {suggestion}")
            }
            ExchangeRule::NotGenerated { url, generated } if generated.is_empty() => write!(
                f,
                "checks {url:?} against a generated file, but the system generates none; add it to its disk's `generate` or use `body = \"folder\"`"
            ),
            ExchangeRule::NotGenerated { url, generated } => write!(
                f,
                "checks {url:?} against a generated file, but that path is not generated (generated: {}); fix the path or use `body = \"folder\"`",
                generated.iter().map(|g| format!("/{g}")).collect::<Vec<_>>().join(", ")
            ),
            ExchangeRule::NoFolder => f.write_str(
                "has `body = \"folder\"`, but the system has no disk built from a folder; add one or check the body another way",
            ),
            ExchangeRule::BadUrl { value } => write!(
                f,
                "the path {value:?} is not a URL path; start it with `/` and use no spaces or control characters"
            ),
            ExchangeRule::EmptySend => f.write_str(
                "has `send = \"\"`; send at least one byte (to test an idle connection, send a partial request and use `idle_secs`)",
            ),
            ExchangeRule::CloseAndIdle => f.write_str(
                "has both `close` (shut the sending side at once) and `idle_secs` (stay connected and quiet); choose one",
            ),
            ExchangeRule::NeedsStatus => f.write_str(
                "waits for an answer but has no `expect_status`; say which status the server must answer (for example 400)",
            ),
            ExchangeRule::WithoutProbe { key } => write!(
                f,
                "has `{key}`, which is about a hold's probe, but no `probe`; add `probe = \"/path\"` (a normal client's GET beside the held peers) or remove `{key}`"
            ),
            ExchangeRule::NeedsBytes { body } => write!(
                f,
                "is a conditional exchange with `body = \"{body}\"`, but its ranges are checked byte for byte: use `body = \"generated\"` or `body = \"folder\"`"
            ),
            ExchangeRule::WithCrash => f.write_str(
                "is in a crash test; a crash test kills QEMU on its own schedule, so exchanges and `crash` do not go together: make a separate test",
            ),
        }
    }
}
