//! `conflux new-app NAME [--uses fs,net]` (`cargo make new-app ...`): a
//! new app from a template, ready for `cargo make run NAME`.
//!
//! - Without `--uses`, a new service (`qemu/runner/templates/app`): three
//!   crates under `apps/NAME/` — `NAME-protocol` (labels, error replies,
//!   the compound operations), `NAME-server` and `NAME-client` (tasks,
//!   each with its `build.rs`) — and a system of their own.
//! - With `--uses fs`, `net` or both, an app of the system's servers
//!   (`qemu/runner/templates/client`), what most people write first: one
//!   task crate `apps/NAME` whose parts each do their work with plain
//!   calls and again as one `cosy!` compound, and a system that extends
//!   the default system with the app and its capabilities.
//!
//! Either writes `qemu/systems/NAME.toml` and adds the crates to the
//! workspace's `members`. The placeholders: `{{name}}` (the name as
//! given), `{{crate}}` (as a Rust identifier, `-` as `_`), `{{CONST}}`
//! (the endpoint's constant in `config::caps`), `{{uses}}` (`fs,net`) and
//! `{{services}}` (their servers in words); lines between `{{#fs}}` and
//! `{{/fs}}` (or `net`) are kept only when the app uses that server.
//! Nothing is written unless every check passed first.

use crate::workspace;
use conflux_manifest::constant_name;
use std::path::{Path, PathBuf};

/// The longest name: its task names (`NAME-server`, `NAME-client`) must
/// fit the manifest's 31-byte limit.
const MAX_NAME: usize = 24;

/// One file of the service template: where it goes (relative to the
/// workspace, `{{name}}` replaced) and its text.
const TEMPLATE: [(&str, &str); 10] = [
    (
        "apps/{{name}}/protocol/Cargo.toml",
        include_str!("../templates/app/protocol.Cargo.toml.tmpl"),
    ),
    (
        "apps/{{name}}/protocol/src/lib.rs",
        include_str!("../templates/app/protocol.lib.rs.tmpl"),
    ),
    (
        "apps/{{name}}/server/Cargo.toml",
        include_str!("../templates/app/server.Cargo.toml.tmpl"),
    ),
    (
        "apps/{{name}}/server/build.rs",
        include_str!("../templates/app/build.rs.tmpl"),
    ),
    (
        "apps/{{name}}/server/src/main.rs",
        include_str!("../templates/app/server.main.rs.tmpl"),
    ),
    (
        "apps/{{name}}/server/src/total.rs",
        include_str!("../templates/app/server.total.rs.tmpl"),
    ),
    (
        "apps/{{name}}/client/Cargo.toml",
        include_str!("../templates/app/client.Cargo.toml.tmpl"),
    ),
    (
        "apps/{{name}}/client/build.rs",
        include_str!("../templates/app/build.rs.tmpl"),
    ),
    (
        "apps/{{name}}/client/src/main.rs",
        include_str!("../templates/app/client.main.rs.tmpl"),
    ),
    (
        "qemu/systems/{{name}}.toml",
        include_str!("../templates/app/system.toml.tmpl"),
    ),
];

/// The service template's crates, as workspace members.
const MEMBERS: [&str; 3] = [
    "apps/{{name}}/protocol",
    "apps/{{name}}/server",
    "apps/{{name}}/client",
];

/// The files of the template for an app of the system's servers; those
/// of a server the app does not use render empty and are not written.
const CLIENT_TEMPLATE: [(&str, &str); 6] = [
    (
        "apps/{{name}}/Cargo.toml",
        include_str!("../templates/client/Cargo.toml.tmpl"),
    ),
    (
        "apps/{{name}}/build.rs",
        include_str!("../templates/app/build.rs.tmpl"),
    ),
    (
        "apps/{{name}}/src/main.rs",
        include_str!("../templates/client/main.rs.tmpl"),
    ),
    ("apps/{{name}}/src/files.rs", "{{#fs}}\n{{files}}{{/fs}}\n"),
    ("apps/{{name}}/src/echo.rs", "{{#net}}\n{{echo}}{{/net}}\n"),
    (
        "qemu/systems/{{name}}.toml",
        include_str!("../templates/client/system.toml.tmpl"),
    ),
];

/// The parts of the client template that are files of their own.
const FILES_PART: &str = include_str!("../templates/client/files.rs.tmpl");
const ECHO_PART: &str = include_str!("../templates/client/echo.rs.tmpl");

