//! Reads a results file and writes the report and its plots to a
//! folder: `report.md` and `plots/*.svg`. Plots of an earlier report
//! in that folder are removed first, so a plot whose records are gone
//! does not linger beside the new report.

use crate::document;
use crate::record;
use std::path::{Path, PathBuf};

/// What [`write`] wrote.
pub struct Written {
    pub report: PathBuf,
    pub plots: usize,
    pub records: usize,
    /// Sections without records.
    pub empty: Vec<&'static str>,
}

/// Reads `results` and writes the report under `out`; `source` is how
/// the header names the results file.
pub fn write(results: &Path, out: &Path, source: &str) -> Result<Written, String> {
    let text = std::fs::read_to_string(results).map_err(|e| {
        format!("cannot read the benchmark records {}: {e}; run `cargo make bench` (or one bench) first", results.display())
    })?;
    let records = record::parse(&text).map_err(|e| format!("{}: {e}", results.display()))?;
    if records.is_empty() {
        return Err(format!(
            "{} holds no records; run `cargo make bench` first",
            results.display()
        ));
    }
    let report = document::build(&records, source)?;
    let plots = out.join("plots");
    std::fs::create_dir_all(&plots)
        .map_err(|e| format!("cannot create {}: {e}", plots.display()))?;
    let old =
        std::fs::read_dir(&plots).map_err(|e| format!("cannot list {}: {e}", plots.display()))?;
    for entry in old.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "svg") {
            std::fs::remove_file(&path)
                .map_err(|e| format!("cannot remove the old plot {}: {e}", path.display()))?;
        }
    }
    for p in &report.plots {
        let path = plots.join(&p.file);
        std::fs::write(&path, &p.svg)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let path = out.join("report.md");
    std::fs::write(&path, &report.markdown)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Written {
        report: path,
        plots: report.plots.len(),
        records: records.len(),
        empty: report.empty,
    })
}
