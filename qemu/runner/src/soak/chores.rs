//! The shell's part of the soak: commands typed one after another while
//! the HTTP load runs — `ls -l`, `cat`, `df`, `net`, `ps` and a flow with
//! checked records — and, at the times the seeded schedule says, `kill`
//! of a driver or server, after which init must restart it.
//!
//! A command that a restart under way refuses (its output is one error
//! line naming the command: `cat: /README: ...`) is counted as refused,
//! not failed: the shell reports it and goes on, as it should. Output
//! that is wrong without saying why — a file's text that differs from the
//! host's copy, a flow with a bad tally — is a failure.

use std::time::Duration;

use super::flows::{self, FlowEnd};
use super::machine::Machine;
use super::report::Report;
use super::rng::Rng;
use super::shell;

/// Tasks the soak kills (manifest names); init restarts each.
pub const VICTIMS: [&str; 6] = ["blk", "nic", "net", "fs", "soft", "flowmgr"];
/// How long one command may take (tcg, under load).
const COMMAND: Duration = Duration::from_secs(90);
/// How long init may take to restart a killed task.
const RESTART: Duration = Duration::from_secs(60);

/// The chores in the order they come round.
const ROUND: [&str; 6] = ["ls", "cat", "df", "net", "ps", "flow"];

/// What the host knows the shell's commands must show.
pub struct Expect {
    /// `qemu/disk/README`'s lines.
    pub readme: Vec<String>,
}

/// Runs chore number `n` (of [`ROUND`], cycled).
pub fn chore(m: &mut Machine, n: usize, expect: &Expect, r: &mut Report) -> Result<(), String> {
    let name = ROUND[n % ROUND.len()];
    let outcome = match name {
        "ls" => listed(m),
        "cat" => catted(m, expect),
        "df" => simple(m, "df", "KiB-total"),
        "net" => simple(m, "net", "sockets: "),
        "ps" => simple(m, "ps", "restarts"),
        _ => match flows::cycle(m, n as u32 % 1000 + 1) {
            Ok(FlowEnd::Clean) => Ok(None),
            Ok(FlowEnd::Refused(why)) => Ok(Some(why)),
            Err(e) => Err(e),
        },
    };
    match outcome {
        Ok(None) => r.chore(name, None),
        Ok(Some(refusal)) => r.chore(name, Some(refusal)),
        Err(e) => {
            r.chore(name, None);
            r.fail(format!("shell `{name}`: {e}"));
        }
    }
    Ok(())
}

/// `Ok(None)`: the output is right; `Ok(Some(why))`: the command was
/// refused with an error line; `Err`: the output is wrong.
type Outcome = Result<Option<String>, String>;

/// An error line from `command` (`CMD: ...`), if that is what `out` is.
fn refusal(command: &str, out: &[String]) -> Option<String> {
    let name = command.split_whitespace().next().unwrap_or(command);
    out.iter()
        .find(|l| {
            l.starts_with(&format!("{name}: "))
                || l.starts_with("the file server restarted")
                || l.starts_with("reconnected to")
                || l.starts_with("cannot reconnect")
        })
        .map(|l| format!("`{command}`: {l}"))
}

fn simple(m: &mut Machine, command: &str, must: &str) -> Outcome {
    let out = shell::run(m, command, COMMAND)?;
    if out.iter().any(|l| l.contains(must)) {
        return Ok(None);
    }
    refusal(command, &out)
        .map(Some)
        .ok_or_else(|| format!("no line with `{must}` in: {}", out.join(" / ")))
}

fn listed(m: &mut Machine) -> Outcome {
    let out = shell::run(m, "ls -l /", COMMAND)?;
    let has = |name: &str| {
        out.iter()
            .any(|l| l.ends_with(&format!(" {name}")) || l.ends_with(&format!(" {name}/")))
    };
    if has("README") && has("data") {
        return Ok(None);
    }
    refusal("ls", &out).map(Some).ok_or_else(|| {
        format!(
            "`ls -l /` lists neither README nor data: {}",
            out.join(" / ")
        )
    })
}

fn catted(m: &mut Machine, expect: &Expect) -> Outcome {
    let out = shell::run(m, "cat /README", COMMAND)?;
    if out == expect.readme {
        return Ok(None);
    }
    // Refused: every line is the shell's error or its reconnecting.
    let said_why = |l: &String| {
        l.starts_with("cat: ")
            || l.starts_with("the file server restarted")
            || l.starts_with("reconnected to")
            || l.starts_with("cannot reconnect")
            || l.starts_with("run the command again")
    };
    match refusal("cat", &out) {
        Some(why) if out.iter().all(said_why) => Ok(Some(why)),
        _ => Err(format!(
            "`cat /README` shows {} lines that differ from the host's qemu/disk/README ({} lines); first shown: {:?}",
            out.len(),
            expect.readme.len(),
            out.first()
        )),
    }
}

/// Kills `victim` through the shell and waits for init to restart it.
pub fn kill(m: &mut Machine, victim: &str, r: &mut Report) -> Result<(), String> {
    let from = m.line_start();
    let out = shell::run(m, &format!("kill {victim}"), COMMAND)?;
    if !out
        .iter()
        .any(|l| l.starts_with("kill: stopped task") && l.ends_with(&format!("({victim})")))
    {
        r.fail(format!(
            "`kill {victim}` did not stop it: {}",
            out.join(" / ")
        ));
        return Ok(());
    }
    r.killed(victim);
    let restarted = format!("conflux: task '{victim}' restarted by its supervisor");
    if !m.wait(from, RESTART, |t| t.contains(&restarted)) {
        r.fail(format!(
            "init did not restart `{victim}` within {} s of `kill {victim}`",
            RESTART.as_secs()
        ));
    }
    Ok(())
}

/// The kill schedule: victims in a shuffled cycle (each once before any
/// twice), `gap` seconds apart.
pub struct Schedule {
    rng: Rng,
    victims: Vec<String>,
    left: Vec<String>,
    pub gap: (u64, u64),
}

impl Schedule {
    pub fn new(rng: Rng, victims: &[String], gap: (u64, u64)) -> Schedule {
        Schedule {
            rng,
            victims: victims.to_vec(),
            left: Vec::new(),
            gap,
        }
    }

    /// The next task to kill (`None`: the soak kills none).
    pub fn next_victim(&mut self) -> Option<String> {
        if self.left.is_empty() {
            self.left = self.victims.clone();
        }
        if self.left.is_empty() {
            return None;
        }
        let i = self.rng.next() as usize % self.left.len();
        Some(self.left.swap_remove(i))
    }

    pub fn next_gap(&mut self) -> Duration {
        Duration::from_secs(self.rng.between(self.gap.0, self.gap.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_victim_comes_once_per_cycle() {
        let all: Vec<String> = VICTIMS.map(String::from).to_vec();
        let mut s = Schedule::new(Rng::new(3), &all, (20, 40));
        let mut seen: Vec<String> = (0..all.len()).filter_map(|_| s.next_victim()).collect();
        seen.sort_unstable();
        let mut sorted = all.clone();
        sorted.sort_unstable();
        assert_eq!(seen, sorted);
        assert_eq!(Schedule::new(Rng::new(3), &[], (1, 2)).next_victim(), None);
        let gap = s.next_gap().as_secs();
        assert!((20..=40).contains(&gap));
    }

    #[test]
    fn an_error_line_is_a_refusal_and_other_text_is_not() {
        let out = vec!["cat: /README: the file server restarted".to_owned()];
        assert!(refusal("cat /README", &out).is_some());
        assert!(refusal("cat /README", &["Conflux".to_owned()]).is_none());
    }
}
