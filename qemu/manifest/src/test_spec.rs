//! The `[test]` table: how the runner judges an in-guest test image.
//!
//! Only test systems have it. Its rules are about what the runner can
//! check: known modes, each once; a non-empty `expect` list; no empty
//! pattern (it would match any output); a known outcome.
//!
//! How the runner reads the lists (`qemu/runner/src/oracle.rs`): an
//! `expect` entry `"T: text"`, T a task of the system, must be printed by
//! T (`text` inside one line starting `T: `); any other entry must be
//! printed by the kernel (inside a line starting `conflux: `). A `forbid`
//! entry fails the test wherever it appears, and `CHECK FAILED` is
//! forbidden in every test without being listed.
//!
//! Test systems alone may switch off the host's MMIO-in-RAM rule
//! (`allow_mmio_in_ram`), to test the kernel's own copy of it.

use crate::crash_spec;
use crate::error::Error;
use crate::http_spec;
use crate::limits::*;
use crate::model::{Mode, Network, Outcome, TestSpec};
use crate::rules::{self, Unit};
use crate::strict::Fields;
use crate::suggest::{Suggestion, Words};
use crate::{tcp_spec, udp_spec};

/// Keys allowed in `[test]`.
pub(crate) const KEYS: &[&str] = &[
    "timeout_secs",
    "modes",
    "expect",
    "forbid",
    "outcome",
    "kernel_args",
    "allow_mmio_in_ram",
    "nmi_after_ms",
    "crash",
    "input",
    "http",
    "udp",
    "tcp_sink",
    "network",
    "listen",
];

pub(crate) fn read(fields: &Fields) -> Result<TestSpec, Error> {
    let timeout_secs = rules::integer(
        fields,
        "timeout_secs",
        Some(DEFAULT_TIMEOUT_SECS),
        MIN_TIMEOUT_SECS,
        MAX_TIMEOUT_SECS,
        Unit::Count,
    )?;
    let modes = modes(fields)?;
    let expect = patterns(fields, fields.required("expect")?, "expect")?;
    if expect.is_empty() {
        return Err(Error::EmptyExpect {
            origin: fields.origin().to_owned(),
        });
    }
    let forbid = patterns(
        fields,
        fields.optional("forbid")?.unwrap_or_default(),
        "forbid",
    )?;
    let outcome = outcome(fields)?;
    let kernel_args = fields
        .optional::<&str>("kernel_args")?
        .unwrap_or_default()
        .to_owned();
    let allow_mmio_in_ram = fields.optional("allow_mmio_in_ram")?.unwrap_or(false);
    let nmi_after_ms = nmi_times(fields, timeout_secs)?;
    let crash = fields
        .optional_table("crash", crash_spec::KEYS)?
        .map(|crash| crash_spec::read(&crash, timeout_secs))
        .transpose()?;
    let input = fields
        .optional::<&str>("input")?
        .unwrap_or_default()
        .to_owned();
    let http = http_spec::read(fields, timeout_secs)?;
    let udp = udp_spec::read(fields)?;
    let tcp_sink = tcp_spec::read(fields)?;
    let network = network(fields)?;
    let listen = listen(fields)?;
    Ok(TestSpec {
        timeout_secs,
        modes,
        expect,
        forbid,
        outcome,
        kernel_args,
        allow_mmio_in_ram,
        nmi_after_ms,
        crash,
        input,
        http,
        udp,
        tcp_sink,
        network,
        listen,
    })
}

/// `test.listen`: host ports, each 1024..=65535.
fn listen(fields: &Fields) -> Result<Vec<u16>, Error> {
    let ports = fields.optional::<Vec<i64>>("listen")?.unwrap_or_default();
    ports
        .into_iter()
        .enumerate()
        .map(|(index, port)| {
            u16::try_from(port)
                .ok()
                .filter(|p| i64::from(*p) >= i64::from(MIN_HOST_PORT))
                .ok_or_else(|| Error::OutOfRange {
                    origin: fields.origin().to_owned(),
                    path: format!("{}[{index}]", fields.path_of("listen")),
                    value: port,
                    min: MIN_HOST_PORT.into(),
                    max: u16::MAX.into(),
                    bytes: false,
                })
        })
        .collect()
}

fn modes(fields: &Fields) -> Result<Vec<Mode>, Error> {
    let Some(names) = fields.optional::<Vec<&str>>("modes")? else {
        return Ok(vec![Mode::Tcg]);
    };
    let mut modes = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        let mode = name.parse::<Mode>().map_err(|_| Error::UnknownMode {
            origin: fields.origin().to_owned(),
            path: format!("{}[{index}]", fields.path_of("modes")),
            value: (*name).to_owned(),
            suggestion: Box::new(Suggestion::new(name, Mode::NAMES, Words::Values)),
        })?;
        if modes.contains(&mode) {
            return Err(Error::DuplicateMode {
                origin: fields.origin().to_owned(),
                mode,
            });
        }
        modes.push(mode);
    }
    Ok(modes)
}

/// `nmi_after_ms`: each time from 1 ms to the test's timeout, in strictly
/// increasing order (the runner sends them one after another).
fn nmi_times(fields: &Fields, timeout_secs: u32) -> Result<Vec<u32>, Error> {
    let times = fields
        .optional::<Vec<i64>>("nmi_after_ms")?
        .unwrap_or_default();
    let max = i64::from(timeout_secs) * 1000;
    let mut previous = None;
    let mut out = Vec::with_capacity(times.len());
    for (index, &value) in times.iter().enumerate() {
        let path = format!("{}[{index}]", fields.path_of("nmi_after_ms"));
        if !(1..=max).contains(&value) {
            return Err(Error::OutOfRange {
                origin: fields.origin().to_owned(),
                path,
                value,
                min: 1,
                max,
                bytes: false,
            });
        }
        if let Some(previous) = previous.filter(|&previous| previous >= value) {
            return Err(Error::NmiTimesNotIncreasing {
                origin: fields.origin().to_owned(),
                path,
                value,
                previous,
            });
        }
        previous = Some(value);
        out.push(u32::try_from(value).expect("at most 600000"));
    }
    Ok(out)
}

/// Owns the patterns at `key`, rejecting empty ones.
pub(crate) fn patterns(
    fields: &Fields,
    patterns: Vec<&str>,
    key: &str,
) -> Result<Vec<String>, Error> {
    match patterns.iter().position(|pattern| pattern.is_empty()) {
        Some(index) => Err(Error::EmptyPattern {
            origin: fields.origin().to_owned(),
            path: format!("{}[{index}]", fields.path_of(key)),
        }),
        None => Ok(patterns.into_iter().map(str::to_owned).collect()),
    }
}

/// `test.network`: the backend a test needs, if it names one.
fn network(fields: &Fields) -> Result<Option<Network>, Error> {
    let Some(name) = fields.optional::<&str>("network")? else {
        return Ok(None);
    };
    name.parse().map(Some).map_err(|_| Error::UnknownNetwork {
        origin: fields.origin().to_owned(),
        value: name.to_owned(),
        suggestion: Box::new(Suggestion::new(name, Network::NAMES, Words::Values)),
    })
}

fn outcome(fields: &Fields) -> Result<Outcome, Error> {
    let Some(name) = fields.optional::<&str>("outcome")? else {
        return Ok(Outcome::Pass);
    };
    name.parse().map_err(|_| Error::UnknownOutcome {
        origin: fields.origin().to_owned(),
        value: name.to_owned(),
        suggestion: Box::new(Suggestion::new(name, Outcome::NAMES, Words::Values)),
    })
}
