//! `conflux-manifest`: the one description of a Conflux system image.
//!
//! Every system (the default interactive one, each in-guest test, each
//! benchmark) is one TOML manifest. This crate parses it strictly, validates
//! it, and lowers it to what other parts need: the validated [`Manifest`]
//! for the image builder and the runner, and per-task Rust constants for
//! each task's build script. Nothing is kept in sync by hand.
//!
//! Principles:
//!
//! - **Untrusted until checked.** The TOML text becomes a [`Manifest`] only
//!   through [`parse`]; a `Manifest` value is always valid.
//! - **Strict.** An unknown key anywhere is an error with a "did you mean";
//!   a wrong type names the key and both types; every limit is in
//!   [`limits`].
//! - **Messages are the interface.** Each [`Error`] variant is one rule, and
//!   its message says where (file and TOML path), what is wrong and what to
//!   do. Tests assert them word for word.
//!
//! Why tables are walked by hand instead of with `#[derive(Deserialize)]`:
//! serde's errors name neither the key path nor a close key, and their
//! wording belongs to the toml crate. Reading a [`toml::Table`] through the
//! small strict reader in `strict` gives exact, stable messages, and a new
//! table is a key list and a reader function.
//!
//! # Schema
//!
//! ```toml
//! [system]
//! name = "default"          # required; [a-z][a-z0-9-]*, at most 31 bytes
//! description = "..."       # optional
//! memory_mib = 128          # optional, default 128, 32..=4096
//! cpus = 1                  # optional, default 1, 1..=8
//!
//! [tasks.hello]             # [a-z][a-z0-9_-]*, at most 31 bytes; 1 to 64 tasks
//! crate = "hello"           # required: the cargo package that builds the ELF; one task per crate
//! priority = 2              # required: 0 (most urgent) ..= 15
//! stack_size = 16384        # optional, default 16384; whole pages, 4 KiB..=1 MiB
//! heap_size = 65536         # optional, default 65536; whole pages, 0..=64 MiB
//! start_order = 1           # required; unique; tasks start in ascending order
//!
//! [test]                    # only in in-guest test systems
//! timeout_secs = 20         # optional, default 30, 1..=600
//! modes = ["tcg", "icount"] # optional, default ["tcg"]; "tcg", "icount", "kvm"; each once
//! expect = ["...", "..."]   # required, non-empty: console text that must appear, in order
//! forbid = ["..."]          # optional: console text that must never appear
//! outcome = "pass"          # optional, default "pass"; or "kernel-fault"
//! kernel_args = "..."       # optional: kernel command line (e.g. "selftest=panic")
//! ```
//!
//! The tasks' stacks and heaps together may take at most half of
//! `memory_mib`.

mod build_script;
mod codegen;
mod error;
pub mod limits;
mod model;
mod rules;
mod schema;
mod strict;
mod suggest;
mod test_spec;
mod validate;

use std::path::Path;

pub use build_script::{build_script_main, CONSTANTS_FILE, MANIFEST_ENV};
pub use codegen::task_constants;
pub use error::Error;
pub use model::{Manifest, Mode, Outcome, System, Task, TestSpec, UnknownVariant};
pub use suggest::{Suggestion, Words};

/// Parses and validates the manifest `text`; `origin` (a path or a label)
/// starts every error message and is kept in [`Manifest::origin`].
pub fn parse(text: &str, origin: &str) -> Result<Manifest, Error> {
    let document: toml::Table = text.parse().map_err(|error| syntax(text, origin, &error))?;
    let mut manifest = schema::read(origin, &document)?;
    validate::system(&manifest)?;
    manifest.tasks.sort_by_key(|task| task.start_order);
    Ok(manifest)
}

/// Reads and parses the manifest at `path`; the path, as given, is the
/// origin in messages.
pub fn load(path: &Path) -> Result<Manifest, Error> {
    let origin = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &origin),
        Err(source) => Err(Error::Read { origin, source }),
    }
}

/// A TOML syntax error, with the 1-based line and column where it starts.
fn syntax(text: &str, origin: &str, error: &toml::de::Error) -> Error {
    let offset = error.span().map_or(0, |span| span.start).min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    Error::Syntax {
        origin: origin.to_owned(),
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
        message: error.message().trim_end().to_owned(),
    }
}
