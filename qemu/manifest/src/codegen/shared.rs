//! One crate, several tasks: the constants all of them share, and each
//! task's own values as data for its configuration section.
//!
//! A crate is compiled once per system, so its `config::*` can hold only
//! what is the same for every task the manifest runs it as; the rest (the
//! task's name, a device's PCI address, slots that a flow endpoint moves)
//! the runner writes into each task's `.conflux_config` section
//! (`conflux-task-config`) and the task reads at start. Both views come
//! from the one generated text of each task ([`super::task_text`]), read
//! back here, so the compiled constants and the written values cannot
//! disagree: a constant is kept when every task has it with the same type
//! and value (a `super::caps::X` it refers to resolved first), and every
//! integer or `bool` constant of a task is one entry of its section, keyed
//! `NAME` at the top level and `module::NAME` inside a module.

use std::collections::HashMap;
use std::fmt::Write;

/// One line of generated text, classified.
enum Line<'t> {
    /// `pub mod NAME {`
    Open(&'t str),
    /// `}` closing a module.
    Close,
    /// `pub const NAME: TYPE = VALUE;` (the value with references resolved).
    Const {
        name: &'t str,
        ty: &'t str,
        value: String,
    },
    /// Docs, attributes, comments: kept with the next constant.
    Other(&'t str),
}

/// The constants of one task's text by key, each `(type, resolved value)`.
type Table = HashMap<String, (String, String)>;

/// Reads generated text into lines, resolving `super::MOD::NAME` in values.
fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut module: Option<&str> = None;
    let mut known: HashMap<String, String> = HashMap::new();
    for raw in text.lines() {
        let line = raw.trim_start();
        if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(" {"))
        {
            module = Some(name);
            out.push(Line::Open(name));
        } else if line == "}" && module.is_some() {
            module = None;
            out.push(Line::Close);
        } else if let Some((name, ty, value)) = parse_const(line) {
            let value = resolve(value, &known);
            known.insert(key(module, name), value.clone());
            out.push(Line::Const { name, ty, value });
        } else {
            out.push(Line::Other(raw));
        }
    }
    out
}

/// `pub const NAME: TYPE = VALUE;` split up.
fn parse_const(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("pub const ")?.strip_suffix(';')?;
    let (name, rest) = rest.split_once(": ")?;
    let (ty, value) = rest.split_once(" = ")?;
    Some((name, ty, value))
}

fn key(module: Option<&str>, name: &str) -> String {
    match module {
        Some(m) => format!("{m}::{name}"),
        None => name.to_owned(),
    }
}

/// `value` with each `super::MOD::NAME` replaced by that constant's value
/// (constants refer only to ones generated before them).
fn resolve(value: &str, known: &HashMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find("super::") {
        out.push_str(&rest[..at]);
        let path = &rest[at + "super::".len()..];
        let end = path
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(path.len());
        match known.get(&path[..end]) {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[at..at + "super::".len() + end]),
        }
        rest = &path[end..];
    }
    out.push_str(rest);
    out
}

