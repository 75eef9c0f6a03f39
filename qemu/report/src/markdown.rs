//! Markdown for one [`Table`]: a row per parameter, a column per
//! configuration, then the ratio columns a section asks for and, where
//! a paper gave a figure, the paper's. Under a timed mode a cell is the
//! median with its min–max and the number of runs; under icount it is
//! the exact count.

use crate::figures::Figure;
use crate::table::Table;
use crate::targets::count;

/// A ratio column: `num`'s figure over `den`'s, at the same parameter.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub num: &'static str,
    pub den: &'static str,
}

/// A figure's value as text: whole with separators from 100 on (or
/// when whole), two decimals below.
pub fn number(v: f64) -> String {
    if v.abs() >= 100.0 || v.fract() == 0.0 {
        count(v)
    } else {
        format!("{v:.2}")
    }
}

/// A cell: exact, or median (min–max, runs).
pub fn cell(f: &Figure) -> String {
    if f.exact || f.runs == 1 {
        let one = if f.exact { "" } else { " (1 run)" };
        format!("{}{one}", number(f.value))
    } else {
        format!(
            "{} ({}–{}, {} runs)",
            number(f.value),
            number(f.min),
            number(f.max),
            f.runs
        )
    }
}

/// The ratio columns of `ratios` that `table` has both sides of.
pub fn present(table: &Table, ratios: &[Ratio]) -> Vec<Ratio> {
    let has = |c: &str| table.configs.iter().any(|x| x == c);
    ratios
        .iter()
        .copied()
        .filter(|r| has(r.num) && has(r.den))
        .collect()
}

/// The markdown table; `paper(param)` gives the paper column's text.
/// The column is left out when it is empty for every row, and becomes
/// one line under the table when it says the same for every row.
pub fn render(
    table: &Table,
    rows: &str,
    ratios: &[Ratio],
    paper: &dyn Fn(&str) -> Option<String>,
) -> String {
    let ratios = present(table, ratios);
    let mut papers: Vec<Option<String>> = table.params.iter().map(|p| paper(p)).collect();
    let mut note = None;
    if papers.len() > 1 && papers.iter().all(|p| p.is_some() && *p == papers[0]) {
        note = papers[0].take();
        papers.iter_mut().for_each(|p| *p = None);
    }
    let with_paper = papers.iter().any(Option::is_some);
    let mut head = vec![rows.to_owned()];
    head.extend(table.configs.iter().cloned());
    head.extend(ratios.iter().map(|r| format!("{} / {}", r.num, r.den)));
    if with_paper {
        head.push("paper".into());
    }
    let mut out = format!("| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len()));
    for (param, paper) in table.params.iter().zip(papers) {
        let mut row = vec![format!("`{param}`")];
        row.extend(
            table
                .configs
                .iter()
                .map(|c| table.cell(param, c).map_or("–".into(), cell)),
        );
        for r in &ratios {
            let v = match (table.cell(param, r.num), table.cell(param, r.den)) {
                (Some(n), Some(d)) if d.value != 0.0 => format!("{:.2}", n.value / d.value),
                _ => "–".into(),
            };
            row.push(v);
        }
        if with_paper {
            row.push(paper.unwrap_or_default());
        }
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    if let Some(note) = note {
        out.push_str(&format!("\nPaper: {note}.\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::Figures;
    use crate::record::Record;
    use crate::table::tables;

    fn rec(config: &str, param: &str, mode: &str, value: f64) -> Record {
        Record {
            bench: "fs-ops".into(),
            config: config.into(),
            param: param.into(),
            metric: "per_op".into(),
            value,
            unit: "u".into(),
            mode: mode.into(),
            run: None,
            line: 0,
        }
    }

    #[test]
    fn cells_ratios_and_the_paper_column() {
        let records = [
            rec("VAN", "stat", "icount", 6796.0),
            rec("COSY-FAST", "stat", "icount", 5073.0),
            rec("VAN", "nop", "icount", 1026.0),
        ];
        let t = &tables(&Figures::of(&records), |_| true)[0];
        let ratios = [
            Ratio {
                num: "VAN",
                den: "COSY-FAST",
            },
            Ratio {
                num: "COSY-FAST",
                den: "linux-syscall",
            },
        ];
        let paper = |p: &str| (p == "stat").then(|| "FlexSC 4,972".to_owned());
        let md = render(t, "param", &ratios, &paper);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(
            lines[0],
            "| param | VAN | COSY-FAST | VAN / COSY-FAST | paper |"
        );
        assert_eq!(lines[2], "| `stat` | 6,796 | 5,073 | 1.34 | FlexSC 4,972 |");
        assert_eq!(lines[3], "| `nop` | 1,026 | – | – |  |");
        let same = render(t, "param", &ratios, &|_| Some("6.7x".to_owned()));
        assert!(!same.lines().next().unwrap().contains("paper"), "{same}");
        assert!(same.ends_with("\nPaper: 6.7x.\n"), "{same}");
    }

    #[test]
    fn timed_cells_carry_their_spread() {
        let records = [
            rec("VAN", "stat", "tcg", 12.05),
            rec("VAN", "stat", "tcg", 10.0),
            rec("VAN", "stat", "tcg", 30.0),
        ];
        let f = Figures::of(&records);
        let t = &tables(&f, |_| true)[0];
        assert_eq!(
            cell(t.cell("stat", "VAN").unwrap()),
            "12.05 (10–30, 3 runs)"
        );
    }
}
