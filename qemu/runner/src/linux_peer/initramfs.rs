//! The Linux peer's initramfs: BusyBox, a shell `/init`, the workload
//! program (`qemu/linux-peer`, static), the fs-ops plan Conflux runs and
//! the kernel modules the Debian cloud kernel keeps out of its image.
//!
//! `/init` prints a line carrying the kernel banner's mark first of all,
//! so the runner's banner clock (the one `bench boot` reads for Conflux)
//! stops when Linux's `/init` runs. The workloads are chosen on the
//! kernel command line: Linux hands unknown `name=value` words to `/init`
//! as environment variables (`peer_boot`, `peer_ipc`, `peer_fsops`,
//! `peer_cosy`: the Cosy plan on the cosybench disk, `/mnt/plan`;
//! `peer_net`: eth0 configured statically as Conflux's network server
//! configures itself, then busybox `httpd` on port `peer_httpd` serving
//! the disk (read-only) and the echo servers on ports `peer_echo` (plain
//! syscalls) and `peer_echo_uring` (io_uring)).

use std::path::Path;

use super::cpio::{Archive, Kind};
use crate::qemu::BANNER_MARK;

/// The modules, in load order (each after those it depends on; checked
/// against the modules' `depends=` fields): virtio over PCI, the block
/// device, and the network device with its failover helpers. ext4, jbd2,
/// crc32c and the 8250 serial console are built into the cloud kernel.
pub const MODULES: [&str; 9] = [
    "drivers/virtio/virtio_ring",
    "drivers/virtio/virtio",
    "drivers/virtio/virtio_pci_legacy_dev",
    "drivers/virtio/virtio_pci_modern_dev",
    "drivers/virtio/virtio_pci",
    "drivers/block/virtio_blk",
    "net/core/failover",
    "drivers/net/net_failover",
    "drivers/net/virtio_net",
];

/// The guest's address and gateway on QEMU's user network: those
/// Conflux's network server takes (`peer_net`).
pub const ADDRESS: &str = "10.0.2.15/24";
pub const GATEWAY: &str = "10.0.2.2";

/// The first line `/init` prints (its task prefix is the workloads').
pub fn init_line() -> String {
    format!("linux-peer: init 'linux-peer{BANNER_MARK}/init running")
}

/// The `/init` script.
fn init_script() -> String {
    let modules: Vec<&str> = MODULES
        .iter()
        .map(|m| m.rsplit('/').next().unwrap_or(m))
        .collect();
    format!(
        r#"#!/bin/busybox sh
# The Linux peer's /init (written by qemu/runner/src/linux_peer/initramfs.rs).
/bin/busybox echo "{init_line}"
[ -n "$peer_boot" ] && /bin/busybox poweroff -f
export PATH=/bin
busybox mount -t proc proc /proc
busybox mount -t devtmpfs dev /dev
for m in {modules}; do
    busybox insmod /lib/modules/$m.ko || busybox echo "linux-peer: CHECK FAILED: insmod $m.ko (see the kernel's message above)"
done
n=0
while [ ! -b /dev/vda ] && [ $n -lt 500 ]; do busybox usleep 10000; n=$((n + 1)); done
set --
[ -n "$peer_ipc" ] && set -- "$@" ipc "$peer_ipc"
if [ -n "$peer_fsops$peer_cosy" ]; then
    if busybox mount -t ext4 /dev/vda /mnt; then
        [ -n "$peer_fsops" ] && set -- "$@" fs-ops /plan /mnt
        [ -n "$peer_cosy" ] && set -- "$@" cosy /mnt/plan /mnt
    else
        busybox echo "linux-peer: CHECK FAILED: mount -t ext4 /dev/vda /mnt (is the virtio-blk disk there? see above)"
    fi
fi
if [ -n "$peer_net" ]; then
    n=0
    while ! busybox ip link show eth0 >/dev/null 2>&1 && [ $n -lt 500 ]; do busybox usleep 10000; n=$((n + 1)); done
    busybox ip link set lo up
    if busybox ip link set eth0 up && busybox ip addr add {address} dev eth0 && busybox ip route add default via {gateway}; then
        busybox echo "linux-peer: net: eth0 is {address} via {gateway}"
    else
        busybox echo "linux-peer: CHECK FAILED: configuring eth0 as {address} via {gateway} (is virtio_net loaded? see above)"
    fi
    if [ -n "$peer_httpd" ]; then
        if busybox mount -t ext4 -o ro /dev/vda /mnt && busybox httpd -p "$peer_httpd" -h /mnt; then
            busybox echo "linux-peer: httpd: serving /mnt on port $peer_httpd"
        else
            busybox echo "linux-peer: CHECK FAILED: busybox httpd on port $peer_httpd serving the virtio-blk disk (see above)"
        fi
    fi
    [ -n "$peer_echo" ] && set -- "$@" echo "$peer_echo" "$peer_echo_uring"
fi
/linux-peer "$@"
busybox umount /mnt 2>/dev/null
busybox poweroff -f
"#,
        init_line = init_line(),
        address = ADDRESS,
        gateway = GATEWAY,
        modules = modules.join(" ")
    )
}

