//! `[test] crash = { ... }`: a valid crash test, and each rule's message.

mod common;

use common::{message, ok, SYSTEM};
use conflux_manifest::CrashSpec;

/// A system with a driver, a disk made from a folder, and `[test]` lines.
fn with_crash(test: &str) -> String {
    format!(
        "{SYSTEM}\
         [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"blk\"\nfolder = \"disk\"\nsize_mib = 16\n\
         [tasks.blk]\ncrate = \"virtio-blk\"\npriority = 1\nstart_order = 1\n\
         [test]\ntimeout_secs = 10\nexpect = [\"x\"]\n{test}\n"
    )
}

#[test]
fn a_crash_test_is_read() {
    let manifest = ok(&with_crash(
        "crash = { rounds = 6, after = \"writer: writing\", kill_after_ms = [200, 1500] }",
    ));
    assert_eq!(
        manifest.test.and_then(|t| t.crash),
        Some(CrashSpec {
            rounds: 6,
            after: "writer: writing".into(),
            kill_after_ms: (200, 1500),
        })
    );
}

#[test]
fn an_equal_window_is_a_fixed_delay() {
    let manifest = ok(&with_crash(
        "crash = { rounds = 2, after = \"x\", kill_after_ms = [300, 300] }",
    ));
    assert_eq!(
        manifest.test.and_then(|t| t.crash).map(|c| c.kill_after_ms),
        Some((300, 300))
    );
}

#[test]
fn one_round_is_too_few() {
    assert_eq!(
        message(&with_crash(
            "crash = { rounds = 1, after = \"x\", kill_after_ms = [1, 2] }"
        )),
        "systems/t.toml: `test.crash.rounds` is 1, out of range; use a value from 2 to 100"
    );
}

#[test]
fn rounds_are_required() {
    assert_eq!(
        message(&with_crash(
            "crash = { after = \"x\", kill_after_ms = [1, 2] }"
        )),
        "systems/t.toml: `[test.crash]` is missing the required key `rounds` (an integer); add it"
    );
}

#[test]
fn an_unknown_key_gets_a_suggestion() {
    assert_eq!(
        message(&with_crash(
            "crash = { round = 3, after = \"x\", kill_after_ms = [1, 2] }"
        )),
        "systems/t.toml: unknown key `round` in `[test.crash]`; did you mean `rounds`?"
    );
}

#[test]
fn an_empty_after_line_is_refused() {
    assert_eq!(
        message(&with_crash(
            "crash = { rounds = 3, after = \"\", kill_after_ms = [1, 2] }"
        )),
        "systems/t.toml: `test.crash.after` is an empty string, which matches any output; remove it or write the text to look for"
    );
}

#[test]
fn the_window_is_two_numbers() {
    assert_eq!(
        message(&with_crash(
            "crash = { rounds = 3, after = \"x\", kill_after_ms = [100] }"
        )),
        "systems/t.toml: `test.crash.kill_after_ms` has 1 numbers; write the kill delay's range as two, `[min, max]` in milliseconds after the `after` line"
    );
}

#[test]
fn the_window_is_not_reversed() {
    assert_eq!(
        message(&with_crash(
            "crash = { rounds = 3, after = \"x\", kill_after_ms = [900, 100] }"
        )),
        "systems/t.toml: `test.crash.kill_after_ms` is [900, 100]: the minimum is above the maximum; write `[min, max]` with min <= max"
    );
}

#[test]
fn the_window_lies_inside_the_timeout() {
    assert_eq!(
        message(&with_crash(
            "crash = { rounds = 3, after = \"x\", kill_after_ms = [100, 20000] }"
        )),
        "systems/t.toml: `test.crash.kill_after_ms[1]` is 20000, out of range; use a value from 1 to 10000"
    );
}

#[test]
fn a_crash_test_needs_a_disk() {
    let text = format!(
        "{SYSTEM}[tasks.hello]\ncrate = \"hello\"\npriority = 2\nstart_order = 1\n\
         [test]\nexpect = [\"x\"]\ncrash = {{ rounds = 3, after = \"x\", kill_after_ms = [1, 2] }}\n"
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: `test.crash` kills the machine to test a disk's durability, but the system has no disk; add a `[devices.NAME]` with `kind = \"virtio-blk\"` and a `folder`, or remove `crash`"
    );
}
