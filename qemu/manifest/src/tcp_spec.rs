//! `[test] tcp_sink = [...]`: streams the runner receives from the guest
//! (how tests check a flow's `tcp` sink). Keys: `port` (a host port of the
//! system's `guest_forwards`, [`check`]), `count` (1..=10,000,000
//! records), `size` (16..=1 MiB bytes each, whole 16-byte blocks), `seed`,
//! and optionally `key` and `iv` (32 hex digits each, both or neither):
//! the records were encrypted on their own with AES-128-CBC.

use crate::error::Error;
use crate::limits::MIN_HOST_PORT;
use crate::model::{Manifest, TcpSink};
use crate::rules::{self, Unit};
use crate::strict::Fields;
use crate::udp_spec::{bad, hex16};

const KEYS: &[&str] = &["port", "count", "size", "seed", "key", "iv"];

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

fn sink(entry: &Fields) -> Result<TcpSink, Error> {
    let size: u32 = rules::integer(entry, "size", None, 16, 1 << 20, Unit::Bytes)?;
    if !size.is_multiple_of(16) {
        return Err(bad(entry, "size", "use whole 16-byte AES blocks"));
    }
    let seed: i64 = entry.required("seed")?;
    let cipher = match (entry.has("key"), entry.has("iv")) {
        (false, false) => None,
        (true, true) => Some((hex16(entry, "key")?, hex16(entry, "iv")?)),
        (true, false) => return Err(bad(entry, "iv", "give `iv` with `key`, or neither")),
        (false, true) => return Err(bad(entry, "key", "give `key` with `iv`, or neither")),
    };
    Ok(TcpSink {
        port: rules::integer(entry, "port", None, MIN_HOST_PORT, u16::MAX, Unit::Count)?,
        count: rules::integer(entry, "count", None, 1, 10_000_000, Unit::Count)?,
        size,
        seed: seed.unsigned_abs(),
        cipher,
    })
}

/// Each sink's port is a host port of the system's guest forwards, once.
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
    }
    Ok(())
}
