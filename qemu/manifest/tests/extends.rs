//! `system.extends`: a manifest merged onto its base by the documented
//! rules (tables key by key, other values replaced whole, `without`
//! removing keys first), and each rule's error.

use conflux_manifest::{load, load_with_sources, parse, Manifest};
use std::path::{Path, PathBuf};

/// A fresh folder with `systems/` and `tests/` under the system's temp dir.
fn folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("conflux-extends-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("systems")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const BASE: &str = r#"
[system]
name = "base"
description = "the base"
memory_mib = 256

[endpoints.echo]
server = "server"

[regions.shared]
size = 8192

[regions.extra]
size = 4096

[tasks.server]
crate = "server"
priority = 2
start_order = 1

[tasks.client]
crate = "client"
priority = 3
start_order = 2
heap_size = 131072

[tasks.client.caps]
echo = { endpoint = "echo", rights = "w", badge = 7 }
shared = { region = "shared", rights = "rw" }

[tasks.spare]
crate = "spare"
priority = 3
start_order = 3

[tasks.spare.caps]
extra = { region = "extra" }
"#;

/// The manifest with `origin` set to a fixed label, for comparisons.
fn relabel(mut m: Manifest) -> Manifest {
    m.origin = "same".into();
    m
}

#[test]
fn tables_merge_values_replace_and_without_removes() {
    let dir = folder("merge");
    write(&dir, "systems/base.toml", BASE);
    let test = write(
        &dir,
        "tests/child.toml",
        r#"
[system]
name = "child"
extends = "../systems/base.toml"
without = ["tasks.spare", "regions.extra"]

[tasks.client]
priority = 4

[tasks.client.caps]
echo = { endpoint = "echo", rights = "wg" }

[test]
expect = ["client: done"]
"#,
    );
    let (merged, sources) = load_with_sources(&test).unwrap();
    assert_eq!(
        sources,
        [test.clone(), dir.join("tests/../systems/base.toml")]
    );
    // What the merge must equal, written out in full.
    let flat = parse(
        r#"
[system]
name = "child"
description = "the base"
memory_mib = 256

[endpoints.echo]
server = "server"

[regions.shared]
size = 8192

[tasks.server]
crate = "server"
priority = 2
start_order = 1

[tasks.client]
crate = "client"
priority = 4
start_order = 2
heap_size = 131072

[tasks.client.caps]
# An inline table is a table: `rights` replaced, `badge` kept.
echo = { endpoint = "echo", rights = "wg", badge = 7 }
shared = { region = "shared", rights = "rw" }

[test]
expect = ["client: done"]
"#,
        "flat",
    )
    .unwrap();
    assert_eq!(relabel(merged), relabel(flat));
}

#[test]
fn arrays_are_replaced_whole() {
    let dir = folder("arrays");
    write(
        &dir,
        "systems/base.toml",
        "[system]\nname = \"base\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
         [test]\nexpect = [\"a: one\", \"a: two\"]\nforbid = [\"x\"]\n",
    );
    let test = write(
        &dir,
        "tests/child.toml",
        "[system]\nname = \"child\"\nextends = \"../systems/base.toml\"\n[test]\nexpect = [\"a: three\"]\n",
    );
    let spec = load(&test).unwrap().test.unwrap();
    assert_eq!(spec.expect, ["a: three"]);
    assert_eq!(spec.forbid, ["x"]);
}

#[test]
fn chains_resolve_from_the_far_end() {
    let dir = folder("chain");
    write(&dir, "systems/base.toml", BASE);
    // The middle drops `spare` and changes the client; the top drops the
    // region the middle left and changes the client again.
    write(
        &dir,
        "tests/middle.toml",
        "[system]\nname = \"middle\"\nextends = \"../systems/base.toml\"\nwithout = [\"tasks.spare\"]\n\
         [tasks.client]\npriority = 5\nheap_size = 65536\n[test]\nexpect = [\"client: middle\"]\n",
    );
    let top = write(
        &dir,
        "tests/top.toml",
        "[system]\nname = \"top\"\nextends = \"middle.toml\"\nwithout = [\"regions.extra\"]\n\
         [tasks.client]\npriority = 6\n",
    );
    let (merged, sources) = load_with_sources(&top).unwrap();
    assert_eq!(
        sources,
        [
            top.clone(),
            dir.join("tests/middle.toml"),
            dir.join("tests/../systems/base.toml")
        ]
    );
    assert_eq!(merged.system.name, "top");
    let client = merged.tasks.iter().find(|t| t.name == "client").unwrap();
    assert_eq!(client.priority, 6, "the top's value wins");
    assert_eq!(client.heap_size, 65536, "the middle's value is kept");
    assert!(merged.tasks.iter().all(|t| t.name != "spare"));
    assert_eq!(merged.test.unwrap().expect, ["client: middle"]);
    // The top may not remove what the middle already removed.
    let again = write(
        &dir,
        "tests/again.toml",
        "[system]\nname = \"again\"\nextends = \"middle.toml\"\nwithout = [\"tasks.spare\"]\n",
    );
    let error = load(&again).unwrap_err().to_string();
    assert!(error.contains("removes `tasks.spare`, which"), "{error}");
    // Every level names its own system.
    let same = write(
        &dir,
        "tests/same.toml",
        "[system]\nname = \"middle\"\nextends = \"middle.toml\"\n",
    );
    let error = load(&same).unwrap_err().to_string();
    assert!(error.contains("the name of"), "{error}");
}

#[test]
fn each_rule_has_its_message() {
    let dir = folder("errors");
    let base = write(&dir, "systems/base.toml", BASE);
    let child = |name: &str, text: &str| {
        let path = write(&dir, &format!("tests/{name}.toml"), text);
        let error = load(&path).unwrap_err().to_string();
        let prefix = format!("{}: ", path.display());
        error.strip_prefix(&prefix).unwrap_or(&error).to_owned()
    };
    let base_label = dir.join("tests/../systems/base.toml").display().to_string();
    assert_eq!(
        child("no-name", "[system]\nextends = \"../systems/base.toml\"\n"),
        format!("a manifest that extends {base_label} needs its own `system.name`")
    );
    assert_eq!(
        child("same-name", "[system]\nname = \"base\"\nextends = \"../systems/base.toml\"\n"),
        format!("`system.name` is `base`, the name of {base_label} that it extends; give the system its own name")
    );
    assert_eq!(
        child(
            "not-in-base",
            "[system]\nname = \"c\"\nextends = \"../systems/base.toml\"\nwithout = [\"tasks.nope\"]\n"
        ),
        format!("`system.without` removes `tasks.nope`, which {base_label} does not have; remove it from the list")
    );
    assert_eq!(
        child(
            "shape",
            "[system]\nname = \"c\"\nextends = \"../systems/base.toml\"\n[tasks]\nclient = 3\n"
        ),
        format!("`tasks.client` is a table in one of this manifest and {base_label} and a value in the other; tables merge only with tables: give it the base's shape, or drop it from the base with `system.without`")
    );
    assert_eq!(
        child(
            "without-alone",
            "[system]\nname = \"c\"\nwithout = [\"tasks.spare\"]\n"
        ),
        "`system.without` must be used only beside `system.extends`"
    );
    assert_eq!(
        child("extends-type", "[system]\nname = \"c\"\nextends = 3\n"),
        "`system.extends` must be a string: the base manifest's path, relative to this manifest's folder"
    );
    let missing = child(
        "missing",
        "[system]\nname = \"c\"\nextends = \"nope.toml\"\n",
    );
    assert!(
        missing.starts_with(&format!(
            "`system.extends` names {}, which cannot be used: ",
            dir.join("tests/nope.toml").display()
        )),
        "{missing}"
    );
    // A cycle, however long, names the whole chain; so does a manifest
    // that extends itself.
    write(
        &dir,
        "tests/loop-a.toml",
        "[system]\nname = \"a\"\nextends = \"loop-b.toml\"\n",
    );
    write(
        &dir,
        "tests/loop-b.toml",
        "[system]\nname = \"b\"\nextends = \"loop-a.toml\"\n",
    );
    let a = dir.join("tests/loop-a.toml");
    let b = dir.join("tests/loop-b.toml");
    assert_eq!(
        load(&a).unwrap_err().to_string(),
        format!(
            "{}: `system.extends` makes a cycle: {} -> {} -> {}; a manifest cannot be its own base: make one of them extend a manifest outside the cycle",
            b.display(),
            a.display(),
            b.display(),
            a.display()
        )
    );
    assert!(
        child("self", "[system]\nname = \"s\"\nextends = \"self.toml\"\n")
            .contains("makes a cycle")
    );
    // A rule broken in the middle of a chain is reported against the
    // middle file, not the one loaded.
    write(
        &dir,
        "tests/middle-bad.toml",
        "[system]\nname = \"m\"\nextends = \"../systems/base.toml\"\nwithout = [\"tasks.nope\"]\n",
    );
    let middle = dir.join("tests/middle-bad.toml");
    assert_eq!(
        child("over-bad", "[system]\nname = \"c\"\nextends = \"middle-bad.toml\"\n"),
        format!(
            "{}: `system.without` removes `tasks.nope`, which {} does not have; remove it from the list",
            middle.display(),
            dir.join("tests/../systems/base.toml").display()
        )
    );
    // Text without a file has no folder to find a base in.
    let text = std::fs::read_to_string(&base)
        .unwrap()
        .replace("name = \"base\"", "name = \"t\"\nextends = \"base.toml\"");
    assert_eq!(
        parse(&text, "t.toml").unwrap_err().to_string(),
        "t.toml: `system.extends` needs the manifest's file (its base is found relative to it): load it from a file"
    );
}