/// A server an app can use: its `--uses` word and its name in prose.
const SERVICES: [(&str, &str); 2] = [("fs", "the file server"), ("net", "the network server")];

/// Creates the app `name` in the workspace (using the servers `uses`, or
/// a service of its own when empty) and says how to run it.
pub fn run(name: &str, uses: &[String]) -> Result<(), String> {
    let root = workspace::root();
    let uses = check_uses(uses)?;
    let (files, members) = if uses.is_empty() {
        let members = MEMBERS.iter().map(|m| render(m, name)).collect();
        (plan(&root, name)?, members)
    } else {
        (
            plan_client(&root, name, &uses)?,
            vec![format!("apps/{name}")],
        )
    };
    let cargo_toml = root.join("Cargo.toml");
    let text = read(&cargo_toml)?;
    let text = add_members(&text, &members)?;
    for (path, body) in &files {
        let dir = path.parent().unwrap_or(&root);
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        std::fs::write(path, body).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("created {}", relative(&root, path));
    }
    std::fs::write(&cargo_toml, text)
        .map_err(|e| format!("cannot write {}: {e}", cargo_toml.display()))?;
    println!(
        "added {} to the workspace members in Cargo.toml",
        members.join(", ")
    );
    if uses.is_empty() {
        println!(
            "next: `cargo make run {name}` builds and boots it; the server is apps/{name}/server/src/main.rs, the protocol apps/{name}/protocol/src/lib.rs"
        );
    } else {
        println!(
            "next: `cargo make run {name}` builds and boots the default system with it; the app is apps/{name}/src/main.rs"
        );
    }
    Ok(())
}

/// The servers named by `--uses`, known and each once, in a fixed order.
pub fn check_uses(uses: &[String]) -> Result<Vec<&'static str>, String> {
    let known = SERVICES.map(|(word, _)| word).join(", ");
    for word in uses {
        if !SERVICES.iter().any(|(w, _)| w == word) {
            return Err(format!(
                "`--uses {word}`: no server of that name; an app can use {known} (e.g. `--uses fs,net`)"
            ));
        }
    }
    Ok(SERVICES
        .iter()
        .map(|(word, _)| *word)
        .filter(|word| uses.iter().any(|u| u == word))
        .collect())
}

/// Every file to write for the app `name` of the servers `uses`, after
/// the same checks as [`plan`] (its crate is named `name`).
fn plan_client(root: &Path, name: &str, uses: &[&str]) -> Result<Vec<(PathBuf, String)>, String> {
    check_name(name)?;
    check_free_of(root, name, &[name.to_owned()])?;
    Ok(render_client(name, uses)
        .into_iter()
        .map(|(path, body)| (root.join(path), body))
        .collect())
}

/// The client template's files for `name` and `uses` (paths relative to
/// the workspace), without those that render empty.
pub fn render_client(name: &str, uses: &[&str]) -> Vec<(String, String)> {
    let services: Vec<&str> = SERVICES
        .iter()
        .filter(|(word, _)| uses.contains(word))
        .map(|(_, prose)| *prose)
        .collect();
    CLIENT_TEMPLATE
        .iter()
        .map(|(path, body)| {
            let body = body
                .replace("{{files}}", FILES_PART)
                .replace("{{echo}}", ECHO_PART)
                .replace("{{uses}}", &uses.join(","))
                .replace("{{services}}", &services.join(" and "));
            (render(path, name), render(&keep_blocks(&body, uses), name))
        })
        .filter(|(_, body)| !body.trim().is_empty())
        .collect()
}

/// `text` without the lines of `{{#x}}` ... `{{/x}}` blocks whose `x` is
/// not in `uses` (and without the marker lines themselves).
pub fn keep_blocks(text: &str, uses: &[&str]) -> String {
    let mut open: Vec<bool> = Vec::new();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let marker = line.trim();
        if let Some(word) = marker
            .strip_prefix("{{#")
            .and_then(|m| m.strip_suffix("}}"))
        {
            open.push(uses.contains(&word));
        } else if marker.starts_with("{{/") && marker.ends_with("}}") {
            open.pop();
        } else if open.iter().all(|&keep| keep) {
            out.push_str(line);
        }
    }
    out
}

