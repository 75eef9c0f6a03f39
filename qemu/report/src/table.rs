//! A workload's figures as a table: one per (bench, metric, mode,
//! unit), parameters as rows and configurations as columns. Any config
//! is a column, so records of a new configuration (the Linux peer's
//! `linux-syscall` and `linux-io_uring`, a new Conflux path) land in
//! the report without code changes. A table never mixes modes or units.

use crate::figures::{Figure, Figures, Key};
use std::collections::HashMap;

/// Conflux's configurations first, in this order; then any other
/// Conflux configuration in the order met; Linux's (`linux-*`) last.
const CONFLUX_ORDER: [&str; 9] = [
    "VAN",
    "COSY",
    "COSY-FAST",
    "1cpu",
    "default",
    "sync-ipc-1cpu",
    "sync-ipc-2cpu",
    "ring",
    "ring-compound",
];

/// Whether `config` is one of the Linux peer's.
pub fn is_linux(config: &str) -> bool {
    config.starts_with("linux")
}

fn rank(config: &str) -> (u8, usize) {
    match CONFLUX_ORDER.iter().position(|c| *c == config) {
        Some(i) => (0, i),
        None if is_linux(config) => (2, 0),
        None => (1, 0),
    }
}

/// One workload's figures in one mode and unit.
#[derive(Clone, Debug)]
pub struct Table {
    pub bench: String,
    pub metric: String,
    pub mode: String,
    pub unit: String,
    pub params: Vec<String>,
    pub configs: Vec<String>,
    cells: HashMap<(String, String), Figure>,
}

impl Table {
    /// The figure at `param` and `config`.
    pub fn cell(&self, param: &str, config: &str) -> Option<&Figure> {
        self.cells.get(&(param.to_owned(), config.to_owned()))
    }

    /// Whether any figure in it comes from a mode that is not exact.
    pub fn timed(&self) -> bool {
        self.cells.values().any(|f| !f.exact)
    }
}

/// The tables of the figures that `keep` accepts, in the order their
/// first figure appears; rows and columns likewise (columns ranked as
/// [`CONFLUX_ORDER`] says).
pub fn tables(figures: &Figures, keep: impl Fn(&Key) -> bool) -> Vec<Table> {
    let mut out: Vec<Table> = Vec::new();
    for (key, figure) in figures.iter().filter(|(k, _)| keep(k)) {
        let found = out.iter().position(|t| {
            t.bench == key.bench
                && t.metric == key.metric
                && t.mode == key.mode
                && t.unit == figure.unit
        });
        let t = match found {
            Some(i) => &mut out[i],
            None => {
                out.push(Table {
                    bench: key.bench.clone(),
                    metric: key.metric.clone(),
                    mode: key.mode.clone(),
                    unit: figure.unit.clone(),
                    params: Vec::new(),
                    configs: Vec::new(),
                    cells: HashMap::new(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        if !t.params.contains(&key.param) {
            t.params.push(key.param.clone());
        }
        if !t.configs.contains(&key.config) {
            t.configs.push(key.config.clone());
        }
        t.cells
            .insert((key.param.clone(), key.config.clone()), figure.clone());
    }
    for t in &mut out {
        // A stable sort keeps configs of equal rank in the order met.
        t.configs.sort_by_key(|c| rank(c));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    fn rec(config: &str, param: &str, mode: &str, unit: &str, value: f64) -> Record {
        Record {
            bench: "grep".into(),
            config: config.into(),
            param: param.into(),
            metric: "time".into(),
            value,
            unit: unit.into(),
            mode: mode.into(),
            run: None,
            line: 0,
        }
    }

    #[test]
    fn one_table_per_mode_and_unit_with_linux_columns_last() {
        let records = [
            rec("linux-io_uring", "1MiB", "icount", "instructions", 5.0),
            rec("COSY-FAST", "1MiB", "icount", "instructions", 3.0),
            rec("VAN", "2MiB", "icount", "instructions", 9.0),
            rec("linux-syscall", "1MiB", "icount", "instructions", 4.0),
            rec("VAN", "1MiB", "tcg", "tsc_cycles", 7.0),
            rec("experimental", "1MiB", "icount", "instructions", 6.0),
        ];
        let t = tables(&Figures::of(&records), |_| true);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].mode, "icount");
        assert_eq!(
            t[0].configs,
            [
                "VAN",
                "COSY-FAST",
                "experimental",
                "linux-io_uring",
                "linux-syscall"
            ]
        );
        assert_eq!(t[0].params, ["1MiB", "2MiB"]);
        assert_eq!(t[0].cell("2MiB", "VAN").map(|f| f.value), Some(9.0));
        assert!(t[0].cell("2MiB", "COSY-FAST").is_none());
        assert!(!t[0].timed());
        assert_eq!(
            (t[1].mode.as_str(), t[1].unit.as_str()),
            ("tcg", "tsc_cycles")
        );
        assert!(t[1].timed());
    }
}