/// The archive: BusyBox at `busybox`, the workloads at `program`, the
/// plan text and the modules from the kernel's `modules` folder.
pub fn build(
    busybox: &Path,
    program: &Path,
    plan: &str,
    modules: &Path,
) -> Result<Vec<u8>, String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let mut a = Archive::default();
    for dir in ["bin", "dev", "proc", "mnt", "lib", "lib/modules"] {
        a.add(dir, Kind::Dir);
    }
    a.add("dev/console", Kind::CharDev(5, 1));
    a.add(
        "bin/busybox",
        Kind::File {
            data: &read(busybox)?,
            exec: true,
        },
    );
    a.add("bin/sh", Kind::Symlink("busybox"));
    a.add(
        "init",
        Kind::File {
            data: init_script().as_bytes(),
            exec: true,
        },
    );
    a.add(
        "linux-peer",
        Kind::File {
            data: &read(program)?,
            exec: true,
        },
    );
    a.add(
        "plan",
        Kind::File {
            data: plan.as_bytes(),
            exec: false,
        },
    );
    for m in MODULES {
        let name = m.rsplit('/').next().unwrap_or(m);
        let data = read(&modules.join(format!("{m}.ko")))?;
        a.add(
            &format!("lib/modules/{name}.ko"),
            Kind::File {
                data: &data,
                exec: false,
            },
        );
    }
    Ok(a.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_first_says_it_runs_with_the_banner_mark() {
        let script = init_script();
        let first = script.lines().nth(2).unwrap();
        assert!(first.contains(&init_line()), "{first}");
        assert!(init_line().contains(BANNER_MARK));
        assert!(script.contains("for m in virtio_ring virtio virtio_pci_legacy_dev"));
    }

    #[test]
    fn the_network_gets_conflux_s_address_and_the_servers_their_ports() {
        let script = init_script();
        assert!(script.contains("ip addr add 10.0.2.15/24 dev eth0"));
        assert!(script.contains("ip route add default via 10.0.2.2"));
        assert!(script.contains(r#"httpd -p "$peer_httpd" -h /mnt"#));
        assert!(script.contains(r#"set -- "$@" echo "$peer_echo" "$peer_echo_uring""#));
        let net = script.find("peer_net").unwrap();
        let program = script.find("/linux-peer \"$@\"").unwrap();
        assert!(
            net < program,
            "the network is up before the echo server runs"
        );
    }

    #[test]
    fn modules_come_after_what_they_depend_on() {
        let at = |m: &str| {
            MODULES
                .iter()
                .position(|x| x.ends_with(&format!("/{m}")))
                .unwrap()
        };
        for (module, deps) in [
            ("virtio", &["virtio_ring"][..]),
            (
                "virtio_pci",
                &[
                    "virtio_ring",
                    "virtio_pci_modern_dev",
                    "virtio_pci_legacy_dev",
                    "virtio",
                ],
            ),
            ("virtio_blk", &["virtio", "virtio_ring"]),
            ("net_failover", &["failover"]),
            ("virtio_net", &["virtio_ring", "virtio", "net_failover"]),
        ] {
            for d in deps {
                assert!(at(d) < at(module), "{d} before {module}");
            }
        }
    }
}
