//! The Linux peer: Debian's Linux booted on the same QEMU machine as a
//! Conflux system ([`Machine`]: the `fsops` system's machine for the IPC
//! anchors and fs-ops, the `cosybench` system's for the Cosy workloads,
//! the `netbench` system's for the network servers: q35, its memory, one
//! CPU, its virtio-blk disk, its virtio-net device and user-network
//! forwards, the same accelerator flags; built by [`qemu::command`] from
//! that system's manifest, not copied), running static Linux programs of
//! Conflux's workloads (`qemu/linux-peer`) from an initramfs. The disk is
//! a copy of that system's disk, built by the same code from the same
//! folder and seeded files (under the system name `linux-fsops`,
//! `linux-cosybench` or `linux-netbench`, so that Linux's writes never
//! touch Conflux's copy).
//! The workloads print Conflux's record lines; [`records`] reads them.

mod cpio;
pub mod fetch;
mod initramfs;
mod records;
pub mod smoke;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

pub use records::{records, LinuxRecord};

use crate::accel::Accel;
use crate::image::Built;
use crate::qemu::{self, Captured};
use crate::workspace;

/// The Rust target the workloads are built for, statically linked.
const TARGET: &str = "x86_64-unknown-linux-gnu";

/// What one boot runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workloads {
    /// Nothing: `/init` says it runs and powers off (the boot figure).
    Boot,
    /// The IPC anchors with this many recorded rounds each.
    Ipc(u32),
    /// The IPC anchors and the fs-ops plan.
    All { ipc_rounds: u32 },
    /// The Cosy plan on the cosybench disk (`qemu/cosybench/bench/plan`).
    Cosy,
    /// The network servers on the netbench machine: eth0 up, busybox
    /// `httpd` on guest port `httpd` serving the netbench disk, the echo
    /// servers on guest ports `echo` (plain syscalls) and `echo_uring`
    /// (io_uring); they run until the runner stops QEMU.
    Net {
        echo: u16,
        echo_uring: u16,
        httpd: u16,
    },
}

/// The Conflux system whose machine and disk Linux gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// `fsops`: the fs-ops disk (and the IPC anchors, which use none).
    FsOps,
    /// `cosybench`: its 512 MiB and the Cosy disk with its plan.
    Cosy,
    /// `netbench`: its virtio-net device with the same user-network
    /// forwards and the disk of files its httpd serves.
    Net,
}

impl Machine {
    /// The system whose manifest gives the machine and disk.
    pub fn system(self) -> &'static str {
        match self {
            Machine::FsOps => "fsops",
            Machine::Cosy => "cosybench",
            Machine::Net => "netbench",
        }
    }
}

impl Workloads {
    /// The kernel command line: the serial console, no boot chatter
    /// (Conflux's kernel prints little as well), no check that the PIT
    /// reaches the IO-APIC in time (on a busy host TCG can be late, and
    /// Linux then panics "IO-APIC + timer doesn't work"; a VM's usual
    /// setting), and what `/init` runs.
    pub fn kernel_args(self) -> String {
        let base = "console=ttyS0 quiet panic=-1 no_timer_check";
        match self {
            Workloads::Boot => format!("{base} peer_boot=1"),
            Workloads::Ipc(n) => format!("{base} peer_ipc={n}"),
            Workloads::All { ipc_rounds } => format!("{base} peer_ipc={ipc_rounds} peer_fsops=1"),
            Workloads::Cosy => format!("{base} peer_cosy=1"),
            Workloads::Net {
                echo,
                echo_uring,
                httpd,
            } => format!(
                "{base} peer_net=1 peer_echo={echo} peer_echo_uring={echo_uring} peer_httpd={httpd}"
            ),
        }
    }

    /// The machine these workloads boot on.
    pub fn machine(self) -> Machine {
        match self {
            Workloads::Cosy => Machine::Cosy,
            Workloads::Net { .. } => Machine::Net,
            _ => Machine::FsOps,
        }
    }
}

