//! Shared helpers for the manifest tests: a minimal valid system to edit,
//! and shorthands that parse a literal and return the result.

#![allow(dead_code)]

use conflux_manifest::{parse, Error, Manifest};

/// The label errors start with.
pub const ORIGIN: &str = "systems/t.toml";

/// A minimal `[system]` table.
pub const SYSTEM: &str = "[system]\nname = \"t\"\n";

/// A minimal task.
pub const HELLO: &str = "[tasks.hello]\ncrate = \"hello\"\npriority = 2\nstart_order = 1\n";

/// Parses `text`, which must be valid.
pub fn ok(text: &str) -> Manifest {
    parse(text, ORIGIN).unwrap_or_else(|error| panic!("unexpected error: {error}"))
}

/// Parses `text`, which must be rejected, and returns the error.
pub fn err(text: &str) -> Error {
    match parse(text, ORIGIN) {
        Ok(manifest) => panic!("accepted: {manifest:?}"),
        Err(error) => error,
    }
}

/// The message for `text`.
pub fn message(text: &str) -> String {
    err(text).to_string()
}