fn table(lines: &[Line<'_>]) -> Table {
    let mut module = None;
    let mut table = Table::new();
    for line in lines {
        match line {
            Line::Open(m) => module = Some(*m),
            Line::Close => module = None,
            Line::Const { name, ty, value } => {
                table.insert(key(module, name), ((*ty).to_owned(), value.clone()));
            }
            Line::Other(_) => {}
        }
    }
    table
}

/// The text of a crate's constants given each of its tasks' texts (the
/// first one's order and docs): the constants every task has alike, and a
/// note naming the ones left out, which the tasks read at start instead.
pub(super) fn common(texts: &[String]) -> String {
    let first = lines(&texts[0]);
    let others: Vec<Table> = texts[1..].iter().map(|t| table(&lines(t))).collect();
    let mut out = String::new();
    let mut pending: Vec<&str> = Vec::new();
    let mut module = None;
    let mut left_out: Vec<String> = Vec::new();
    for line in &first {
        match line {
            Line::Other(raw) => pending.push(raw),
            Line::Open(m) => {
                module = Some(*m);
                flush(&mut out, &mut pending);
                let _ = writeln!(out, "pub mod {m} {{");
            }
            Line::Close => {
                module = None;
                flush(&mut out, &mut pending);
                out.push_str("}\n");
            }
            Line::Const { name, ty, value } => {
                let k = key(module, name);
                let alike = others
                    .iter()
                    .all(|t| t.get(&k).is_some_and(|(t2, v2)| t2 == ty && v2 == value));
                if alike {
                    flush(&mut out, &mut pending);
                    let indent = if module.is_some() { "    " } else { "" };
                    let _ = writeln!(out, "{indent}pub const {name}: {ty} = {value};");
                } else {
                    pending.clear();
                    left_out.push(k);
                }
            }
        }
    }
    flush(&mut out, &mut pending);
    if !left_out.is_empty() {
        let _ = writeln!(
            out,
            "// Differing between the tasks this crate runs as, so read at start from\n// the task's configuration section (`conflux_userlib::task`): {}",
            left_out.join(", ")
        );
    }
    out
}

fn flush(out: &mut String, pending: &mut Vec<&str>) {
    for line in pending.drain(..) {
        out.push_str(line);
        out.push('\n');
    }
}

/// Every integer and `bool` constant of one task's text, as the entries
/// of its configuration section, in the text's order.
pub(super) fn scalars(text: &str) -> Vec<(String, u64)> {
    let mut module = None;
    let mut out = Vec::new();
    for line in lines(text) {
        match line {
            Line::Open(m) => module = Some(m),
            Line::Close => module = None,
            Line::Const { name, ty, value } => {
                if let Some(v) = scalar(ty, &value) {
                    out.push((key(module, name), v));
                }
            }
            Line::Other(_) => {}
        }
    }
    out
}

/// The value of a scalar constant (`usize`, `u64`, `u32`, `u16`, `u8`,
/// `bool`), written as generated: decimal, or `0x` hex with `_`.
fn scalar(ty: &str, value: &str) -> Option<u64> {
    match ty {
        "bool" => match value {
            "true" => Some(1),
            "false" => Some(0),
            _ => None,
        },
        "usize" | "u64" | "u32" | "u16" | "u8" => {
            let digits: String = value.chars().filter(|&c| c != '_').collect();
            match digits.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => digits.parse().ok(),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "// head\n/// doc a\n#[allow(dead_code)]\npub const TASK_NAME: &str = \"a\";\n/// doc s\n#[allow(dead_code)]\npub const SYSTEM_NAME: &str = \"s\";\n/// caps\npub mod caps {\n    /// slot\n    pub const DEV0_BAR: usize = 2;\n    pub const FIRST_FREE: usize = 0x0_10;\n}\npub mod device {\n    pub const BAR: usize = super::caps::DEV0_BAR;\n    pub const BDF: u16 = 0x0040;\n}\n";
    const B: &str = "// head\n/// doc a\n#[allow(dead_code)]\npub const TASK_NAME: &str = \"b\";\n/// doc s\n#[allow(dead_code)]\npub const SYSTEM_NAME: &str = \"s\";\n/// caps\npub mod caps {\n    /// slot\n    pub const DEV1_BAR: usize = 2;\n    pub const FIRST_FREE: usize = 16;\n}\npub mod device {\n    pub const BAR: usize = super::caps::DEV1_BAR;\n    pub const BDF: u16 = 0x0048;\n}\n";

    #[test]
    fn common_keeps_what_every_task_has_alike() {
        let text = common(&[A.to_owned(), B.to_owned()]);
        // Equal after resolving the device's reference to its slot.
        assert!(
            text.contains("pub mod device {\n    pub const BAR: usize = 2;\n"),
            "{text}"
        );
        assert!(text.contains("#[allow(dead_code)]\npub const SYSTEM_NAME: &str = \"s\";"));
        assert!(!text.contains("TASK_NAME: &str"));
        assert!(!text.contains("BDF: u16"));
        // Same value, written differently: left out (the text is compared).
        assert!(!text.contains("FIRST_FREE: usize"));
        assert!(text.ends_with("(`conflux_userlib::task`): TASK_NAME, caps::DEV0_BAR, caps::FIRST_FREE, device::BDF\n"), "{text}");
    }

    #[test]
    fn scalars_are_every_integer_constant_by_key() {
        assert_eq!(
            scalars(A),
            [
                ("caps::DEV0_BAR".to_owned(), 2),
                ("caps::FIRST_FREE".to_owned(), 16),
                ("device::BAR".to_owned(), 2),
                ("device::BDF".to_owned(), 0x40),
            ]
        );
    }
}
