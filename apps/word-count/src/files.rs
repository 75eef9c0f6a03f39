//! The file server, twice: writes a few files, then counts how often a
//! word occurs in a list of files (one of which does not exist) with
//! plain calls — an IPC per open, read and close — and again as one
//! compound that the file server runs whole. The compound's inputs (the
//! list of paths, the word, a buffer) are placed in the shared control
//! region by an `Arena`, so no offset is computed by hand; its missing
//! file comes back as a typed failure (`op 0 (open): no such file or
//! directory`), as the plain call's does.

use alloc::format;
use alloc::string::String;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{self, O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY};
use conflux_fs_protocol::FsError;
use conflux_userlib::println;
use cosy_abi::{Arena, ArenaError};
use cosy_macro::cosy;

// The task's generated constants (`entry!` declares them at the crate's
// root), which `manifest_caps!` reads.
use crate::config;

/// The files written, and what each holds.
const FILES: [(&str, &[u8]); 3] = [
    ("/word-count-1.txt", b"a needle in hay"),
    ("/word-count-2.txt", b"only hay"),
    ("/word-count-3.txt", b"needle, needle"),
];
/// The paths counted: the files above and one that does not exist.
const LIST: [&str; 4] = [
    "/word-count-1.txt",
    "/word-count-2.txt",
    "/word-count-3.txt",
    "/word-count-missing.txt",
];
/// The word counted.
const WORD: &[u8] = b"needle";
/// Bytes read at a time.
const CHUNK: usize = 4096;

/// Writes the files, counts both ways and compares.
pub fn run() -> Result<(), String> {
    let mut fs = Fs::connect(conflux_fs_client::manifest_caps!())
        .map_err(|e| format!("cannot connect to the file server: {e}"))?;
    for (path, text) in FILES {
        write(&mut fs, path, text).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    let (hits, missing) = count_by_calls(&mut fs).map_err(|e| format!("plain calls: {e}"))?;
    println!("files: plain calls: {hits} hits, {missing} file(s) missing");
    let (c_hits, c_missing) = count_by_compound(&mut fs)?;
    println!("files: one compound: {c_hits} hits, {c_missing} file(s) missing");
    if (hits, missing) != (c_hits, c_missing) {
        return Err(format!(
            "the two counts differ: plain calls {hits}/{missing}, compound {c_hits}/{c_missing}"
        ));
    }
    println!("files: both paths agree");
    Ok(())
}

/// `path` created or truncated, holding `text`.
fn write(fs: &mut Fs, path: &str, text: &[u8]) -> Result<(), Error> {
    let fd = fs.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)?;
    let written = fs.write(fd, text);
    fs.close(fd)?;
    written.map(|_| ())
}

/// Occurrences of [`WORD`] in the files of [`LIST`], and how many of them
/// are missing: one IPC per open, read and close.
fn count_by_calls(fs: &mut Fs) -> Result<(u64, u64), Error> {
    let (mut hits, mut missing) = (0, 0);
    let mut chunk = [0u8; CHUNK];
    for path in LIST {
        let fd = match fs.open(path, O_RDONLY, 0) {
            Ok(fd) => fd,
            Err(Error::Fs(FsError::NotFound)) => {
                missing += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        loop {
            let n = fs.read(fd, &mut chunk)?;
            if n == 0 {
                break;
            }
            hits += occurrences(&chunk[..n], WORD);
        }
        fs.close(fd)?;
    }
    Ok((hits, missing))
}

/// The same count as one compound: the server runs the whole loop and
/// the app makes one IPC.
fn count_by_compound(fs: &mut Fs) -> Result<(u64, u64), String> {
    // The compound itself goes at the control region's end; its inputs
    // and buffer are placed from the start.
    let layout = |e: ArenaError| format!("cannot lay out the control region: {e}");
    let mut arena = Arena::new(0, &mut fs.control()[..2 * CHUNK]).map_err(layout)?;
    let names = arena.table(&LIST).map_err(layout)?;
    let word = arena.bytes(WORD).map_err(layout)?;
    let buffer = arena.buffer(CHUNK).map_err(layout)?;
    let chunk = buffer.len;
    let compound = cosy!(ops::TABLE => || {
        let needle = buf(word);
        let data = buf(buffer);
        let mut at = 0;
        let path = buf_at(names.first, at);
        let mut hits = 0;
        let mut missing = 0;
        for _ in 0..names.count {
            let fd = open(path, O_RDONLY, 0);
            if is_err(fd, NOT_FOUND) {
                missing += 1;
            } else if is_ok(fd) {
                loop {
                    let n = read(fd, data, chunk);
                    if n == 0 || is_err(n) {
                        break;
                    }
                    hits += search(data, needle, n);
                }
                close(fd);
            }
            at += names.stride;
        }
        hits | missing << 32
    })
    .build()
    .map_err(|e| format!("the compound does not build: {e}"))?;
    let run = fs
        .run(&compound, &[])
        .map_err(|e| format!("the file server did not run it: {e}"))?;
    // The missing file is a failure the compound handled; the report
    // still names it.
    if let Some(failure) = &run.first_failure {
        println!("files: the compound's first failure: {failure}");
    }
    Ok((run.exit_value & 0xFFFF_FFFF, run.exit_value >> 32))
}

/// Occurrences of `word` in `text`.
fn occurrences(text: &[u8], word: &[u8]) -> u64 {
    text.windows(word.len()).filter(|w| *w == word).count() as u64
}
