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
    println!("cargo::rustc-check-cfg=cfg(net_apart)");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let consts =
        std::fs::read_to_string(out.join(conflux_manifest::CONSTANTS_FILE)).unwrap_or_default();
    if consts.contains("pub const NET_RING: usize") {
        println!("cargo::rustc-cfg=net_ring");
    }
    // build_script_main has loaded (and checked) the manifest already.
    let Some(path) = std::env::var_os(conflux_manifest::MANIFEST_ENV) else {
        return;
    };
    let Ok(manifest) = conflux_manifest::load(&PathBuf::from(path)) else {
        return;
    };
    let cpu_of = |name: &str| {
        manifest
            .tasks
            .iter()
            .find(|t| t.crate_name == name)
            .map(|t| t.cpu)
    };
    if let (Some(me), Some(net)) = (cpu_of("httpd"), cpu_of("net")) {
        if me != net {
            println!("cargo::rustc-cfg=net_apart");
        }
    }
}
