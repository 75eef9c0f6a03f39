//! `[devices.NAME] generate = [{ path, size, seed }, ...]`: files the
//! runner adds to a disk built from a folder (in a staging copy, never in
//! the folder itself). Rules: a relative `/`-separated path of plain
//! components (no `..`, `.` or empty ones), each path once, a size up to
//! [`MAX_GENERATED_SIZE`], a seed >= 0, at most [`MAX_GENERATED_FILES`]
//! files, and all together no larger than the disk. `{ dir, files, size,
//! seed }` is a directory of `files` generated files (1 to
//! [`MAX_GENERATED_DIR_FILES`]), counted as one entry.

use crate::error::{Error, GeneratedRule};
use crate::limits::{MAX_GENERATED_DIR_FILES, MAX_GENERATED_FILES, MAX_GENERATED_SIZE, MIB};
use crate::model::GeneratedFile;
use crate::rules::{self, Unit};
use crate::strict::Fields;

/// Keys allowed in one `generate` entry.
const KEYS: &[&str] = &["path", "dir", "files", "size", "seed"];

/// Reads `generate` of a folder disk of `size_mib` MiB (`folder` says
/// whether the disk has one).
pub(crate) fn read(
    fields: &Fields,
    folder: bool,
    size_mib: u32,
) -> Result<Vec<GeneratedFile>, Error> {
    let Some(entries) = fields.optional::<Vec<&toml::Table>>("generate")? else {
        return Ok(Vec::new());
    };
    let key = fields.path_of("generate");
    let fail = |path: String, rule| Error::Generated {
        origin: fields.origin().to_owned(),
        path,
        rule,
    };
    if !folder {
        return Err(fail(key, GeneratedRule::NeedsFolder));
    }
    if entries.len() > MAX_GENERATED_FILES {
        let (count, max) = (entries.len(), MAX_GENERATED_FILES);
        return Err(fail(key, GeneratedRule::TooMany { count, max }));
    }
    let mut files: Vec<GeneratedFile> = Vec::with_capacity(entries.len());
    for (index, table) in entries.into_iter().enumerate() {
        let entry = Fields::new(fields.origin(), format!("{key}[{index}]"), table, KEYS)?;
        let (file, dir) = (
            entry.optional::<&str>("path")?,
            entry.optional::<&str>("dir")?,
        );
        let has_files = entry.optional::<i64>("files")?.is_some();
        let (path, name) = match (file, dir) {
            (Some(p), None) if !has_files => (p, "path"),
            (None, Some(d)) if has_files => (d, "dir"),
            _ => return Err(fail(format!("{key}[{index}]"), GeneratedRule::PathOrDir)),
        };
        if let Some(rule) = path_rule(path) {
            return Err(fail(entry.path_of(name), rule));
        }
        let count = match dir {
            None => None,
            Some(_) => Some(rules::unsigned(
                &entry,
                "files",
                1,
                u64::from(MAX_GENERATED_DIR_FILES),
                Unit::Count,
            )? as u32),
        };
        if let Some(first) = files.iter().position(|f| f.path == path) {
            let rule = GeneratedRule::Duplicate {
                value: path.to_owned(),
                first,
            };
            return Err(fail(entry.path_of(name), rule));
        }
        let size = rules::unsigned(&entry, "size", 0, MAX_GENERATED_SIZE, Unit::Bytes)?;
        let seed = rules::unsigned(&entry, "seed", 0, i64::MAX.unsigned_abs(), Unit::Count)?;
        files.push(GeneratedFile {
            path: path.to_owned(),
            size,
            seed,
            files: count,
        });
    }
    let total: u64 = files.iter().map(GeneratedFile::total).sum();
    let disk = u64::from(size_mib) * u64::from(MIB);
    if total > disk {
        return Err(fail(key, GeneratedRule::TooLarge { total, disk }));
    }
    Ok(files)
}

/// What is wrong with a generated file's path, if anything.
fn path_rule(path: &str) -> Option<GeneratedRule> {
    if path.is_empty() || path.starts_with('/') {
        return Some(GeneratedRule::NotRelative {
            value: path.to_owned(),
        });
    }
    let odd = path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == ".." || c.contains('\0'));
    odd.then(|| GeneratedRule::OddComponent {
        value: path.to_owned(),
    })
}