/// Every file to write for `name`, after checking the name and that none
/// of it exists yet.
fn plan(root: &Path, name: &str) -> Result<Vec<(PathBuf, String)>, String> {
    check_name(name)?;
    check_free(root, name)?;
    Ok(render_service(name)
        .into_iter()
        .map(|(path, body)| (root.join(path), body))
        .collect())
}

/// The service template's files for `name`: each path (relative to the
/// workspace) and its text.
pub fn render_service(name: &str) -> Vec<(String, String)> {
    TEMPLATE
        .iter()
        .map(|(path, body)| (render(path, name), render(body, name)))
        .collect()
}

/// Whether `name` can name an app: a system, an endpoint, a region prefix,
/// task and crate names.
pub fn check_name(name: &str) -> Result<(), String> {
    let rule = "a lower-case letter, then lower-case letters, digits and `-`, not ending in `-`";
    let mut chars = name.chars();
    let starts = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !starts || !rest || name.ends_with('-') || name.contains("--") {
        return Err(format!(
            "`{name}` cannot name an app: use {rule} (no `--`), e.g. `counter` or `key-value`"
        ));
    }
    if name.len() > MAX_NAME {
        return Err(format!(
            "`{name}` is {} bytes long; an app name may have at most {MAX_NAME}, so that its task names (`{name}-server`) fit the manifest's 31-byte limit",
            name.len()
        ));
    }
    Ok(())
}

/// Fails if a system, a test system, an app folder or a crate already has
/// one of the names the app would take.
fn check_free(root: &Path, name: &str) -> Result<(), String> {
    let wanted = ["protocol", "server", "client"].map(|part| format!("{name}-{part}"));
    check_free_of(root, name, &wanted)
}

/// [`check_free`] for an app whose crates are `wanted`.
fn check_free_of(root: &Path, name: &str, wanted: &[String]) -> Result<(), String> {
    let taken = [
        root.join(format!("qemu/systems/{name}.toml")),
        root.join(format!("qemu/tests/{name}.toml")),
        root.join(format!("apps/{name}")),
    ];
    if let Some(path) = taken.iter().find(|p| p.exists()) {
        return Err(format!(
            "cannot create app `{name}`: {} already exists; choose another name",
            relative(root, path)
        ));
    }
    for (manifest, package) in packages(root) {
        if wanted.contains(&package) {
            return Err(format!(
                "cannot create app `{name}`: the crate `{package}` already exists ({}); choose another name",
                relative(root, &manifest)
            ));
        }
    }
    Ok(())
}

/// Every `Cargo.toml` under the workspace (but `target` and hidden
/// folders) with its package name. Symbolic links are not followed: disk
/// folders hold links that point up the tree (`qemu/fs-rights`), which
/// would make the walk endless.
fn packages(root: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            let dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if dir && !hidden && entry.file_name() != "target" {
                dirs.push(path);
            } else if entry.file_name() == "Cargo.toml" {
                if let Some(name) = std::fs::read_to_string(&path)
                    .ok()
                    .and_then(|t| package_name(&t))
                {
                    found.push((path, name));
                }
            }
        }
    }
    found
}

/// The `name` of a Cargo.toml's `[package]` table.
fn package_name(cargo_toml: &str) -> Option<String> {
    let mut in_package = false;
    for line in cargo_toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("name").map(str::trim_start) {
                let value = value.strip_prefix('=')?.trim();
                return Some(value.trim_matches('"').to_owned());
            }
        }
    }
    None
}

/// `template` with its placeholders filled in for `name`.
pub fn render(template: &str, name: &str) -> String {
    template
        .replace("{{name}}", name)
        .replace("{{crate}}", &name.replace('-', "_"))
        .replace("{{CONST}}", &constant_name(name))
}

