//! Running `passt` beside QEMU: one process per virtio-net device, each
//! with its Unix socket in its own directory under `target/tmp` (see
//! [`tmp_dir`] for where else), started
//! before QEMU and stopped (killed, waited for, directory removed) when
//! the [`Passts`] guard drops — after QEMU exits, on an error, on a
//! timeout. With `--one-off` passt also quits by itself once QEMU closes
//! the socket, so a runner killed outright leaves nothing running for
//! long, and the next run removes directories whose runner is gone.
//!
//! What passt is told, and why:
//! - `-4`: IPv4 only, as the guest's stack; IPv6 frames are dropped.
//! - `-a 10.0.2.15 -n 24 -g 10.0.2.2`: the addresses slirp gives, which
//!   the network server configures statically; DHCP, NDP, RA and DNS are
//!   off.
//! - `-o 127.0.0.1`: every outbound socket is bound to the loopback
//!   address, so Linux refuses (EINVAL) any connection or datagram that
//!   would leave this machine. What stays reachable is what listens on one
//!   of this machine's own addresses.
//! - `--no-map-gw`: the gateway address is not this machine's loopback
//!   (passt's default would give the guest every loopback port).
//! - `--no-icmp`: no echo requests from the guest leave through passt.
//! - `-t`/`-u 127.0.0.1/H:G`: forwards bound to the loopback address only.
//!
//! Started as root, passt changes to user `nobody`; its socket directory
//! is therefore writable by others (sticky, not listable).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use conflux_manifest::{Device, DeviceKind, Forward, Manifest, Protocol};

use crate::workspace;

const PASST: &str = "passt";
/// How long passt may take to create its socket.
const READY_WITHIN: Duration = Duration::from_secs(5);

/// Finds passt on the PATH, or says how to install it.
pub fn find() -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(PASST))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!("{PASST} not found on PATH: install it with `sudo apt-get install passt` (or run `bash qemu/setup.sh`)")
        })
}

/// The running passt processes of one QEMU run.
pub struct Passts {
    running: Vec<Running>,
}

struct Running {
    device: String,
    child: Child,
    dir: PathBuf,
}

impl Passts {
    /// The socket of the device named `device`.
    pub fn socket(&self, device: &str) -> Option<PathBuf> {
        self.running
            .iter()
            .find(|r| r.device == device)
            .map(|r| socket_path(&r.dir))
    }
}

impl Drop for Passts {
    fn drop(&mut self) {
        for r in &mut self.running {
            // Ours alone, by its process (never by name).
            let _ = r.child.kill();
            let _ = r.child.wait();
            let _ = std::fs::remove_dir_all(&r.dir);
        }
    }
}

/// Where the socket directories of this runner's passt processes go:
/// `target/tmp`, unless some directory above it is closed to other users
/// (a workspace under `/root`), where passt running as `nobody` could not
/// reach its socket; then the system's temporary directory.
fn tmp_dir() -> PathBuf {
    let target = workspace::root().join("target/tmp");
    if open_to_others(&workspace::root()) {
        target
    } else {
        std::env::temp_dir()
    }
}

/// Whether every directory from `/` down to `dir` lets other users pass.
pub(super) fn open_to_others(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    dir.ancestors()
        .all(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

/// `passt-<runner pid>-<device>`: one run's directory for one device
/// (only directories of this form are ever removed).
fn dir_name(device: &str) -> String {
    format!("passt-{}-{device}", std::process::id())
}

fn socket_path(dir: &Path) -> PathBuf {
    dir.join("sock")
}

/// Starts one passt per virtio-net device of `manifest`, each ready for
/// QEMU to connect to.
pub fn start(manifest: &Manifest) -> Result<Passts, String> {
    let passt = find()?;
    remove_stale(&workspace::root().join("target/tmp"));
    remove_stale(&std::env::temp_dir());
    let mut passts = Passts {
        running: Vec::new(),
    };
    for device in manifest
        .devices
        .iter()
        .filter(|d| d.kind == DeviceKind::VirtioNet)
    {
        let dir = tmp_dir().join(dir_name(&device.name));
        let running = start_one(&passt, device, dir)?;
        passts.running.push(running);
    }
    Ok(passts)
}

fn start_one(passt: &Path, device: &Device, dir: PathBuf) -> Result<Running, String> {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1733)))
        .map_err(|e| {
            format!(
                "cannot make passt's socket directory {}: {e}",
                dir.display()
            )
        })?;
    let socket = socket_path(&dir);
    let log_path = dir.join("passt.log");
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let err_log = log
        .try_clone()
        .map_err(|e| format!("cannot share {}: {e}", log_path.display()))?;
    let child = Command::new(passt)
        .args(args(&socket, &device.forwards))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err_log)
        .spawn()
        .map_err(|e| format!("cannot start passt: {e}"))?;
    let mut running = Running {
        device: device.name.clone(),
        child,
        dir,
    };
    wait_ready(&mut running, &socket, &log_path)?;
    Ok(running)
}

/// Waits until passt's socket exists. (Connecting to test it would take
/// passt's one client away from QEMU.)
fn wait_ready(running: &mut Running, socket: &Path, log: &Path) -> Result<(), String> {
    let until = Instant::now() + READY_WITHIN;
    let said = || {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let text = text.trim();
        if text.is_empty() {
            String::new()
        } else {
            format!("; it said: {text}")
        }
    };
    loop {
        if socket.exists() {
            return Ok(());
        }
        if let Ok(Some(status)) = running.child.try_wait() {
            return Err(format!(
                "passt exited ({status}) before creating its socket{}",
                said()
            ));
        }
        if Instant::now() > until {
            return Err(format!(
                "passt did not create its socket {} within {} s (started as root it runs as user nobody, who must be able to reach that directory){}",
                socket.display(),
                READY_WITHIN.as_secs(),
                said()
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Removes socket directories left by runners that no longer run.
fn remove_stale(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("passt-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// passt's arguments for one device (see the module's list).
pub fn args(socket: &Path, forwards: &[Forward]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--foreground",
        "--quiet",
        "--one-off",
        "--ipv4-only",
        "--address",
        "10.0.2.15",
        "--netmask",
        "24",
        "--gateway",
        "10.0.2.2",
        "--outbound",
        "127.0.0.1",
        "--no-map-gw",
        "--no-icmp",
        "--no-dhcp",
        "--no-ndp",
        "--no-dhcpv6",
        "--no-ra",
        "--dns",
        "none",
        "--no-dhcp-dns",
        "--no-dhcp-search",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push("--socket".into());
    args.push(socket.display().to_string());
    for (flag, protocol) in [
        ("--tcp-ports", Protocol::Tcp),
        ("--udp-ports", Protocol::Udp),
    ] {
        args.push(flag.into());
        args.push(ports(forwards, protocol));
    }
    args
}

/// `127.0.0.1/H:G,H:G` for the forwards of `protocol`, or `none` (an
/// explicit `none` also keeps passt from adding UDP forwards of its own
/// for the TCP ones).
fn ports(forwards: &[Forward], protocol: Protocol) -> String {
    let pairs: Vec<String> = forwards
        .iter()
        .filter(|f| f.protocol == protocol)
        .map(|f| format!("{}:{}", f.host, f.guest))
        .collect();
    if pairs.is_empty() {
        "none".into()
    } else {
        format!("127.0.0.1/{}", pairs.join(","))
    }
}
