//! One line of `target/bench/results.jsonl`, read and checked once.
//!
//! The file is written by many hands (the runner's benches, the
//! cosy-abi host bench, the Linux peer), so a line is untrusted until
//! [`parse`] has checked it: every text field present and non-empty, the
//! value a finite number. A bad line stops the report with its line
//! number: a report that silently drops a figure is worse than none.
//! Fields this reader does not know are ignored, so a writer may add
//! one without breaking older reports; `run` (an id of the `cargo make
//! bench` invocation that wrote the line) is optional, because lines
//! written before it existed have none.

use serde::Deserialize;

/// A checked benchmark record.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub bench: String,
    pub config: String,
    pub param: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub mode: String,
    /// The run that wrote it, when the writer said.
    pub run: Option<String>,
    /// Its line in the file (1-based): later lines are later runs.
    pub line: usize,
}

/// A line as it is in the file, before the checks.
#[derive(Deserialize)]
struct Raw {
    bench: String,
    config: String,
    param: String,
    metric: String,
    value: f64,
    unit: String,
    mode: String,
    #[serde(default)]
    run: Option<String>,
}

impl Raw {
    fn check(self, line: usize) -> Result<Record, String> {
        for (name, text) in [
            ("bench", &self.bench),
            ("config", &self.config),
            ("param", &self.param),
            ("metric", &self.metric),
            ("unit", &self.unit),
            ("mode", &self.mode),
        ] {
            if text.trim().is_empty() {
                return Err(format!("line {line}: field `{name}` is empty"));
            }
        }
        if !self.value.is_finite() {
            return Err(format!(
                "line {line}: value {} is not a finite number",
                self.value
            ));
        }
        Ok(Record {
            bench: self.bench,
            config: self.config,
            param: self.param,
            metric: self.metric,
            value: self.value,
            unit: self.unit,
            mode: self.mode,
            run: self.run,
            line,
        })
    }
}

/// Every record in `text` (the contents of a results file), in file
/// order; blank lines are skipped. The error names the first bad line.
pub fn parse(text: &str) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let raw: Raw = serde_json::from_str(line).map_err(|e| {
            format!("line {number} is not a benchmark record ({e}); every line must be one JSON object with bench, config, param, metric, value, unit and mode")
        })?;
        records.push(raw.check(number)?);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_and_without_a_run_are_read_in_file_order() {
        let text = concat!(
            r#"{"bench":"ipc","config":"1cpu","param":"median","metric":"call_reply_roundtrip","value":474,"unit":"instructions","mode":"icount"}"#,
            "\n\n",
            r#"{"bench":"ipc","config":"1cpu","param":"median","metric":"call_reply_roundtrip","value":470,"unit":"instructions","mode":"icount","run":"r2","extra":1}"#,
            "\n"
        );
        let got = parse(text).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].value, got[0].run.as_deref(), got[0].line),
            (474.0, None, 1)
        );
        assert_eq!(
            (got[1].value, got[1].run.as_deref(), got[1].line),
            (470.0, Some("r2"), 3)
        );
    }

    #[test]
    fn a_bad_line_is_named() {
        let missing =
            r#"{"bench":"ipc","config":"1cpu","param":"median","value":1,"unit":"u","mode":"tcg"}"#;
        let e = parse(&format!("\n{missing}\n")).unwrap_err();
        assert!(e.starts_with("line 2 is not a benchmark record"), "{e}");
        assert!(e.contains("metric"), "{e}");
        let empty = r#"{"bench":"ipc","config":" ","param":"median","metric":"m","value":1,"unit":"u","mode":"tcg"}"#;
        assert_eq!(parse(empty).unwrap_err(), "line 1: field `config` is empty");
        assert!(parse("not json").unwrap_err().contains("line 1"));
    }
}
