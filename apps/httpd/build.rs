//! httpd's constants from the manifest, and its mode: when the manifest
//! gives httpd a `net_ring` region (and `net_bufs` beside it), it is
//! built with `cfg(net_ring)` and serves through its session's rings
//! (`docs/httpd.md`, "Ring mode"); otherwise by one IPC per operation.

fn main() {
    conflux_manifest::build_script_main();
    println!("cargo::rustc-check-cfg=cfg(net_ring)");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let consts =
        std::fs::read_to_string(out.join(conflux_manifest::CONSTANTS_FILE)).unwrap_or_default();
    if consts.contains("pub const NET_RING: usize") {
        println!("cargo::rustc-cfg=net_ring");
    }
}
