//! The benchmark report (`cargo make report`): reads the records in
//! `target/bench/results.jsonl` (one JSON object per line, written by
//! every `cargo make bench`) and writes `report.md` with its SVG plots
//! under `plots/`. Each figure is chosen by one rule ([`figures`]), each
//! table and plot holds one mode ([`table`]), the sections say what is
//! compared with what and which records are still missing
//! ([`sections`]), and issue 25's targets are judged from the icount
//! figures ([`targets`]).

pub mod chart;
pub mod document;
pub mod figures;
pub mod markdown;
pub mod papers;
pub mod record;
pub mod sections;
pub mod svg;
pub mod table;
pub mod targets;
mod write;

pub use write::{write, Written};
