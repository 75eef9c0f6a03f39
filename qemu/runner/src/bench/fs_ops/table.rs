//! The printed comparison: one row per operation and mode, each
//! configuration's cost per operation, the speed-up of COSY and
//! COSY-FAST over VAN (`VAN / config`) and Linux's figures in the same
//! mode, through syscalls and io_uring ([`super::linux`]).

use super::linux::Linux;
use super::Figure;

/// The table's lines for one mode's figures, operations in the order
/// reported.
pub fn rows(figures: &[Figure], mode: &str, unit: &str, linux: &Linux) -> Vec<String> {
    let mut out = vec![format!(
        "  {:<16} {:<6} {:>10} {:>10} {:>10} {:>7} {:>7}  {:<13} Linux syscall / io_uring",
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
        let linux = linux.cell(op, mode);
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
    fn one_row_per_operation_with_speed_ups_and_linux_in_the_same_mode() {
        let figures = [
            fig("nop", "VAN", 2400),
            fig("nop", "COSY", 100),
            fig("pread", "VAN", 16000),
            fig("pread", "COSY", 8000),
            fig("pread", "COSY-FAST", 4000),
        ];
        let linux = Linux::read(concat!(
            r#"{"bench":"fs-ops","config":"linux-syscall","param":"pread","metric":"instructions_per_op","value":5637,"unit":"instructions","mode":"icount"}"#,
            "\n",
            r#"{"bench":"fs-ops","config":"linux-io_uring","param":"pread","metric":"instructions_per_op","value":6021,"unit":"instructions","mode":"icount"}"#,
        ));
        let rows = rows(&figures, "icount", "instructions", &linux);
        assert_eq!(rows.len(), 3);
        assert!(rows[1].contains("24.00"), "{}", rows[1]);
        assert!(
            rows[1].ends_with("- / -"),
            "no Linux nop record: {}",
            rows[1]
        );
        assert!(rows[1].contains(" - "), "nop has no COSY-FAST: {}", rows[1]);
        assert!(
            rows[2].contains("2.00") && rows[2].contains("4.00"),
            "{}",
            rows[2]
        );
        assert!(rows[2].ends_with("5637 / 6021"), "{}", rows[2]);
        let tcg = super::rows(&figures, "tcg", "tsc_cycles", &linux);
        assert!(
            tcg[2].ends_with("- / -"),
            "icount figures stay in icount: {}",
            tcg[2]
        );
    }
}
