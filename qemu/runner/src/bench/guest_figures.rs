//! What the benchmarks whose figures come from a guest task's record
//! lines share (`bench cosy` and `bench fs-ops`, both from
//! `apps/bench/cosybench`): the modes to run, one of which an environment
//! variable may name ([`modes`]), and the medians read back from the
//! console as [`Figure`]s, refused whole if the task failed a check or
//! never finished ([`figures`]): a figure of wrong work is worth nothing.

use conflux_abi::bench::Stat;

use super::{parse_bench_lines, Record};
use crate::accel::Accel;

/// One median the guest reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub bench: String,
    pub config: String,
    pub param: String,
    pub value: u64,
}

impl Figure {
    /// The figure as a record of `metric` in `unit`, measured in `mode`.
    pub fn record<'a>(&'a self, metric: &'a str, unit: &'a str, mode: &'a str) -> Record<'a> {
        Record {
            bench: &self.bench,
            config: &self.config,
            param: &self.param,
            metric,
            value: self.value as f64,
            unit,
            mode,
        }
    }

    /// Reads `bench__config__param` back (`_` within a part is `-`).
    pub fn from_metric(metric: &str, value: u64) -> Option<Figure> {
        let mut parts = metric.split("__");
        let (bench, config, param) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || [bench, config, param].iter().any(|p| p.is_empty()) {
            return None;
        }
        Some(Figure {
            bench: bench.replace('_', "-"),
            config: config.replace('_', "-"),
            param: param.replace('_', "-"),
            value,
        })
    }
}

/// The modes to run with their units: both, or the one `named` (the
/// value of environment variable `env`) names.
pub fn modes(env: &str, named: Option<&str>) -> Result<Vec<(Accel, &'static str)>, String> {
    let both = [(Accel::Tcg, "tsc_cycles"), (Accel::Icount, "instructions")];
    match named {
        None | Some("") => Ok(both.to_vec()),
        Some(name) => both
            .into_iter()
            .find(|(a, _)| a.as_str() == name)
            .map(|m| vec![m])
            .ok_or_else(|| format!("{env}=`{name}`: name tcg or icount, or unset it for both")),
    }
}

/// The medians task `task` printed in `output`; an error if it failed a
/// check or reported nothing.
pub fn figures(output: &str, task: &str) -> Result<Vec<Figure>, String> {
    if let Some(line) = output.lines().find(|l| l.contains("CHECK FAILED")) {
        return Err(format!("the benchmark task failed a check: {line}"));
    }
    if !output.contains(&format!("{task}: all ")) {
        return Err("the benchmark task never finished (no `all N checks passed`)".into());
    }
    let mut out = Vec::new();
    for line in parse_bench_lines(output, &[task])? {
        if line.stat() != Stat::Median {
            continue;
        }
        let figure = Figure::from_metric(line.metric(), line.value()).ok_or_else(|| {
            format!(
                "metric `{}` is not `bench__config__param` (apps/bench/cosybench/src/measure.rs)",
                line.metric()
            )
        })?;
        out.push(figure);
    }
    if out.is_empty() {
        return Err("the benchmark task reported no figures".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mode_can_be_named() {
        assert_eq!(modes("M", None).unwrap().len(), 2);
        assert_eq!(
            modes("M", Some("icount")).unwrap(),
            vec![(Accel::Icount, "instructions")]
        );
        assert!(modes("COSYBENCH_MODE", Some("kvm"))
            .unwrap_err()
            .contains("COSYBENCH_MODE=`kvm`"));
    }

    #[test]
    fn metric_names_are_read_back_into_their_parts() {
        let f = Figure::from_metric("null_loop__COSY_FAST__256", 7).unwrap();
        assert_eq!(
            (
                f.bench.as_str(),
                f.config.as_str(),
                f.param.as_str(),
                f.value
            ),
            ("null-loop", "COSY-FAST", "256", 7)
        );
        assert_eq!(Figure::from_metric("copy__VAN", 1), None);
        assert_eq!(Figure::from_metric("copy__VAN__1__x", 1), None);
        assert_eq!(Figure::from_metric("copy____1", 1), None);
    }

    #[test]
    fn medians_are_taken_and_failed_checks_stop_the_benchmark() {
        let out = "cosybench: BENCH grep__VAN__128KiB median 900\n\
                   cosybench: BENCH grep__VAN__128KiB p99 990\n\
                   cosybench: BENCH grep__COSY__128KiB median 600\n\
                   cosybench: all 9 checks passed\n";
        let got = figures(out, "cosybench").unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[1].config.as_str(), got[1].value), ("COSY", 600));
        let bad = format!("cosybench: CHECK FAILED: copy differs\n{out}");
        assert!(figures(&bad, "cosybench")
            .unwrap_err()
            .contains("failed a check"));
        let unfinished = "cosybench: BENCH grep__VAN__128KiB median 900\n";
        assert!(figures(unfinished, "cosybench")
            .unwrap_err()
            .contains("never finished"));
        let other = "other: BENCH grep__VAN__128KiB median 900\nother: all 1 checks passed\n";
        assert!(figures(other, "cosybench").is_err());
    }
}
