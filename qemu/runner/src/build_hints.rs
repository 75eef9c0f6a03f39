//! Hints after a failed guest build: cargo's errors for the mistakes a
//! new task crate makes, turned into what to change and where.
//!
//! A task's capability constants and its `config` module come from the
//! manifest through the task's `build.rs`, so rustc only sees a missing
//! constant or crate; it cannot say that the fix is a line in the manifest.
//! The runner knows both sides: it reads cargo's messages (colours
//! stripped) beside the manifest it built with.

use conflux_manifest::{constant_name, Manifest};
use std::path::Path;

/// What to do about the failures in `cargo_stderr`, a build of the system
/// at `path` described by `manifest`; empty when no known mistake shows.
pub fn hints(cargo_stderr: &str, manifest: &Manifest, path: &Path) -> Vec<String> {
    let text = strip_ansi(cargo_stderr);
    let failed: Vec<&str> = quoted_after(&text, "could not compile `").collect();
    // The task whose crate failed, when exactly one did.
    let task = match failed.as_slice() {
        [one] => manifest.tasks.iter().find(|t| t.crate_name == *one),
        _ => None,
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(constant) = quoted_after(line, "cannot find value `").next() else {
            continue;
        };
        if let Some(hint) = task.and_then(|t| shared_crate(manifest, &t.crate_name, line, constant))
        {
            out.push(hint);
            continue;
        }
        if !(line.contains("in module `config::caps`") || line.contains("in module `caps`")) {
            continue;
        }
        let slot = constant.to_ascii_lowercase();
        out.push(match task {
            Some(t) => {
                let have: Vec<String> = t.caps.iter().map(|c| constant_name(&c.name)).collect();
                format!(
                    "task `{}` uses `config::caps::{constant}`, but {} gives it no capability named `{slot}`: add `{slot} = {{ endpoint = \"...\" }}` (or region, notification, ...) under [tasks.{}.caps]; its constants now: {}",
                    t.name,
                    path.display(),
                    t.name,
                    if have.is_empty() { "none".into() } else { have.join(", ") }
                )
            }
            None => format!(
                "`config::caps::{constant}` is not a capability of the task being built: add `{slot} = {{ ... }}` under its [tasks.NAME.caps] in {}",
                path.display()
            ),
        });
    }
    for spec in quoted_after(&text, "package ID specification `") {
        if let Some(t) = manifest.tasks.iter().find(|t| t.crate_name == spec) {
            out.push(format!(
                "task `{}` in {} names crate `{spec}`, which is not a workspace member: add its folder to `members` in the top-level Cargo.toml (`cargo make new-app NAME` does this for a new app)",
                t.name,
                path.display()
            ));
        }
    }
    out.dedup();
    out
}

/// For a crate the manifest runs as several tasks, a constant missing
/// from its `config` is one they do not share: say where to read it.
fn shared_crate(
    manifest: &Manifest,
    crate_name: &str,
    line: &str,
    constant: &str,
) -> Option<String> {
    let tasks: Vec<&str> = manifest
        .tasks
        .iter()
        .filter(|t| t.crate_name == crate_name)
        .map(|t| t.name.as_str())
        .collect();
    if tasks.len() < 2 {
        return None;
    }
    let module = quoted_after(line, "in module `").next()?;
    let module = module.rsplit("::").next().unwrap_or(module);
    let key = match module {
        "config" => constant.to_owned(),
        "caps" | "devices" | "device" | "flows" => format!("{module}::{constant}"),
        _ => format!("MODULE::{constant}"),
    };
    Some(format!(
        "crate `{crate_name}` runs as tasks {}, which differ in `{constant}`, so it is not compiled into `config` (the end of the generated file lists what differs): read it at start with `conflux_userlib::task::required(\"{key}\")` (or `task::name()` / `task::index()`), which each task's configuration section holds",
        tasks.join(", ")
    ))
}

/// Each text between `prefix` and the next backquote.
fn quoted_after<'t>(text: &'t str, prefix: &'t str) -> impl Iterator<Item = &'t str> + 't {
    text.match_indices(prefix).filter_map(move |(i, _)| {
        let rest = &text[i + prefix.len()..];
        rest.find('`').map(|end| &rest[..end])
    })
}

/// `text` without ANSI colour sequences (ESC `[` ... final letter).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "[system]\nname = \"t\"\n\
        [endpoints.echo]\nserver = \"srv\"\n\
        [tasks.srv]\ncrate = \"srv-crate\"\npriority = 1\nstart_order = 1\n\
        [tasks.cli]\ncrate = \"cli-crate\"\npriority = 2\nstart_order = 2\n\
        [tasks.cli.caps]\necho = { endpoint = \"echo\" }\n";

    fn manifest() -> Manifest {
        conflux_manifest::parse(MANIFEST, "t.toml").unwrap()
    }

    #[test]
    fn a_missing_capability_constant_names_the_manifest_table() {
        let stderr = "\u{1b}[0m\u{1b}[1m\u{1b}[38;5;9merror[E0425]\u{1b}[0m: cannot find value `CLOCK` in module `config::caps`\n  --> apps/cli/src/main.rs:9:5\n\
            error: could not compile `cli-crate` (bin \"cli-crate\") due to 1 previous error\n";
        assert_eq!(
            hints(stderr, &manifest(), Path::new("qemu/systems/t.toml")),
            ["task `cli` uses `config::caps::CLOCK`, but qemu/systems/t.toml gives it no capability named `clock`: add `clock = { endpoint = \"...\" }` (or region, notification, ...) under [tasks.cli.caps]; its constants now: ECHO"]
        );
    }

    #[test]
    fn a_constant_a_shared_crate_lacks_says_to_read_it_at_start() {
        let two = format!(
            "{MANIFEST}[tasks.cli2]\ncrate = \"cli-crate\"\npriority = 2\nstart_order = 3\n"
        );
        let manifest = conflux_manifest::parse(&two, "t.toml").unwrap();
        let stderr = "error[E0425]: cannot find value `BDF` in module `config::device`\n\
            error: could not compile `cli-crate` (bin \"cli-crate\") due to 1 previous error\n";
        assert_eq!(
            hints(stderr, &manifest, Path::new("t.toml")),
            ["crate `cli-crate` runs as tasks cli, cli2, which differ in `BDF`, so it is not compiled into `config` (the end of the generated file lists what differs): read it at start with `conflux_userlib::task::required(\"device::BDF\")` (or `task::name()` / `task::index()`), which each task's configuration section holds"]
        );
    }

    #[test]
    fn a_crate_outside_the_workspace_says_to_add_it_to_members() {
        let stderr = "error: package ID specification `srv-crate` did not match any packages\n";
        assert_eq!(
            hints(stderr, &manifest(), Path::new("t.toml")),
            ["task `srv` in t.toml names crate `srv-crate`, which is not a workspace member: add its folder to `members` in the top-level Cargo.toml (`cargo make new-app NAME` does this for a new app)"]
        );
    }

    #[test]
    fn other_errors_give_no_hint() {
        let stderr = "error[E0308]: mismatched types\nerror: could not compile `cli-crate`\n";
        assert!(hints(stderr, &manifest(), Path::new("t.toml")).is_empty());
    }
}
