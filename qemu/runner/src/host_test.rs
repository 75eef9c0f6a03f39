//! Host tests: `cargo test` over the workspace's default members (every
//! crate that runs on the host), with its counts added to the tally.

use crate::guest_test::Tally;
use crate::workspace;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Parses cargo's `test result: ok. 12 passed; 0 failed; ...` line.
pub fn parse_result(line: &str) -> Option<(usize, usize)> {
    let rest = line.trim().strip_prefix("test result: ")?;
    let num = |word: &str| -> Option<usize> {
        let i = rest.find(word)?;
        rest[..i]
            .trim_end()
            .rsplit([' ', '.', ';'])
            .next()?
            .parse()
            .ok()
    };
    Some((num(" passed")?, num(" failed")?))
}

/// Runs the host tests, streaming cargo's output.
pub fn run(tally: &mut Tally) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    println!("host tests: cargo test (workspace default members)");
    let child = Command::new(cargo)
        .current_dir(workspace::root())
        .args(["test", "--color", "never"])
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            println!("host tests ... FAILED: cannot run cargo: {e}");
            tally.failed += 1;
            tally
                .failures
                .push("host tests (cargo did not start)".into());
            return;
        }
    };
    let (mut passed, mut failed) = (0, 0);
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            if let Some((p, f)) = parse_result(&line) {
                passed += p;
                failed += f;
            }
        }
    }
    let ok = child.wait().map(|s| s.success()).unwrap_or(false);
    tally.passed += passed;
    tally.failed += failed;
    if failed > 0 {
        tally.failures.push(format!("{failed} host test(s)"));
    }
    if !ok && failed == 0 {
        // A build failure runs no tests: it must still fail the run.
        tally.failed += 1;
        tally
            .failures
            .push("host tests did not build or cargo test failed".into());
    }
    println!("host tests: {passed} passed, {failed} failed\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cargo_result_lines() {
        let l = "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s";
        assert_eq!(parse_result(l), Some((12, 0)));
        let l = "test result: FAILED. 3 passed; 2 failed; 0 ignored";
        assert_eq!(parse_result(l), Some((3, 2)));
        assert_eq!(parse_result("running 3 tests"), None);
    }
}
