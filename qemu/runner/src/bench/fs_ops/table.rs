//! The printed comparison: one row per operation and mode, each
//! configuration's cost per operation, the speed-up of COSY and
//! COSY-FAST over VAN (`VAN / config`) and, beside icount rows, Linux's
//! figure from the design brief ([`super::linux`]).

use super::linux;
use super::Figure;

/// The table's lines for one mode's figures, operations in the order
/// reported.
pub fn rows(figures: &[Figure], mode: &str, unit: &str) -> Vec<String> {
    let mut out = vec![format!(
        "  {:<16} {:<6} {:>10} {:>10} {:>10} {:>7} {:>7}  {:<13} Linux (design brief)",
        "operation", "mode", "VAN", "COSY", "COSY-FAST", "COSY x", "FAST x", "unit/op"
    )];
    let mut ops: Vec<&str> = Vec::new();
    for f in figures {
        if !ops.contains(&f.param.as_str()) {
            ops.push(&f.param);
        }
    }
    for op in ops {
        let value = |config: &str| {
            figures
                .iter()
                .find(|f| f.param == op && f.config == config)
                .map(|f| f.value)
        };
        let van = value("VAN");
        let cell = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        let speedup = |v: Option<u64>| match (van, v) {
            (Some(van), Some(v)) if v > 0 => format!("{:.2}", van as f64 / v as f64),
            _ => "-".to_string(),
        };
        let linux = match mode {
            "icount" => linux::figure(op).unwrap_or("-"),
            _ => "",
        };
        out.push(format!(
            "  {:<16} {:<6} {:>10} {:>10} {:>10} {:>7} {:>7}  {:<13} {}",
            op,
            mode,
            cell(van),
            cell(value("COSY")),
            cell(value("COSY-FAST")),
            speedup(value("COSY")),
            speedup(value("COSY-FAST")),
            unit,
            linux
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(op: &str, config: &str, value: u64) -> Figure {
        Figure {
            bench: "fs-ops".into(),
            config: config.into(),
            param: op.into(),
            value,
        }
    }

    #[test]
    fn one_row_per_operation_with_speed_ups_and_linux_beside_icount_only() {
        let figures = [
            fig("nop", "VAN", 2400),
            fig("nop", "COSY", 100),
            fig("pread", "VAN", 16000),
            fig("pread", "COSY", 8000),
            fig("pread", "COSY-FAST", 4000),
        ];
        let rows = rows(&figures, "icount", "instructions");
        assert_eq!(rows.len(), 3);
        assert!(rows[1].contains("24.00"), "{}", rows[1]);
        assert!(rows[1].contains("getpid 321"), "{}", rows[1]);
        assert!(rows[1].contains(" - "), "nop has no COSY-FAST: {}", rows[1]);
        assert!(
            rows[2].contains("2.00") && rows[2].contains("4.00"),
            "{}",
            rows[2]
        );
        assert!(rows[2].contains("pread syscall 1,908"), "{}", rows[2]);
        let tcg = super::rows(&figures, "tcg", "tsc_cycles");
        assert!(!tcg[1].contains("getpid"), "{}", tcg[1]);
    }
}
