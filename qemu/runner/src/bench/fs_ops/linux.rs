//! Linux's cost of the same operations, as `cargo make bench linux` last
//! measured it on the same machine and in the same mode: the newest
//! `fs-ops` records of configs `linux-syscall` and `linux-io_uring` in
//! `target/bench/results.jsonl`. This run measures none of them; where
//! there is no record yet, the table says so.

use std::collections::HashMap;

/// Said under the table.
pub const NOTE: &str = "Linux: syscall / io_uring per operation, the newest records of `cargo make bench linux` (Linux 6.1 on the same machine and mode) in target/bench/results.jsonl; `-`: none yet";

/// The newest Linux figure per (config, operation, mode).
#[derive(Default)]
pub struct Linux {
    figures: HashMap<(String, String, String), f64>,
}

/// The text of field `key` of a record line as `Record::to_json` writes
/// it (the runner's own lines: values without quotes or escapes).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let quoted = format!("\"{key}\":\"");
    if let Some(at) = line.find(&quoted) {
        let rest = &line[at + quoted.len()..];
        return rest.split('"').next();
    }
    let bare = format!("\"{key}\":");
    let rest = &line[line.find(&bare)? + bare.len()..];
    rest.split([',', '}']).next()
}

impl Linux {
    /// The figures in results text `results` (later lines are newer).
    pub fn read(results: &str) -> Linux {
        let mut figures = HashMap::new();
        for line in results.lines() {
            let get = |k| field(line, k);
            if get("bench") != Some("fs-ops") {
                continue;
            }
            let (Some(config), Some(op), Some(mode), Some(value)) =
                (get("config"), get("param"), get("mode"), get("value"))
            else {
                continue;
            };
            if !config.starts_with("linux-") {
                continue;
            }
            if let Ok(v) = value.parse::<f64>() {
                figures.insert((config.to_owned(), op.to_owned(), mode.to_owned()), v);
            }
        }
        Linux { figures }
    }

    /// The figures in the results file (none if there is none).
    pub fn load() -> Linux {
        std::fs::read_to_string(super::super::results_path())
            .map(|t| Linux::read(&t))
            .unwrap_or_default()
    }

    /// `syscall / io_uring` for operation `op` in `mode`.
    pub fn cell(&self, op: &str, mode: &str) -> String {
        let one = |config: &str| {
            self.figures
                .get(&(config.to_owned(), op.to_owned(), mode.to_owned()))
                .map_or("-".to_owned(), |v| format!("{v:.0}"))
        };
        format!("{} / {}", one("linux-syscall"), one("linux-io_uring"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_record_of_each_config_op_and_mode_is_shown() {
        let text = concat!(
            r#"{"bench":"fs-ops","config":"linux-syscall","param":"pread","metric":"instructions_per_op","value":6000,"unit":"instructions","mode":"icount"}"#,
            "\n",
            r#"{"bench":"fs-ops","config":"linux-syscall","param":"pread","metric":"instructions_per_op","value":5637,"unit":"instructions","mode":"icount"}"#,
            "\n",
            r#"{"bench":"fs-ops","config":"linux-io_uring","param":"pread","metric":"instructions_per_op","value":6021,"unit":"instructions","mode":"icount"}"#,
            "\n",
            r#"{"bench":"fs-ops","config":"VAN","param":"pread","metric":"instructions_per_op","value":2775,"unit":"instructions","mode":"icount"}"#,
            "\n",
            r#"{"bench":"ipc","config":"linux-syscall","param":"median","metric":"getpid","value":313,"unit":"instructions","mode":"icount"}"#,
            "\n",
        );
        let linux = Linux::read(text);
        assert_eq!(linux.cell("pread", "icount"), "5637 / 6021");
        assert_eq!(linux.cell("pread", "tcg"), "- / -");
        assert_eq!(linux.cell("readdir", "icount"), "- / -");
        assert_eq!(
            linux.figures.len(),
            2,
            "VAN and ipc records are not Linux fs-ops figures"
        );
    }
}
