//! The shell's constants from the system manifest, and `cfg(shell_net)`
//! when the manifest gives the shell a `net` capability (the network
//! commands then talk to the network server; without it they say the
//! system has none for the shell, and no `config::caps::NET` is needed);
//! likewise `cfg(shell_flow)` for a `flowmgr` capability and `flow`.

use std::path::Path;

fn main() {
    conflux_manifest::build_script_main();
    println!("cargo::rustc-check-cfg=cfg(shell_net)");
    println!("cargo::rustc-check-cfg=cfg(shell_flow)");
    let Some(path) = std::env::var_os(conflux_manifest::MANIFEST_ENV) else {
        return;
    };
    // build_script_main has reported a manifest that does not load.
    let Ok(manifest) = conflux_manifest::load(Path::new(&path)) else {
        return;
    };
    let has = |cap: &str| {
        manifest
            .task_for_crate("shell")
            .is_some_and(|(_, task)| task.caps.iter().any(|c| c.name == cap))
    };
    if has("net") {
        println!("cargo::rustc-cfg=shell_net");
    }
    if has("flowmgr") {
        println!("cargo::rustc-cfg=shell_flow");
    }
}
