//! The printed comparison: per workload and parameter, each
//! configuration's median, its speed-up over VAN (`VAN / config`) and
//! its change in time (`(config - VAN) / VAN`, the papers' measure), and
//! the paper's figure.

use super::paper::claim;
use super::Figure;

/// The table's lines for one mode's figures, in the order reported.
pub fn rows(figures: &[Figure], mode: &str, unit: &str) -> Vec<String> {
    let mut out = vec![format!(
        "  {:<10} {:<8} {:<10} {:<6} {:>14} {:<12} {:>8} {:>8}  paper",
        "bench", "param", "config", "mode", "median", "unit", "speed-up", "time"
    )];
    for f in figures {
        let van = figures
            .iter()
            .find(|v| v.bench == f.bench && v.param == f.param && v.config == "VAN")
            .map(|v| v.value);
        let (speedup, change) = match van {
            Some(v) if f.config != "VAN" && f.value > 0 && v > 0 => (
                format!("{:.2}x", v as f64 / f.value as f64),
                format!("{:+.0} %", (f.value as f64 - v as f64) / v as f64 * 100.0),
            ),
            _ => (String::new(), String::new()),
        };
        out.push(format!(
            "  {:<10} {:<8} {:<10} {:<6} {:>14} {:<12} {:>8} {:>8}  {}",
            f.bench,
            f.param,
            f.config,
            mode,
            f.value,
            unit,
            speedup,
            change,
            claim(&f.bench, &f.config)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(config: &str, value: u64) -> Figure {
        Figure {
            bench: "grep".into(),
            config: config.into(),
            param: "128KiB".into(),
            value,
        }
    }

    #[test]
    fn speed_up_and_change_are_against_van_of_the_same_parameter() {
        let rows = rows(
            &[fig("VAN", 1000), fig("COSY", 800)],
            "icount",
            "instructions",
        );
        assert_eq!(rows.len(), 3);
        assert!(rows[2].contains("1.25x"), "{}", rows[2]);
        assert!(rows[2].contains("-20 %"), "{}", rows[2]);
        assert!(rows[2].contains("-13 % elapsed"), "{}", rows[2]);
        assert!(!rows[1].contains('x'), "{}", rows[1]);
    }
}
