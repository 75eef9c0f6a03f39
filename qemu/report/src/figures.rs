//! From records to figures: one [`Figure`] per key (bench, config,
//! param, metric, mode), and the rule that says which records make it.
//!
//! Records are put in time order first: those without a run id (written
//! before records carried one) in file order, then those with one by
//! their id (the UTC time the run started, which sorts as text) and
//! file order within a run. In one results file, which only grows, that
//! is file order; in files joined from several machines it still puts
//! each run where it belongs. Under `icount` a run is exact (the same
//! code gives the same count every time), so a figure is the key's
//! latest record: older ones describe older code. Under every other mode
//! (`tcg`, `host`: host time) a single run is one draw from a noisy
//! host, so a figure is the median over every record of the key, with
//! its minimum, maximum and the number of runs. If a key's unit changed
//! between runs, only the records in its latest unit count.

use crate::record::Record;
use std::collections::HashMap;

/// What a figure is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub bench: String,
    pub config: String,
    pub param: String,
    pub metric: String,
    pub mode: String,
}

/// The figure shown for one key.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub unit: String,
    /// The latest value (exact modes) or the median over runs.
    pub value: f64,
    pub min: f64,
    pub max: f64,
    /// How many records (runs) it summarises.
    pub runs: usize,
    pub exact: bool,
}

/// Whether figures under `mode` are exact (one run says it all).
pub fn is_exact(mode: &str) -> bool {
    mode == "icount"
}

/// The median of `values` (the mean of the two middle ones for an even
/// count); `None` for none.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Every key's figure, keys in the order they first appear (in time order).
#[derive(Debug, Default)]
pub struct Figures {
    entries: Vec<(Key, Figure)>,
    index: HashMap<Key, usize>,
}

impl Figures {
    /// The figures of `records` (in file order).
    pub fn of(records: &[Record]) -> Figures {
        let mut timed: Vec<&Record> = records.iter().collect();
        timed.sort_by(|a, b| (&a.run, a.line).cmp(&(&b.run, b.line)));
        let mut order: Vec<Key> = Vec::new();
        let mut by_key: HashMap<Key, Vec<&Record>> = HashMap::new();
        for r in timed {
            let key = Key {
                bench: r.bench.clone(),
                config: r.config.clone(),
                param: r.param.clone(),
                metric: r.metric.clone(),
                mode: r.mode.clone(),
            };
            let list = by_key.entry(key.clone()).or_default();
            if list.is_empty() {
                order.push(key);
            }
            list.push(r);
        }
        let mut figures = Figures::default();
        for key in order {
            let list = &by_key[&key];
            let figure = summarise(list, is_exact(&key.mode));
            figures.index.insert(key.clone(), figures.entries.len());
            figures.entries.push((key, figure));
        }
        figures
    }

    /// The figure of one key.
    pub fn get(
        &self,
        bench: &str,
        config: &str,
        param: &str,
        metric: &str,
        mode: &str,
    ) -> Option<&Figure> {
        let key = Key {
            bench: bench.into(),
            config: config.into(),
            param: param.into(),
            metric: metric.into(),
            mode: mode.into(),
        };
        self.index.get(&key).map(|&i| &self.entries[i].1)
    }

    /// Every key and figure, in first-appearance order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Figure)> {
        self.entries.iter().map(|(k, f)| (k, f))
    }

    /// Whether any figure is of `bench`.
    pub fn has_bench(&self, bench: &str) -> bool {
        self.iter().any(|(k, _)| k.bench == bench)
    }
}

/// One key's figure from its records (file order, at least one).
fn summarise(records: &[&Record], exact: bool) -> Figure {
    let latest = records[records.len() - 1];
    let same_unit: Vec<f64> = records
        .iter()
        .filter(|r| r.unit == latest.unit)
        .map(|r| r.value)
        .collect();
    let used: &[f64] = if exact {
        &same_unit[same_unit.len() - 1..]
    } else {
        &same_unit
    };
    let min = used.iter().copied().fold(f64::INFINITY, f64::min);
    let max = used.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Figure {
        unit: latest.unit.clone(),
        value: median(used).unwrap_or(latest.value),
        min,
        max,
        runs: used.len(),
        exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(config: &str, mode: &str, value: f64, unit: &str, line: usize) -> Record {
        Record {
            bench: "fs-ops".into(),
            config: config.into(),
            param: "stat".into(),
            metric: "per_op".into(),
            value,
            unit: unit.into(),
            mode: mode.into(),
            run: None,
            line,
        }
    }

    #[test]
    fn icount_takes_the_latest_record_and_tcg_the_median_of_all() {
        let records = [
            rec("VAN", "icount", 6796.0, "instructions", 1),
            rec("VAN", "tcg", 100.0, "tsc_cycles", 2),
            rec("VAN", "icount", 4147.0, "instructions", 3),
            rec("VAN", "tcg", 300.0, "tsc_cycles", 4),
            rec("VAN", "tcg", 120.0, "tsc_cycles", 5),
        ];
        let f = Figures::of(&records);
        let icount = f.get("fs-ops", "VAN", "stat", "per_op", "icount").unwrap();
        assert_eq!((icount.value, icount.runs, icount.exact), (4147.0, 1, true));
        let tcg = f.get("fs-ops", "VAN", "stat", "per_op", "tcg").unwrap();
        assert_eq!(
            (tcg.value, tcg.min, tcg.max, tcg.runs),
            (120.0, 100.0, 300.0, 3)
        );
        assert!(!tcg.exact);
        let keys: Vec<&str> = f.iter().map(|(k, _)| k.mode.as_str()).collect();
        assert_eq!(keys, ["icount", "tcg"]);
    }

    #[test]
    fn runs_are_ordered_by_their_id_after_the_untagged_lines() {
        let tagged = |value: f64, run: &str, line: usize| Record {
            run: Some(run.into()),
            ..rec("VAN", "icount", value, "instructions", line)
        };
        // A file joined from two machines: the later run's lines first.
        let records = [
            tagged(300.0, "2026-12-02T09:00:00Z", 1),
            tagged(200.0, "2026-12-01T09:00:00Z", 2),
            rec("VAN", "icount", 100.0, "instructions", 3),
        ];
        let f = Figures::of(&records);
        let g = f.get("fs-ops", "VAN", "stat", "per_op", "icount").unwrap();
        assert_eq!(g.value, 300.0);
        let untagged_last = [
            tagged(200.0, "2026-12-01T09:00:00Z", 1),
            rec("VAN", "icount", 100.0, "instructions", 2),
        ];
        let g = Figures::of(&untagged_last);
        assert_eq!(
            g.get("fs-ops", "VAN", "stat", "per_op", "icount")
                .unwrap()
                .value,
            200.0
        );
    }

    #[test]
    fn a_changed_unit_drops_the_older_records() {
        let records = [
            rec("VAN", "tcg", 5.0, "us", 1),
            rec("VAN", "tcg", 100.0, "ns", 2),
            rec("VAN", "tcg", 200.0, "ns", 3),
        ];
        let f = Figures::of(&records);
        let g = f.get("fs-ops", "VAN", "stat", "per_op", "tcg").unwrap();
        assert_eq!((g.unit.as_str(), g.value, g.runs), ("ns", 150.0, 2));
    }

    #[test]
    fn medians_of_odd_even_and_empty_lists() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
