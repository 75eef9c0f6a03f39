//! The example report committed under `docs/report` is what the command
//! makes from the records committed beside it: never edited by hand,
//! and regenerated whenever the report's code changes what it writes.

use conflux_report::document::build;
use conflux_report::record::parse;
use std::path::Path;

const REGENERATE: &str = "cargo make report --results docs/report/results.jsonl --out docs/report";

#[test]
fn the_committed_example_is_the_commands_output() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/report");
    let text =
        std::fs::read_to_string(docs.join("results.jsonl")).expect("docs/report/results.jsonl");
    let report = build(
        &parse(&text).expect("the example's records parse"),
        "docs/report/results.jsonl",
    )
    .unwrap();
    let committed = std::fs::read_to_string(docs.join("report.md")).expect("docs/report/report.md");
    assert!(
        committed == report.markdown,
        "docs/report/report.md differs from what the report code writes now: run `{REGENERATE}` and commit the result"
    );
    let mut on_disk: Vec<String> = std::fs::read_dir(docs.join("plots"))
        .expect("docs/report/plots")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut made: Vec<String> = report.plots.iter().map(|p| p.file.clone()).collect();
    made.sort();
    assert_eq!(
        on_disk, made,
        "the example's plots are not the report's: run `{REGENERATE}`"
    );
    for p in &report.plots {
        let svg = std::fs::read_to_string(docs.join("plots").join(&p.file)).unwrap();
        assert!(
            svg == p.svg,
            "docs/report/plots/{} is stale: run `{REGENERATE}`",
            p.file
        );
    }
}
