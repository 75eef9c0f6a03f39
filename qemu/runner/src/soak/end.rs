//! The soak's last checks, once the load has stopped: no task stuck or
//! restarted more than it was killed (`ps`), the network server's socket
//! counts back where they were after boot (`net`), the writer's last
//! tally, and the console free of failed checks and floods.

use std::time::{Duration, Instant};

use super::machine::Machine;
use super::report::{Report, WriterEnd};
use super::shell;

const COMMAND: Duration = Duration::from_secs(90);

/// States a task may rest in (`conflux_abi::task_info` names): running or
/// ready, waiting in IPC, or on a notification.
const SANE: [&str; 3] = ["ready", "ipc", "waiting"];

/// The `net` lines that count resources: sockets by kind and state, and
/// the stack's sockets in use.
pub fn net_counts(m: &mut Machine) -> Result<Vec<String>, String> {
    let out = shell::run(m, "net", COMMAND)?;
    let counts: Vec<String> = out
        .into_iter()
        .filter(|l| l.starts_with("sockets: ") || l.starts_with("stack: "))
        .collect();
    if counts.len() == 2 {
        Ok(counts)
    } else {
        Err(format!("`net` did not show its socket counts: {counts:?}"))
    }
}

/// Waits up to `within` for `net`'s counts to equal `baseline` (closing
/// connections take their time to go).
pub fn net_back(m: &mut Machine, baseline: &[String], within: Duration, r: &mut Report) {
    let until = Instant::now() + within;
    loop {
        match net_counts(m) {
            Ok(now) if now == baseline => {
                r.net_end = now;
                return;
            }
            Ok(now) if Instant::now() >= until => {
                r.fail(format!("the network server's sockets are not back at their count after boot within {} s: now {:?}, after boot {:?}", within.as_secs(), now, baseline));
                r.net_end = now;
                return;
            }
            Err(e) if Instant::now() >= until => {
                r.fail(e);
                return;
            }
            _ => std::thread::sleep(Duration::from_secs(5)),
        }
    }
}

/// `ps` at the end: every task in a sane state (the writer may have
/// ended), and restarted exactly as often as it was killed.
pub fn tasks(m: &mut Machine, r: &mut Report) -> Result<(), String> {
    let out = shell::run(m, "ps", COMMAND)?;
    let rows: Vec<(String, String, u64)> = out.iter().filter_map(|l| row(l)).collect();
    if rows.is_empty() {
        r.fail(format!("`ps` listed no task: {}", out.join(" / ")));
    }
    for (name, state, restarts) in rows {
        let sane = SANE.contains(&state.as_str()) || (name == "writer" && state == "exited");
        if !sane {
            r.fail(format!("task {name} is {state} at the end"));
        }
        let killed = r.kills.get(&name).copied().unwrap_or(0);
        if restarts != killed {
            r.fail(format!(
                "task {name} restarted {restarts} times but was killed {killed} times"
            ));
        }
        r.restarts.push((name, restarts));
    }
    Ok(())
}

/// One `ps` row: `  3  shell            ready       3        0`.
fn row(line: &str) -> Option<(String, String, u64)> {
    let w: Vec<&str> = line.split_whitespace().collect();
    match w[..] {
        [index, name, state, _prio, restarts] => {
            index.parse::<u32>().ok()?;
            Some((name.into(), state.into(), restarts.parse().ok()?))
        }
        _ => None,
    }
}

/// The writer's last line (`writer: stopped after R rounds: N records
/// ...; K whole checks passed; E failed calls survived (S reconnects)`).
pub fn writer_end(console: &str) -> Option<WriterEnd> {
    let line = console
        .lines()
        .find_map(|l| l.strip_prefix("writer: stopped after "))?;
    let n: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    match n[..] {
        [rounds, records, _files, checks, errors, reconnects] => Some(WriterEnd {
            rounds,
            records,
            checks,
            errors,
            reconnects,
        }),
        _ => None,
    }
}

/// Lines of the console that fail a soak whatever else went right.
pub fn console_problems(console: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in console.lines() {
        // (Faults and panics are the run verdict's: `run_verdict`.)
        let bad =
            line.contains("CHECK FAILED") || line.contains("faster than 25600 bytes a second");
        if bad && found.len() < 10 {
            found.push(format!("console: {line}"));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ps_rows_and_the_writers_tally_are_read() {
        assert_eq!(
            row("  9  writer           waiting     3        2"),
            Some(("writer".into(), "waiting".into(), 2))
        );
        assert_eq!(row("  #  task             state    prio restarts"), None);
        let w = writer_end("writer: stopped after 40 rounds: 320 records fsynced in 3 files, every one read back intact; 2 whole checks passed; 5 failed calls survived (1 reconnects)\n").unwrap();
        assert_eq!(
            (w.rounds, w.records, w.checks, w.errors, w.reconnects),
            (40, 320, 2, 5, 1)
        );
    }

    #[test]
    fn failed_checks_and_floods_are_found_and_kills_are_not() {
        let c = "writer: CHECK FAILED: lost\nconflux: task 'fs' stopped at the request of task 'shell'\nconflux: task 'w' writes to the console faster than 25600 bytes a second\n";
        assert_eq!(console_problems(c).len(), 2);
    }
}
