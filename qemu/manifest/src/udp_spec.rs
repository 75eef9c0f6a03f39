//! `[test] udp = [...]`: datagrams the runner sends to one of the system's
//! UDP forwards once the console shows each entry's `after` (how flow tests
//! feed a `udp` source). Keys: `port`, `after`, `count` (1..=10,000,000),
//! `size` (16..=1472 bytes, whole 16-byte blocks: one Ethernet frame,
//! whole AES blocks), `seed`, `key` and `iv` (32 hex digits each) and
//! `rate` (datagrams per second, 0 for unpaced; default 0). The port must
//! be a UDP forward of the system ([`check`]).

use crate::error::Error;
use crate::limits::MIN_HOST_PORT;
use crate::model::{Manifest, Protocol, UdpBlast};
use crate::rules::{self, Unit};
use crate::strict::Fields;

const KEYS: &[&str] = &[
    "port", "after", "count", "size", "seed", "key", "iv", "rate",
];

/// Reads `test.udp`.
pub(crate) fn read(fields: &Fields) -> Result<Vec<UdpBlast>, Error> {
    let entries = fields
        .optional::<Vec<&toml::Table>>("udp")?
        .unwrap_or_default();
    entries
        .into_iter()
        .enumerate()
        .map(|(index, table)| {
            let path = format!("{}[{index}]", fields.path_of("udp"));
            blast(&Fields::new(fields.origin(), path, table, KEYS)?)
        })
        .collect()
}

pub(crate) fn bad(entry: &Fields, key: &'static str, why: &'static str) -> Error {
    Error::BadUdpBlast {
        origin: entry.origin().to_owned(),
        path: entry.path_of(key),
        why,
    }
}

pub(crate) fn hex16(entry: &Fields, key: &'static str) -> Result<[u8; 16], Error> {
    let text: &str = entry.required(key)?;
    let mut out = [0u8; 16];
    if text.len() != 32 || !text.is_ascii() {
        return Err(bad(entry, key, "write 16 bytes as 32 hex digits"));
    }
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16)
            .map_err(|_| bad(entry, key, "write 16 bytes as 32 hex digits"))?;
    }
    Ok(out)
}

fn blast(entry: &Fields) -> Result<UdpBlast, Error> {
    let after: &str = entry.required("after")?;
    if after.is_empty() {
        return Err(Error::EmptyPattern {
            origin: entry.origin().to_owned(),
            path: entry.path_of("after"),
        });
    }
    let size: u32 = rules::integer(entry, "size", None, 16, 1472, Unit::Bytes)?;
    if !size.is_multiple_of(16) {
        return Err(bad(entry, "size", "use whole 16-byte AES blocks"));
    }
    let seed: i64 = entry.required("seed")?;
    Ok(UdpBlast {
        port: rules::integer(entry, "port", None, MIN_HOST_PORT, u16::MAX, Unit::Count)?,
        after: after.to_owned(),
        count: rules::integer(entry, "count", None, 1, 10_000_000, Unit::Count)?,
        size,
        seed: seed.unsigned_abs(),
        key: hex16(entry, "key")?,
        iv: hex16(entry, "iv")?,
        rate: rules::integer(entry, "rate", Some(0), 0, 1_000_000, Unit::Count)?,
    })
}

/// Each blast's port is a UDP forward of the system.
pub(crate) fn check(manifest: &Manifest) -> Result<(), Error> {
    let Some(test) = &manifest.test else {
        return Ok(());
    };
    let udp: Vec<u16> = manifest
        .devices
        .iter()
        .flat_map(|d| d.forwards.iter())
        .filter(|f| f.protocol == Protocol::Udp)
        .map(|f| f.host)
        .collect();
    for (index, blast) in test.udp.iter().enumerate() {
        if !udp.contains(&blast.port) {
            return Err(Error::UdpPortNotForwarded {
                origin: manifest.origin.clone(),
                path: format!("test.udp[{index}].port"),
                port: blast.port,
                forwards: udp.clone(),
            });
        }
    }
    Ok(())
}
