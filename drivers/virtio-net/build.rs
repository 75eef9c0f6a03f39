//! The task's constants from the manifest; and `cfg(flow_stage)` when the
//! manifest makes this task a flow stage (it then has a FLOW endpoint),
//! so the same driver builds for systems with and without flows.
fn main() {
    conflux_manifest::build_script_main();
    println!("cargo::rustc-check-cfg=cfg(flow_stage)");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let consts = std::path::Path::new(&out).join(conflux_manifest::CONSTANTS_FILE);
    let text = std::fs::read_to_string(&consts).unwrap_or_default();
    if text.contains("pub const FLOW:") {
        println!("cargo::rustc-cfg=flow_stage");
    }
}
