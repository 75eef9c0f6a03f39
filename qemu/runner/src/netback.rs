//! Which user-mode network sits behind a system's virtio-net devices:
//! QEMU's built-in slirp (`-netdev user,restrict=on`) or a `passt`
//! process the runner starts beside QEMU (`-netdev stream`, see
//! [`passt`]).
//!
//! Slirp is the default. Its forwards listen with a backlog of 1, so
//! concurrent host connections are reset before the guest sees them, and
//! it tops out near 10 MiB/s; passt accepts hundreds at once and is
//! faster (`docs/PERFORMANCE.md`, `cargo make bench netbackend`). It is
//! not the default because it cannot keep slirp's isolation: passt's
//! sockets live in this machine's network namespace, so the guest reaches
//! every service that listens on one of this machine's own addresses
//! (`docs/manifest.md`, "The user-mode network").
//!
//! The choice, strongest first: a test's `network = "..."` (it needs that
//! backend: a missing passt fails the test), the caller's request (`run
//! --net`, a benchmark), `CONFLUX_NET`, the default. A requested passt
//! that cannot serve the system falls back to slirp with a line saying
//! why: passt not installed, or the system has `guest_forwards` (passt
//! carries no guest-to-host forward to a chosen host port).

pub mod passt;

use conflux_manifest::{DeviceKind, Manifest, Network};

/// Environment variable naming the backend for every run: `slirp` or
/// `passt`.
pub const ENV: &str = "CONFLUX_NET";
/// The backend when nothing asks for another.
pub const DEFAULT: Network = Network::Slirp;

/// The backend a run uses, and the line to print when it is not the one
/// asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub network: Network,
    pub fallback: Option<String>,
}

/// What is known about the machine, passed in so the rules are testable.
pub struct Host {
    pub passt_installed: bool,
}

impl Host {
    pub fn probe() -> Self {
        Self {
            passt_installed: passt::find().is_ok(),
        }
    }
}

/// The backend named by `CONFLUX_NET`, if set.
pub fn from_env() -> Result<Option<Network>, String> {
    match std::env::var(ENV) {
        Err(_) => Ok(None),
        Ok(v) if v.is_empty() => Ok(None),
        Ok(v) => v.parse().map(Some).map_err(|_| {
            format!("{ENV}={v:?} names no network backend; use `slirp` (QEMU's, the default) or `passt`")
        }),
    }
}

/// Whether `manifest` has a network device at all.
pub fn has_network(manifest: &Manifest) -> bool {
    manifest
        .devices
        .iter()
        .any(|d| d.kind == DeviceKind::VirtioNet)
}

/// Chooses the backend for `manifest`; `asked` is the caller's request
/// (`--net`, a benchmark), `env` what `CONFLUX_NET` says.
pub fn choose(
    manifest: &Manifest,
    asked: Option<Network>,
    env: Option<Network>,
    host: &Host,
) -> Result<Choice, String> {
    let name = &manifest.system.name;
    let guest_forwards = manifest
        .devices
        .iter()
        .any(|d| !d.guest_forwards.is_empty());
    let needed = manifest.test.as_ref().and_then(|t| t.network);
    if needed == Some(Network::Passt) {
        if !host.passt_installed {
            return Err(format!(
                "test '{name}' needs the passt network backend (`network = \"passt\"`), and passt is not installed: run `bash qemu/setup.sh` (or `sudo apt-get install passt`)"
            ));
        }
        if guest_forwards {
            return Err(format!(
                "test '{name}' asks for passt and has guest_forwards, which passt cannot carry (no guest-to-host forward to a chosen port); drop one of them"
            ));
        }
    }
    if let Some(network) = needed {
        return Ok(Choice {
            network,
            fallback: None,
        });
    }
    let wanted = asked.or(env).unwrap_or(DEFAULT);
    let fallback = match wanted {
        Network::Slirp => None,
        Network::Passt if !has_network(manifest) => None,
        Network::Passt if !host.passt_installed => Some(
            "passt is not installed (`sudo apt-get install passt`, or `bash qemu/setup.sh`): using QEMU's slirp network instead".to_owned(),
        ),
        Network::Passt if guest_forwards => Some(format!(
            "system '{name}' has guest_forwards, which passt cannot carry: using QEMU's slirp network instead"
        )),
        Network::Passt => None,
    };
    Ok(match fallback {
        Some(line) => Choice {
            network: Network::Slirp,
            fallback: Some(line),
        },
        None => Choice {
            network: wanted,
            fallback: None,
        },
    })
}

#[cfg(test)]
mod tests;
