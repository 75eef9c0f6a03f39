//! `cargo make report`: the benchmark report (crate `conflux-report`,
//! `qemu/report`) from `target/bench/results.jsonl` into
//! `target/bench/report.md` and `target/bench/plots/`, or from and to
//! the paths given (the example report under `docs/report` is made with
//! `--results docs/report/results.jsonl --out docs/report`).

use crate::workspace;
use std::path::{Path, PathBuf};

/// The results file the benches append to.
pub fn default_results() -> PathBuf {
    workspace::root().join("target/bench/results.jsonl")
}

/// How the report's header names `path`: relative to the workspace
/// where it is inside it, so the committed example names no host path.
fn shown(path: &Path) -> String {
    let root = workspace::root();
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    absolute
        .strip_prefix(&root)
        .unwrap_or(&absolute)
        .display()
        .to_string()
}

/// Writes the report from `results` (default: the benches' file) into
/// `out` (default: `target/bench`) and says where it went.
pub fn run(results: Option<&Path>, out: Option<&Path>) -> Result<(), String> {
    let results = results.map_or_else(default_results, Path::to_path_buf);
    let out = out.map_or_else(|| workspace::root().join("target/bench"), Path::to_path_buf);
    let written = conflux_report::write(&results, &out, &shown(&results))?;
    println!(
        "report: {} ({} records, {} plots under {})",
        written.report.display(),
        written.records,
        written.plots,
        out.join("plots").display()
    );
    for title in written.empty {
        println!("report: no records yet for \"{title}\" (the report names the command)");
    }
    Ok(())
}
