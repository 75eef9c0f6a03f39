#!/usr/bin/env bash
# Installs what Conflux needs on a Debian machine that has only rustup:
# QEMU (Debian's qemu-system-x86), passt (the second user-mode network
# backend: the http-crowd tests and `bench netbackend` need it), e2fsprogs (mke2fs, e2fsck and debugfs
# build, check and read the ext4 disks), the Rust toolchain pinned in
# rust-toolchain.toml with its x86_64-unknown-none target, and cargo-make.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "setup: need root to run: $* (no sudo found)" >&2; exit 1
    fi
}

# `bash qemu/setup.sh linux-peer`, run by `cargo make bench linux` and its
# smoke test (qemu/runner/src/linux_peer/fetch.rs), not by a plain setup:
# apt must know Debian's cloud kernel and busybox-static (the runner fetches
# them with `apt-get download`; a fresh machine may have empty package
# lists) and dpkg-deb must be there to unpack them.
if [ "${1:-}" = linux-peer ]; then
    if ! apt-cache show linux-image-cloud-amd64 busybox-static >/dev/null 2>&1; then
        echo "setup: updating apt's package lists (the Linux peer's kernel and busybox are not in them)"
        as_root apt-get update -qq
    fi
    if ! command -v dpkg-deb >/dev/null; then
        echo "setup: dpkg-deb is missing; the Linux peer unpacks Debian packages with it (install dpkg)" >&2
        exit 1
    fi
    exit 0
fi

if ! command -v qemu-system-x86_64 >/dev/null; then
    echo "setup: installing QEMU (qemu-system-x86) from Debian's packages"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-x86 >/dev/null
fi

if ! command -v passt >/dev/null; then
    echo "setup: installing passt (user-mode network for QEMU) from Debian's packages"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq passt >/dev/null
fi

# Debian keeps them in /usr/sbin, which an ordinary user's PATH lacks.
if ! PATH="$PATH:/usr/sbin:/sbin" command -v mke2fs >/dev/null || ! PATH="$PATH:/usr/sbin:/sbin" command -v e2fsck >/dev/null; then
    echo "setup: installing e2fsprogs (mke2fs, e2fsck) from Debian's packages"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs >/dev/null
fi

toolchain=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup target list --installed --toolchain "$toolchain" 2>/dev/null | grep -q x86_64-unknown-none; then
    echo "setup: installing Rust $toolchain with the x86_64-unknown-none target"
    rustup toolchain install "$toolchain" --profile minimal --component clippy,rustfmt --target x86_64-unknown-none
fi

if ! cargo make --version >/dev/null 2>&1; then
    echo "setup: installing cargo-make (about 2 minutes, once)"
    cargo install cargo-make --locked --debug --quiet
fi
