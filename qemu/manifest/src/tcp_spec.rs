//! `[test] tcp_sink = [...]`: streams the runner receives from the guest
//! (how tests check a flow's `tcp` sink). Keys: `port` (a host port of the
//! system's `guest_forwards`, [`check`]) and either `count`
//! (1..=10,000,000 records), `size` (16..=1 MiB bytes each, whole 16-byte
//! blocks) and `seed` — self-checking records — or `file` (a `generate`
//! entry's path on the system's folder disk) and `chunk` (16..=1 MiB,
//! whole 16-byte blocks, dividing the file's size) — the file's bytes;
//! optionally `key` and `iv` (32 hex digits each, both or neither): each
//! record or chunk was encrypted on its own with AES-128-CBC; optionally
//! `may_cut_secs` (1..=600): the stream may end early, or go quiet that
//! long, if every whole unit before is right, and with it `cut_at_unit =
//! true`: only between units.

use crate::error::Error;
use crate::limits::MIN_HOST_PORT;
use crate::model::{DiskImage, Manifest, SinkContent, TcpSink};
use crate::rules::{self, Unit};
use crate::strict::Fields;
use crate::udp_spec::{bad, hex16};

const KEYS: &[&str] = &[
    "port",
    "count",
    "size",
    "seed",
    "file",
    "chunk",
    "key",
    "iv",
    "may_cut_secs",
    "cut_at_unit",
];

/// Reads `test.tcp_sink`.
pub(crate) fn read(fields: &Fields) -> Result<Vec<TcpSink>, Error> {
    let entries = fields
        .optional::<Vec<&toml::Table>>("tcp_sink")?
        .unwrap_or_default();
    entries
        .into_iter()
        .enumerate()
        .map(|(index, table)| {
            let path = format!("{}[{index}]", fields.path_of("tcp_sink"));
            sink(&Fields::new(fields.origin(), path, table, KEYS)?)
        })
        .collect()
}

/// A unit size: bytes, whole AES blocks.
fn unit(entry: &Fields, key: &'static str) -> Result<u32, Error> {
    let size: u32 = rules::integer(entry, key, None, 16, 1 << 20, Unit::Bytes)?;
    if !size.is_multiple_of(16) {
        return Err(bad(entry, key, "use whole 16-byte AES blocks"));
    }
    Ok(size)
}

fn sink(entry: &Fields) -> Result<TcpSink, Error> {
    let content = match entry.optional::<&str>("file")? {
        Some(path) => {
            for key in ["count", "size", "seed"] {
                if entry.has(key) {
                    return Err(bad(entry, key, "a `file` sink takes `chunk`, not `count`, `size` or `seed` (they are the file's)"));
                }
            }
            SinkContent::File {
                path: path.trim_start_matches('/').to_owned(),
                chunk: unit(entry, "chunk")?,
            }
        }
        None => {
            if entry.has("chunk") {
                return Err(bad(
                    entry,
                    "chunk",
                    "`chunk` goes with `file`; records take `size`",
                ));
            }
            let seed: i64 = entry.required("seed")?;
            SinkContent::Records {
                count: rules::integer(entry, "count", None, 1, 10_000_000, Unit::Count)?,
                size: unit(entry, "size")?,
                seed: seed.unsigned_abs(),
            }
        }
    };
    let cipher = match (entry.has("key"), entry.has("iv")) {
        (false, false) => None,
        (true, true) => Some((hex16(entry, "key")?, hex16(entry, "iv")?)),
        (true, false) => return Err(bad(entry, "iv", "give `iv` with `key`, or neither")),
        (false, true) => return Err(bad(entry, "key", "give `key` with `iv`, or neither")),
    };
    Ok(TcpSink {
        port: rules::integer(entry, "port", None, MIN_HOST_PORT, u16::MAX, Unit::Count)?,
        content,
        cipher,
        may_cut_secs: entry
            .has("may_cut_secs")
            .then(|| rules::integer(entry, "may_cut_secs", None, 1, 600, Unit::Count))
            .transpose()?,
        cut_at_unit: match entry.optional::<bool>("cut_at_unit")? {
            Some(true) if !entry.has("may_cut_secs") => {
                return Err(bad(
                    entry,
                    "cut_at_unit",
                    "`cut_at_unit` goes with `may_cut_secs`",
                ))
            }
            v => v.unwrap_or(false),
        },
    })
}

/// Each sink's port is a host port of the system's guest forwards, once;
/// a `file` sink's file is a generated file of the folder disk whose size
/// the chunk divides.
pub(crate) fn check(manifest: &Manifest) -> Result<(), Error> {
    let Some(test) = &manifest.test else {
        return Ok(());
    };
    let hosts: Vec<u16> = manifest
        .devices
        .iter()
        .flat_map(|d| d.guest_forwards.iter())
        .map(|f| f.host)
        .collect();
    for (index, sink) in test.tcp_sink.iter().enumerate() {
        let twice = test.tcp_sink[..index].iter().any(|s| s.port == sink.port);
        if !hosts.contains(&sink.port) || twice {
            return Err(Error::TcpSinkPort {
                origin: manifest.origin.clone(),
                path: format!("test.tcp_sink[{index}].port"),
                port: sink.port,
                hosts: hosts.clone(),
                twice,
            });
        }
        if let SinkContent::File { path, chunk } = &sink.content {
            let why = match generated(manifest, path) {
                None => Some("is not a `generate` file of the system's folder disk"),
                Some(size) if size == 0 || size % u64::from(*chunk) != 0 => {
                    Some("has a size `chunk` does not divide (or is empty)")
                }
                Some(_) => None,
            };
            if let Some(why) = why {
                return Err(Error::TcpSinkFile {
                    origin: manifest.origin.clone(),
                    path: format!("test.tcp_sink[{index}].file"),
                    file: path.clone(),
                    why,
                });
            }
        }
    }
    Ok(())
}

/// The size of the folder disk's generated file `path`, if it has one.
pub fn generated(manifest: &Manifest, path: &str) -> Option<u64> {
    manifest.devices.iter().find_map(|d| match &d.disk {
        Some(DiskImage::Folder { generate, .. }) => generate
            .iter()
            .find(|g| g.files.is_none() && g.path.trim_start_matches('/') == path)
            .map(|g| g.size),
        _ => None,
    })
}
