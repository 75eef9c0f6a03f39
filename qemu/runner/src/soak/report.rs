//! What a soak found: counts of everything done and checked, the
//! failures, a table for people and a JSON record for machines
//! (`target/soak/`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::http::Load;

/// The writer's last line, read back.
#[derive(Debug, Default, Clone)]
pub struct WriterEnd {
    pub rounds: u64,
    pub records: u64,
    pub checks: u64,
    pub errors: u64,
    pub reconnects: u64,
}

#[derive(Debug, Default)]
pub struct Report {
    pub seed: u64,
    pub minutes: f64,
    pub accel: String,
    pub elapsed_secs: f64,
    /// Per chore: done right, refused.
    pub chores: BTreeMap<&'static str, (u64, u64)>,
    pub refusals: Vec<String>,
    pub kills: BTreeMap<String, u64>,
    /// `(task, restarts)` from the last `ps`.
    pub restarts: Vec<(String, u64)>,
    pub http: Vec<Load>,
    pub probe_bytes: u64,
    pub writer: Option<WriterEnd>,
    pub net_baseline: Vec<String>,
    pub net_end: Vec<String>,
    pub failures: Vec<String>,
}

/// Refusals quoted in the report.
const QUOTED: usize = 8;

impl Report {
    pub fn chore(&mut self, name: &'static str, refused: Option<String>) {
        let e = self.chores.entry(name).or_default();
        match refused {
            None => e.0 += 1,
            Some(why) => {
                e.1 += 1;
                if self.refusals.len() < QUOTED {
                    self.refusals.push(why);
                }
            }
        }
    }

    pub fn killed(&mut self, victim: &str) {
        *self.kills.entry(victim.to_owned()).or_default() += 1;
    }

    pub fn fail(&mut self, what: String) {
        println!("[soak] FAILED: {what}");
        self.failures.push(what);
    }

    /// The shell stopped answering: nothing more can be checked through it.
    pub fn shell_stuck(&self) -> bool {
        self.failures.iter().any(|f| f.contains("gave no prompt"))
    }

    /// The table for people.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "soak: {:.1} min asked, {:.1} min run under {}, seed {} (CONFLUX_SOAK_SEED={} repeats the choices)", self.minutes, self.elapsed_secs / 60.0, self.accel, self.seed, self.seed);
        let _ = writeln!(
            t,
            "  {:<24} {:>10} {:>10} {:>9} {:>7} {:>7} {:>7} {:>6} {:>6}",
            "HTTP clients", "answers", "MiB", "resets", "cuts", "stalls", "5xx", "wrong", ""
        );
        for l in &self.http {
            let _ = writeln!(
                t,
                "  {:<24} {:>10} {:>10.1} {:>9} {:>7} {:>7} {:>7} {:>6}",
                format!("{} at once", l.clients),
                l.ok,
                l.bytes as f64 / 1048576.0,
                l.resets,
                l.cuts,
                l.stalls,
                l.unavailable,
                l.wrong
            );
        }
        let _ = writeln!(
            t,
            "  {:<24} {:>10} {:>10}",
            "shell chores", "right", "refused"
        );
        for (name, (ok, refused)) in &self.chores {
            let _ = writeln!(t, "  {:<24} {:>10} {:>10}", name, ok, refused);
        }
        let kills: Vec<String> = self.kills.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(
            t,
            "  kills: {}",
            if kills.is_empty() {
                "none".into()
            } else {
                kills.join(", ")
            }
        );
        let restarts: Vec<String> = self
            .restarts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(
            t,
            "  restarts (ps at the end): {}",
            if restarts.is_empty() {
                "none".into()
            } else {
                restarts.join(", ")
            }
        );
        match &self.writer {
            Some(w) => {
                let _ = writeln!(t, "  writer: {} rounds, {} records fsynced and read back intact, {} whole checks, {} failed calls survived, {} reconnects", w.rounds, w.records, w.checks, w.errors, w.reconnects);
            }
            None => {
                let _ = writeln!(t, "  writer: no final tally");
            }
        }
        let _ = writeln!(t, "  net at boot: {}", self.net_baseline.join(" | "));
        let _ = writeln!(t, "  net at end:  {}", self.net_end.join(" | "));
        for r in &self.refusals {
            let _ = writeln!(t, "  refused: {r}");
        }
        if self.failures.is_empty() {
            let _ = writeln!(t, "soak: PASSED");
        } else {
            let _ = writeln!(t, "soak: FAILED ({}):", self.failures.len());
            for f in &self.failures {
                let _ = writeln!(t, "  - {f}");
            }
        }
        t
    }

    /// The JSON record.
    pub fn json(&self) -> String {
        let http: Vec<String> = self
            .http
            .iter()
            .map(|l| format!("{{\"clients\":{},\"answers\":{},\"bytes\":{},\"resets\":{},\"cuts\":{},\"stalls\":{},\"unavailable\":{},\"wrong\":{},\"first_wrong\":{}}}", l.clients, l.ok, l.bytes, l.resets, l.cuts, l.stalls, l.unavailable, l.wrong, strings(&l.first_wrong)))
            .collect();
        let chores: Vec<String> = self
            .chores
            .iter()
            .map(|(k, (ok, refused))| {
                format!("{}:{{\"right\":{ok},\"refused\":{refused}}}", quote(k))
            })
            .collect();
        let kills: Vec<String> = self
            .kills
            .iter()
            .map(|(k, n)| format!("{}:{n}", quote(k)))
            .collect();
        let restarts: Vec<String> = self
            .restarts
            .iter()
            .map(|(k, n)| format!("{}:{n}", quote(k)))
            .collect();
        let writer = self.writer.as_ref().map_or("null".into(), |w| {
            format!(
                "{{\"rounds\":{},\"records\":{},\"checks\":{},\"errors\":{},\"reconnects\":{}}}",
                w.rounds, w.records, w.checks, w.errors, w.reconnects
            )
        });
        format!(
            "{{\"seed\":{},\"minutes\":{},\"accel\":{},\"elapsed_secs\":{:.1},\"passed\":{},\"http\":[{}],\"probe_bytes\":{},\"chores\":{{{}}},\"kills\":{{{}}},\"restarts\":{{{}}},\"writer\":{},\"net_baseline\":{},\"net_end\":{},\"refusals\":{},\"failures\":{}}}\n",
            self.seed, self.minutes, quote(&self.accel), self.elapsed_secs, self.failures.is_empty(), http.join(","), self.probe_bytes, chores.join(","), kills.join(","), restarts.join(","), writer, strings(&self.net_baseline), strings(&self.net_end), strings(&self.refusals), strings(&self.failures)
        )
    }
}

/// `s` as a JSON string.
fn quote(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(q, "\\u{:04x}", c as u32);
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

fn strings(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| quote(s)).collect();
    format!("[{}]", items.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped_and_a_failure_fails_the_record() {
        assert_eq!(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        let mut r = Report::default();
        assert!(r.json().contains("\"passed\":true"));
        r.fail("x \"y\"".into());
        let j = r.json();
        assert!(j.contains("\"passed\":false"), "{j}");
        assert!(j.contains("\"failures\":[\"x \\\"y\\\"\"]"), "{j}");
        assert!(r.table().contains("soak: FAILED (1):"));
    }
}