/// Fetches the inputs (once), builds the workloads and the initramfs:
/// `machine` ready to boot (its disk built fresh at the first boot).
pub fn prepare(machine: Machine) -> Result<Built, String> {
    let inputs = fetch::inputs()?;
    let program = build_program()?;
    let system = machine.system();
    let manifest_path = workspace::resolve_system(system)?;
    let mut manifest = conflux_manifest::load(&manifest_path).map_err(|e| e.to_string())?;
    manifest.system.name = format!("linux-{system}");
    let plan_path = workspace::root().join("qemu/cosybench/fsops/plan");
    let plan = std::fs::read_to_string(&plan_path)
        .map_err(|e| format!("cannot read {}: {e}", plan_path.display()))?;
    let archive = initramfs::build(&inputs.busybox, &program, &plan, &inputs.modules)?;
    let image = fetch::cache_dir().join("initramfs.cpio");
    std::fs::write(&image, archive)
        .map_err(|e| format!("cannot write {}: {e}", image.display()))?;
    eprintln!(
        "linux peer: {} on system '{system}''s machine; initramfs {}",
        inputs.kernel_package,
        image.display()
    );
    Ok(Built {
        manifest,
        kernel: inputs.vmlinuz,
        image,
        fresh_disk: true,
        network: None,
    })
}

/// Boots the peer under `accel` running `work`.
pub fn boot(
    built: &Built,
    accel: Accel,
    work: Workloads,
    timeout: Duration,
) -> Result<Captured, String> {
    qemu::run_captured(built, accel, timeout, &work.kernel_args())
}

/// Builds `qemu/linux-peer` for Linux, statically linked (glibc's static
/// libraries; `+crt-static`) and without symbols; its path.
fn build_program() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(workspace::root())
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "linux-peer",
            "--target",
            TARGET,
        ])
        .env(
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS",
            "-C target-feature=+crt-static -C strip=symbols",
        )
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the Linux peer's workloads failed (cargo build -p linux-peer --target {TARGET}; is the target installed? `rustup target add {TARGET}`)"
        ));
    }
    Ok(workspace::root().join(format!("target/{TARGET}/release/linux-peer")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_says_what_init_runs() {
        let words = |w: Workloads| -> Vec<String> {
            w.kernel_args().split(' ').map(String::from).collect()
        };
        for w in [
            Workloads::Boot,
            Workloads::Ipc(7),
            Workloads::All { ipc_rounds: 9 },
        ] {
            let got = words(w);
            assert!(
                got.contains(&"console=ttyS0".to_owned())
                    && got.contains(&"no_timer_check".to_owned())
            );
        }
        assert!(words(Workloads::Boot).contains(&"peer_boot=1".to_owned()));
        assert!(!words(Workloads::Ipc(7))
            .iter()
            .any(|w| w.starts_with("peer_fsops")));
        let all = words(Workloads::All { ipc_rounds: 9 });
        assert!(all.contains(&"peer_ipc=9".to_owned()) && all.contains(&"peer_fsops=1".to_owned()));
        assert_eq!(words(Workloads::Cosy).last().unwrap(), "peer_cosy=1");
        assert!(!words(Workloads::Cosy)
            .iter()
            .any(|w| w.starts_with("peer_ipc")));
    }

    #[test]
    fn the_network_servers_boot_on_the_netbench_machine_with_their_ports() {
        let net = Workloads::Net {
            echo: 7,
            echo_uring: 8,
            httpd: 80,
        };
        assert_eq!(net.machine(), Machine::Net);
        assert_eq!(Machine::Net.system(), "netbench");
        let args = net.kernel_args();
        let words: Vec<&str> = args.split(' ').collect();
        for w in [
            "console=ttyS0",
            "peer_net=1",
            "peer_echo=7",
            "peer_httpd=80",
        ] {
            assert!(words.contains(&w), "{w} in {args}");
        }
        assert!(!words
            .iter()
            .any(|w| w.starts_with("peer_ipc") || w.starts_with("peer_fsops")));
    }

    #[test]
    fn the_cosy_workloads_boot_on_the_cosybench_machine() {
        assert_eq!(Workloads::Cosy.machine(), Machine::Cosy);
        assert_eq!(Machine::Cosy.system(), "cosybench");
        for w in [
            Workloads::Boot,
            Workloads::Ipc(1),
            Workloads::All { ipc_rounds: 1 },
        ] {
            assert_eq!(w.machine(), Machine::FsOps);
        }
    }
}