/// The workspace's Cargo.toml text with `members` added at the end of its
/// `[workspace] members` list.
pub fn add_members(text: &str, members: &[String]) -> Result<String, String> {
    let not_found = || {
        "Cargo.toml: found no `members = [` list ending in a line `]`; add the app's crates to the workspace members by hand".to_owned()
    };
    let start = text.find("\nmembers = [\n").ok_or_else(not_found)?;
    let end = start + text[start..].find("\n]").ok_or_else(not_found)? + 1;
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(&text[..end]);
    for m in members {
        out.push_str(&format!("    \"{m}\",\n"));
    }
    out.push_str(&text[end..]);
    Ok(out)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rule_and_the_length_limit() {
        for good in ["counter", "key-value", "a1", "x"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in ["", "Counter", "1app", "-a", "a-", "a--b", "a_b", "a b", "ä"] {
            let e = check_name(bad).unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "`{bad}` cannot name an app: use a lower-case letter"
                )),
                "{e}"
            );
        }
        assert_eq!(check_name(&"a".repeat(24)), Ok(()));
        assert!(check_name(&"a".repeat(25))
            .unwrap_err()
            .contains("is 25 bytes long; an app name may have at most 24"));
    }

    #[test]
    fn rendering_fills_every_placeholder() {
        for (path, body) in TEMPLATE {
            let (path, body) = (render(path, "key-value"), render(body, "key-value"));
            assert!(!path.contains("{{") && !body.contains("{{"), "{path}");
            assert!(!body.contains("}}"), "{path}: a placeholder was misspelt");
        }
        let server = render(TEMPLATE[4].1, "key-value");
        assert!(server.contains("use key_value_protocol::{self as protocol, Error};"));
        assert!(server.contains("Endpoint(config::caps::KEY_VALUE)"));
    }

    /// The rendered manifest is a valid system whose tasks are the rendered
    /// crates, each holding the capabilities its code names.
    #[test]
    fn the_rendered_manifest_is_valid_and_matches_the_crates() {
        // The longest name still fits every limit (task and object names).
        let longest = "a".repeat(MAX_NAME);
        assert!(conflux_manifest::parse(&render(TEMPLATE[9].1, &longest), "l.toml").is_ok());
        let text = render(TEMPLATE[9].1, "key-value");
        let m = conflux_manifest::parse(&text, "key-value.toml").unwrap();
        assert_eq!(m.system.name, "key-value");
        let crates: Vec<&str> = m.tasks.iter().map(|t| t.crate_name.as_str()).collect();
        assert_eq!(crates, ["key-value-server", "key-value-client"]);
        for (path, body) in [TEMPLATE[2], TEMPLATE[6]] {
            let package = package_name(&render(body, "key-value")).unwrap();
            assert!(crates.contains(&package.as_str()), "{path}");
        }
        for task in &m.tasks {
            let names: Vec<String> = task.caps.iter().map(|c| constant_name(&c.name)).collect();
            assert!(
                names.contains(&"KEY_VALUE".to_owned()),
                "{}: {names:?}",
                task.name
            );
            assert!(
                names.contains(&"SHARED".to_owned()),
                "{}: {names:?}",
                task.name
            );
        }
    }

    #[test]
    fn members_are_added_at_the_end_of_the_list() {
        let text = "[workspace]\nmembers = [\n    \"a\",\n    # c\n    \"b/*\",\n]\nexclude = [\"x\"]\ndefault-members = [\n    \"a\",\n]\n";
        let out = add_members(text, &["apps/k/server".into(), "apps/k/client".into()]).unwrap();
        assert_eq!(
            out,
            "[workspace]\nmembers = [\n    \"a\",\n    # c\n    \"b/*\",\n    \"apps/k/server\",\n    \"apps/k/client\",\n]\nexclude = [\"x\"]\ndefault-members = [\n    \"a\",\n]\n"
        );
        assert!(add_members("[workspace]\nmembers = [\"a\"]\n", &[]).is_err());
    }

    #[test]
    fn the_real_workspace_takes_a_new_name_and_refuses_existing_ones() {
        let root = workspace::root();
        assert!(plan(&root, "new-app-probe").is_ok());
        let e = plan(&root, "default").unwrap_err();
        assert_eq!(
            e,
            "cannot create app `default`: qemu/systems/default.toml already exists; choose another name"
        );
        assert!(plan(&root, "ipc")
            .unwrap_err()
            .contains("qemu/tests/ipc.toml already exists"));
        assert!(plan(&root, "hello")
            .unwrap_err()
            .contains("apps/hello already exists"));
        // No system or app folder has this name, but a crate it would
        // make does.
        assert_eq!(
            plan(&root, "conflux-socket").unwrap_err(),
            "cannot create app `conflux-socket`: the crate `conflux-socket-protocol` already exists (servers/net/protocol/Cargo.toml); choose another name"
        );
        assert!(add_members(&read(&root.join("Cargo.toml")).unwrap(), &[]).is_ok());
    }

    /// A link pointing up the tree is not walked into (it once made the
    /// walk endless), and a package behind it is not found twice.
    #[test]
    fn links_in_the_tree_are_not_followed() {
        let dir =
            std::env::temp_dir().join(format!("conflux-new-app-links-{}", std::process::id()));
        let crate_dir = dir.join("a");
        std::fs::create_dir_all(&crate_dir).unwrap();
        std::fs::write(crate_dir.join("Cargo.toml"), "[package]\nname = \"a\"\n").unwrap();
        std::os::unix::fs::symlink("..", crate_dir.join("up")).unwrap();
        let found = packages(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
    }

    /// Whether `rustfmt --check` passes on `file` (it prints the diff if not).
    fn rustfmt_clean(file: &Path) -> bool {
        std::process::Command::new("rustfmt")
            .args(["--edition", "2021", "--check"])
            .arg(file)
            .status()
            .expect("rustfmt runs (it comes with the pinned toolchain)")
            .success()
    }

    /// What the template writes must pass `cargo make lint`'s rustfmt
    /// check as it is, for a short name and a long one (line breaks move).
    #[test]
    fn rendered_rust_is_rustfmt_clean() {
        for name in ["counter", "a-twenty-four-byte-name1"] {
            let dir = std::env::temp_dir()
                .join(format!("conflux-new-app-fmt-{}-{name}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let rust: Vec<(&str, PathBuf)> = TEMPLATE
                .iter()
                .filter(|(path, _)| path.ends_with(".rs"))
                .map(|(path, body)| {
                    // At its own path: rustfmt follows `mod` declarations.
                    let file = dir.join(render(path, name));
                    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                    std::fs::write(&file, render(body, name)).unwrap();
                    (*path, file)
                })
                .collect();
            for (path, file) in rust {
                assert!(
                    rustfmt_clean(&file),
                    "{path} for `{name}` is not rustfmt-clean (diff above)"
                );
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    /// The three choices of `--uses`, each with the app's name used below.
    const CHOICES: [&[&str]; 3] = [&["fs"], &["net"], &["fs", "net"]];

    #[test]
    fn uses_are_checked_and_put_in_order() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(check_uses(&words(&["net", "fs"])), Ok(vec!["fs", "net"]));
        assert_eq!(check_uses(&words(&["fs", "fs"])), Ok(vec!["fs"]));
        assert_eq!(check_uses(&[]), Ok(vec![]));
        assert_eq!(
            check_uses(&words(&["fs", "disk"])).unwrap_err(),
            "`--uses disk`: no server of that name; an app can use fs, net (e.g. `--uses fs,net`)"
        );
    }

    #[test]
    fn blocks_are_kept_only_for_the_servers_used() {
        let text =
            "a\n{{#fs}}\nfs\n{{/fs}}\n{{#net}}\nnet\n  {{#fs}}\n  both\n  {{/fs}}\n{{/net}}\nz\n";
        assert_eq!(keep_blocks(text, &["fs"]), "a\nfs\nz\n");
        assert_eq!(keep_blocks(text, &["net"]), "a\nnet\nz\n");
        assert_eq!(keep_blocks(text, &["fs", "net"]), "a\nfs\nnet\n  both\nz\n");
    }

    #[test]
    fn the_client_template_renders_each_choice() {
        for uses in CHOICES {
            let files = render_client("my-app", uses);
            let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
            assert_eq!(
                paths.contains(&"apps/my-app/src/files.rs"),
                uses.contains(&"fs")
            );
            assert_eq!(
                paths.contains(&"apps/my-app/src/echo.rs"),
                uses.contains(&"net")
            );
            for (path, body) in &files {
                assert!(
                    !body.contains("{{") && !body.contains("}}"),
                    "{uses:?} {path}"
                );
            }
            let main = &files
                .iter()
                .find(|(p, _)| p.ends_with("main.rs"))
                .unwrap()
                .1;
            let cargo = &files
                .iter()
                .find(|(p, _)| p.ends_with("Cargo.toml"))
                .unwrap()
                .1;
            assert_eq!(
                main.contains("mod files;"),
                uses.contains(&"fs"),
                "{uses:?}"
            );
            assert_eq!(
                main.contains("mod echo;"),
                uses.contains(&"net"),
                "{uses:?}"
            );
            assert_eq!(cargo.contains("conflux-fs-client"), uses.contains(&"fs"));
            assert_eq!(cargo.contains("conflux-net-client"), uses.contains(&"net"));
            assert_eq!(package_name(cargo).as_deref(), Some("my-app"));
        }
    }

    /// Each choice's system, loaded beside a copy of the default system
    /// it extends, is valid and gives the app the capabilities its code
    /// names (`manifest_caps!` of each client library).
    #[test]
    fn each_client_system_extends_the_default_and_is_valid() {
        let real = workspace::root().join("qemu");
        for (n, uses) in CHOICES.iter().enumerate() {
            let dir = std::env::temp_dir()
                .join(format!("conflux-new-app-client-{}-{n}", std::process::id()));
            let systems = dir.join("qemu/systems");
            std::fs::create_dir_all(&systems).unwrap();
            std::fs::copy(
                real.join("systems/default.toml"),
                systems.join("default.toml"),
            )
            .unwrap();
            let _ = std::os::unix::fs::symlink(real.join("disk"), dir.join("qemu/disk"));
            let name = "a-twenty-four-byte-name1";
            let (_, system) = render_client(name, uses)
                .into_iter()
                .find(|(p, _)| p.ends_with(".toml") && p.starts_with("qemu/"))
                .unwrap();
            let path = systems.join(format!("{name}.toml"));
            std::fs::write(&path, system).unwrap();
            let m = conflux_manifest::load(&path).unwrap_or_else(|e| panic!("{uses:?}: {e}"));
            let task = m.tasks.iter().find(|t| t.name == name).unwrap();
            let caps: Vec<&str> = task.caps.iter().map(|c| c.name.as_str()).collect();
            for (service, wanted) in [
                ("fs", ["fs", "fs_control"]),
                ("net", ["net", "net_control"]),
            ] {
                for cap in wanted {
                    assert_eq!(
                        caps.contains(&cap),
                        uses.contains(&service),
                        "{uses:?}: {caps:?}"
                    );
                }
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn rendered_client_rust_is_rustfmt_clean() {
        for (n, uses) in CHOICES.iter().enumerate() {
            let dir = std::env::temp_dir().join(format!(
                "conflux-new-app-client-fmt-{}-{n}",
                std::process::id()
            ));
            let mut rust = Vec::new();
            for (path, body) in render_client("a-twenty-four-byte-name1", uses) {
                let file = dir.join(&path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, body).unwrap();
                if path.ends_with(".rs") {
                    rust.push((path, file));
                }
            }
            for (path, file) in rust {
                assert!(
                    rustfmt_clean(&file),
                    "{path} for {uses:?} is not rustfmt-clean (diff above)"
                );
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    /// The committed examples are `new-app`'s output, unedited: the guest
    /// tests `new-app` (`--uses fs,net`, `apps/files-and-echo`),
    /// `new-app-fs` (`apps/word-count`), `new-app-net` (`apps/echo-client`)
    /// and `new-app-service` (no `--uses`, `apps/totals`) build and boot
    /// them, so they test what a user gets from each template.
    #[test]
    fn the_committed_examples_are_the_template_output() {
        let root = workspace::root();
        let examples = [
            (
                "files-and-echo",
                "--uses fs,net",
                render_client("files-and-echo", &["fs", "net"]),
            ),
            (
                "word-count",
                "--uses fs",
                render_client("word-count", &["fs"]),
            ),
            (
                "echo-client",
                "--uses net",
                render_client("echo-client", &["net"]),
            ),
            ("totals", "", render_service("totals")),
        ];
        for (name, uses, files) in examples {
            for (path, body) in files {
                let committed = read(&root.join(&path)).unwrap();
                assert!(
                    committed == body,
                    "{path} differs from what `new-app {name} {uses}` writes now; \
                     regenerate it: remove apps/{name}, qemu/systems/{name}.toml and \
                     its members lines in Cargo.toml, then run `cargo make new-app {name} {uses}`"
                );
            }
        }
    }

    #[test]
    fn package_names_are_read_from_the_package_table() {
        let text = "[package]\nname = \"x-server\"\n[dependencies]\nname = \"no\"\n";
        assert_eq!(package_name(text).as_deref(), Some("x-server"));
        assert_eq!(package_name("[workspace]\nname = \"w\"\n"), None);
    }
}
