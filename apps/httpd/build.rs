//! httpd's constants from the manifest, and its mode: when the manifest
//! gives httpd a `net_ring` region (and `net_bufs` beside it), it is
//! built with `cfg(net_ring)` and serves through its session's rings
//! (`docs/httpd.md`, "Ring mode"); otherwise by one IPC per operation.
//! `cfg(net_apart)` says the network server (crate `net`) runs on
//! another CPU than httpd, so the ring mode polls for its answers
//! before sleeping on them.

use std::path::PathBuf;

fn main() {
    conflux_manifest::build_script_main();
    println!("cargo::rustc-check-cfg=cfg(net_ring)");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let consts =
        std::fs::read_to_string(out.join(conflux_manifest::CONSTANTS_FILE)).unwrap_or_default();
    if consts.contains("pub const NET_RING: usize") {
        println!("cargo::rustc-cfg=net_ring");
    }
    conflux_manifest::cfg_when_apart("net_apart", "httpd", Some("net"));
}
