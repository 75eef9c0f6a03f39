//! The report from a small fixed results file (`tests/fixture.jsonl`):
//! Conflux and Linux records, a key measured in several tcg runs, an
//! icount key measured twice, records with and without a run id. The
//! plots are read back as SVG text.

use conflux_report::document::{build, Report};
use conflux_report::record::parse;
use conflux_report::svg::WHISKER;

const FIXTURE: &str = include_str!("fixture.jsonl");

fn report() -> Report {
    build(
        &parse(FIXTURE).expect("the fixture parses"),
        "tests/fixture.jsonl",
    )
    .expect("the report builds")
}

fn plot<'r>(report: &'r Report, file: &str) -> &'r str {
    let names: Vec<&str> = report.plots.iter().map(|p| p.file.as_str()).collect();
    &report
        .plots
        .iter()
        .find(|p| p.file == file)
        .unwrap_or_else(|| panic!("no plot {file}; plots: {names:?}"))
        .svg
}

/// The text of every `<text>` element, trimmed.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            Some(
                t.split_once('>')?
                    .1
                    .split_once("</text>")?
                    .0
                    .trim()
                    .to_owned(),
            )
        })
        .collect()
}

fn whiskers(svg: &str) -> usize {
    svg.matches(&format!("stroke-width=\"{WHISKER}\" points="))
        .count()
}

#[test]
fn an_icount_plot_names_its_mode_series_and_parameters_and_has_no_whiskers() {
    let r = report();
    let svg = plot(&r, "fs-ops_instructions_per_op_icount_instructions.svg");
    assert!(
        svg.starts_with("<svg"),
        "not an SVG: {}",
        &svg[..60.min(svg.len())]
    );
    let texts = texts(svg);
    let title = &texts[0];
    assert_eq!(
        title,
        "fs-ops — instructions_per_op (mode icount: exact, latest run)"
    );
    for label in [
        "VAN",
        "COSY-FAST",
        "linux-syscall",
        "linux-io_uring",
        "stat",
        "pread",
        "instructions",
    ] {
        assert!(
            texts.iter().any(|t| t == label),
            "no text `{label}` in {texts:?}"
        );
    }
    assert!(
        !texts.iter().any(|t| t.contains("tcg")),
        "an icount plot mentions tcg: {texts:?}"
    );
    assert_eq!(whiskers(svg), 0);
}

#[test]
fn a_tcg_plot_carries_its_spread_and_never_an_icount_series() {
    let r = report();
    let svg = plot(&r, "fs-ops_tsc_cycles_per_op_tcg_tsc_cycles.svg");
    let texts = texts(svg);
    assert_eq!(
        texts[0],
        "fs-ops — tsc_cycles_per_op (mode tcg: median of up to 3 runs, whiskers min–max)"
    );
    assert!(
        !texts.iter().any(|t| t == "linux-io_uring"),
        "io_uring has no tcg record: {texts:?}"
    );
    // One whisker per bar: VAN, COSY-FAST and linux-syscall at `stat`.
    assert_eq!(whiskers(svg), 3);
}

#[test]
fn the_markdown_uses_the_rules_and_judges_the_targets() {
    let md = report().markdown;
    assert!(md.contains("from `tests/fixture.jsonl`: 23 records (lines 1–23), 16 of them tagged with 3 run ids (2026-12-01T10:00:00Z … 2026-12-03T08:00:00Z), 7 from before"), "{md}");
    // icount: the latest VAN stat (4,100), not the first (4,147).
    assert!(md.contains("| `stat` | 4,100 | 2,816 | 3,186 | – | 1.46 | 0.88 | – | Linux stat on a Core i7: 4,972 instructions (FlexSC Table 1) |"), "{md}");
    // tcg: the median of 100,000, 120,290 and 300,000.
    assert!(md.contains("| `stat` | 120,290 (100,000–300,000, 3 runs) | 13,420 (11,839–15,000, 2 runs) | 40,000 (1 run) | 8.96 | 0.34 |\n"), "FlexSC's instructions beside tcg: {md}");
    assert!(
        md.contains("| COSY-FAST cheaper than linux-syscall on cached 4 KiB reads | **met** |"),
        "{md}"
    );
    assert!(
        md.contains("| COSY-FAST cheaper than linux-io_uring on cached 4 KiB reads | **met** |"),
        "{md}"
    );
    assert!(
        md.contains(
            "| COSY-FAST cheaper than linux-syscall on ls -l | **missed** | by 6 % at `5000-warm`"
        ),
        "{md}"
    );
    assert!(md.contains("| IPC round trip ≤ 1.5x Linux getpid | **met** | 474 vs linux-syscall getpid (median) 321 = 1.48x |"), "{md}");
    assert!(
        md.contains("| IPC round trip ≤ 1/20 of a Linux pipe round trip | **met** |"),
        "{md}"
    );
    assert!(md.contains("| Rings against synchronous IPC (FlexSC on Conflux) | all | – | `cargo make bench rings` |"), "{md}");
    assert!(
        md.contains("- call_reply_roundtrip (1cpu) / getpid (linux-syscall): 1.477"),
        "{md}"
    );
    // IPC: medians only, Conflux's and Linux's metrics as rows.
    assert!(
        md.contains("(plots/ipc_by-metric_icount_instructions.svg)"),
        "{md}"
    );
    assert!(!md.contains("call_reply_roundtrip p99"), "{md}");
    assert!(md.contains("Benches in these records (modes): fs-ops (icount, tcg), ls-l (icount), ipc (icount), boot (tcg)."), "{md}");
    // Boot: Conflux's and Linux's metrics as rows of one table, then
    // the shell prompt over Linux's /init.
    assert!(md.contains("| metric | default | linux |"), "{md}");
    assert!(
        md.contains("| `qemu_start_to_shell_prompt` | 320 (300–340, 2 runs) | – |"),
        "{md}"
    );
    assert!(
        md.contains("- qemu_start_to_shell_prompt (default) / qemu_start_to_init (linux): 0.356"),
        "{md}"
    );
    for p in report().plots {
        assert!(
            md.contains(&format!("(plots/{})", p.file)),
            "{} is not linked",
            p.file
        );
    }
}

#[test]
fn write_puts_the_report_and_plots_in_the_folder_and_drops_stale_plots() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-write");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("plots")).unwrap();
    std::fs::write(dir.join("plots/gone.svg"), "<svg/>").unwrap();
    let results = dir.join("results.jsonl");
    std::fs::write(&results, FIXTURE).unwrap();
    let w = conflux_report::write(&results, &dir, "results.jsonl").unwrap();
    assert_eq!(w.records, 23);
    assert!(
        w.empty.iter().any(|t| t.starts_with("Rings")),
        "{:?}",
        w.empty
    );
    assert!(!dir.join("plots/gone.svg").exists());
    let svgs = std::fs::read_dir(dir.join("plots")).unwrap().count();
    assert_eq!(svgs, w.plots);
    assert!(std::fs::read_to_string(dir.join("report.md"))
        .unwrap()
        .starts_with("# Conflux benchmark report"));
    std::fs::write(&results, "{\"bench\":1}\n").unwrap();
    let e = conflux_report::write(&results, &dir, "x").err().unwrap();
    assert!(e.contains("line 1 is not a benchmark record"), "{e}");
}
