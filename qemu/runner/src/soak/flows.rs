//! One flow with checked records, made, watched and destroyed through the
//! shell: a pattern source, AES-CBC encrypt and decrypt in the software
//! stage task, and a `check` sink that verifies every record. The flow
//! must end `done` with every record good and none missing, repeated or
//! damaged.

use std::time::{Duration, Instant};

use super::machine::Machine;
use super::shell;

/// Records per flow.
pub const RECORDS: u64 = 2000;
const KEY: &str = "000102030405060708090a0b0c0d0e0f";
/// How long a flow may take to finish.
const FINISH: Duration = Duration::from_secs(120);
const COMMAND: Duration = Duration::from_secs(60);

/// How a flow went.
pub enum FlowEnd {
    /// Done with every record good.
    Clean,
    /// flowmgr or the shell refused a step (a restart under way): its words.
    Refused(String),
}

/// The check sink's tally from `flow stats` lines:
/// `(good, missing, repeated, damaged)`.
pub fn sink_tally(lines: &[String]) -> Option<(u64, u64, u64, u64)> {
    let line = lines.iter().find_map(|l| l.trim().strip_prefix("sink: "))?;
    let n: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect();
    match n[..] {
        [good, missing, repeated, damaged] => Some((good, missing, repeated, damaged)),
        _ => None,
    }
}

/// The flow's state word from `flow stats`' first line (`flow N: done; ...`).
fn state(lines: &[String]) -> Option<&str> {
    let (who, rest) = lines.first()?.split_once(": ")?;
    who.strip_prefix("flow ")?.parse::<u32>().ok()?;
    Some(rest.split(';').next()?.trim())
}

/// Makes, watches and destroys one flow. `Err`: a wrong tally or a stuck
/// flow (a failure of the soak).
pub fn cycle(m: &mut Machine, seed: u32) -> Result<FlowEnd, String> {
    let create = format!(
        "flow create pattern:{RECORDS}:{seed} encrypt:cbc:{KEY} decrypt:cbc:{KEY} check:{seed}"
    );
    let out = shell::run(m, &create, COMMAND)?;
    let Some(id) = out.iter().find_map(|l| {
        l.strip_prefix("flow ")?
            .strip_suffix(": created")?
            .parse::<u32>()
            .ok()
    }) else {
        return Ok(FlowEnd::Refused(out.join(" / ")));
    };
    let until = Instant::now() + FINISH;
    let stats = loop {
        let out = shell::run(m, &format!("flow stats {id}"), COMMAND)?;
        match state(&out) {
            Some("done") => break out,
            Some("running" | "recovering") if Instant::now() < until => {
                std::thread::sleep(Duration::from_secs(1))
            }
            Some(other) => {
                let _ = shell::run(m, &format!("flow destroy {id}"), COMMAND);
                return Err(format!(
                    "flow {id} ({RECORDS} records) {other} instead of done (after up to {} s): {}",
                    FINISH.as_secs(),
                    out.join(" / ")
                ));
            }
            None => {
                let _ = shell::run(m, &format!("flow destroy {id}"), COMMAND);
                return Ok(FlowEnd::Refused(out.join(" / ")));
            }
        }
    };
    let destroyed = shell::run(m, &format!("flow destroy {id}"), COMMAND)?;
    match sink_tally(&stats) {
        Some((good, 0, 0, 0)) if good == RECORDS => {}
        Some((good, missing, repeated, damaged)) => {
            return Err(format!("flow {id} ended with {good} of {RECORDS} records good, {missing} missing, {repeated} repeated, {damaged} damaged"))
        }
        None => return Err(format!("flow {id}: no check-sink tally in `flow stats`: {}", stats.join(" / "))),
    }
    if !destroyed.iter().any(|l| l.ends_with(": destroyed")) {
        return Err(format!(
            "flow {id} done but not destroyed: {}",
            destroyed.join(" / ")
        ));
    }
    Ok(FlowEnd::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_and_state_are_read_from_flow_stats() {
        let out: Vec<String> = [
            "flow 256: done; ladder: 0 retries, 0 restarts, 0 redirects, 0 fallbacks; 0 replications",
            "  sink: 2000 records good, 0 missing, 3 repeated, 1 damaged",
            "  edge 0: 0 queued, 2000 buffers, 2048000 bytes, 0 dropped, 756 KiB/s",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(state(&out), Some("done"));
        assert_eq!(sink_tally(&out), Some((2000, 0, 3, 1)));
        assert_eq!(sink_tally(&out[..1]), None);
        let refused = ["flow stats: flowmgr refused: no such flow".to_owned()];
        assert_eq!(state(&refused), None);
    }
}
