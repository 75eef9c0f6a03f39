//! `ls -l` (FSL-02-01 §4.3, HotOS 2003): read a directory and stat every
//! entry. VAN makes one IPC per `readdir` batch and one per `statat`;
//! COSY and COSY-FAST run the whole listing as one compound (written
//! with `cosy!`): COSY-FAST's batches of entries and stats land in the
//! app's buffers in the data region; COSY's land in the control region
//! and are copied into the app's buffers there (names copied back out
//! for each `statat`), as Cosy copied them to and from user buffers.
//!
//! Each plan parameter is a directory holding three copies of the same
//! generated directory, `van`, `cosy` and `cosy-fast` (the manifest's
//! `generate = [{ dir, files, size, seed }]`). **Cold**: each
//! configuration lists its own copy, untouched since boot, once (the
//! file server has never read its directory blocks or inodes; the path
//! to it is warm after the first). **Warm**: then every configuration
//! lists the `van` copy, after one untimed warm-up round, as the other
//! workloads do. The parameter is the directory's name with `-cold` or
//! `-warm` (`5000-cold`). The answer is the number of entries listed
//! (the server lists no `.` and `..`), which must be VAN's in every
//! configuration.
//!
//! As `ls -l` would print them, each batch's entries and stats are in
//! shared memory when the compound goes on to the next batch, which
//! overwrites them: the app of a compound sees the last batch only.

use alloc::format;
use alloc::string::String;

use conflux_fs_client::Error;
use conflux_fs_protocol::ops::{CLOSE, OPEN, O_DIRECTORY, READDIR, STATAT, TABLE};
use conflux_fs_protocol::record::{Dirent, Stat};
use conflux_userlib::bench::Samples;
use conflux_userlib::sys::rdtsc;
use cosy_abi::Builder;
use cosy_macro::cosy;

use crate::measure::{self, Config};
use crate::plan::Step;
use crate::Bench;
use cosybench_core::layout::{put_path, APP, PATH_A, PATH_B, PATH_LEN};

/// Entries one `readdir` asks for: VAN's batch too (`Fs::readdir`).
const BATCH: u32 = 64;
/// Where a batch of entries goes, in the region the compound uses.
const ENTRIES: u32 = 4096;
const BATCH_BYTES: u32 = BATCH * Dirent::SIZE as u32;
/// Where the batch's stats go, the i-th for the i-th entry.
const STATS: u32 = ENTRIES + BATCH_BYTES;
const DIRENT: u64 = Dirent::SIZE as u64;
const STAT_LEN: u64 = Stat::SIZE as u64;
/// The name field of an entry (NUL-terminated within it).
const NAME_AT: u32 = ENTRIES + Dirent::NAME_OFFSET as u32;
const NAME_LEN: u32 = (Dirent::SIZE - Dirent::NAME_OFFSET) as u32;
/// COSY: the name a `statat` looks up, copied there from the app's entry.
const OP_NAME: u32 = PATH_B;
/// COSY: the app's copies of the batch (at [`APP`]) and of its stats.
const APP_NAME: u32 = APP + Dirent::NAME_OFFSET as u32;
const APP_STATS: u32 = APP + BATCH_BYTES;

/// The configurations and the copy each lists cold.
const COPIES: [(Config, &str); 3] = [
    (Config::Van, "van"),
    (Config::Cosy, "cosy"),
    (Config::CosyFast, "cosy-fast"),
];

/// The listing as one compound, the path at [`PATH_A`], written with
/// `cosy!`: COSY-FAST's (`fast` = `Some(data region)`: each batch of
/// entries and its stats land in the app's buffers there) or COSY's
/// (`None`: in the control region, each batch copied into the app's
/// buffer at [`APP`], each name copied out of it for its `statat` and
/// each stat copied into it, as Cosy's `readdir` and `stat` into user
/// buffers did). Exit value: the entries listed.
pub fn compound(fast: Option<u8>) -> Builder {
    match fast {
        Some(region) => cosy!(TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(region, PATH_A, PATH_LEN);
            let batch = buf(region, ENTRIES, BATCH_BYTES);
            let mut entry = 0;
            let mut record = 0;
            // Entry i's name and stat move with its offsets in the batch.
            let name = buf_at(region, entry, NAME_AT, NAME_LEN);
            let stat = buf_at(region, record, STATS, STAT_LEN as u32);
            let fd = open(path, O_DIRECTORY, 0);
            let mut total = 0;
            loop {
                let n = readdir(fd, batch, BATCH_BYTES);
                if n == 0 {
                    break;
                }
                for i in 0..n {
                    entry = i * DIRENT;
                    record = i * STAT_LEN;
                    statat(fd, name, stat);
                }
                total += n;
            }
            close(fd);
            total
        }),
        None => cosy!(TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH_A, PATH_LEN);
            let batch = buf(0, ENTRIES, BATCH_BYTES);
            let app_batch = buf(0, APP, BATCH_BYTES);
            let op_name = buf(0, OP_NAME, NAME_LEN);
            let op_stat = buf(0, STATS, STAT_LEN as u32);
            let mut entry = 0;
            let mut record = 0;
            // Entry i's name and stat in the app's buffers.
            let name = buf_at(0, entry, APP_NAME, NAME_LEN);
            let stat = buf_at(0, record, APP_STATS, STAT_LEN as u32);
            let fd = open(path, O_DIRECTORY, 0);
            let mut total = 0;
            loop {
                let n = readdir(fd, batch, BATCH_BYTES);
                if n == 0 {
                    break;
                }
                copy(app_batch, batch, n * DIRENT);
                for i in 0..n {
                    entry = i * DIRENT;
                    record = i * STAT_LEN;
                    copy(op_name, name, NAME_LEN);
                    statat(fd, op_name, op_stat);
                    copy(stat, op_stat, STAT_LEN);
                }
                total += n;
            }
            close(fd);
            total
        }),
    }
}

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let built = (compound(None).build(), compound(Some(b.data)).build());
    let (cosy, fast) = match built {
        (Ok(c), Ok(f)) => (c, f),
        (c, f) => {
            let errors = (c.err(), f.err());
            return b.checks.that("ls-l: build the compounds", false, errors);
        }
    };
    for dir in &step.params {
        let name = dir.rsplit('/').next().unwrap_or(dir);
        let list = |b: &mut Bench, config: Config, path: &str| match config {
            Config::Van => van(b, path),
            Config::Cosy => in_compound(b, 0, &cosy, path),
            Config::CosyFast => {
                let data = b.data;
                in_compound(b, data, &fast, path)
            }
        };
        cold(b, &format!("{name}-cold"), dir, list);
        let warm = format!("{dir}/van");
        measure::rounds(
            b,
            "ls-l",
            &format!("{name}-warm"),
            step.rounds,
            &COPIES.map(|(c, _)| c),
            |b, config| list(b, config, &warm),
        );
    }
}

/// One listing per configuration, each of its own untouched copy; one
/// sample each (a second would be warm).
fn cold(
    b: &mut Bench,
    param: &str,
    dir: &str,
    list: impl Fn(&mut Bench, Config, &str) -> Result<u64, Error>,
) {
    let mut reference = None;
    for (config, copy) in COPIES {
        let path = format!("{dir}/{copy}");
        let start = rdtsc();
        let answer = list(b, config, &path);
        let took = rdtsc() - start;
        let answer = match answer {
            Ok(a) => a,
            Err(e) => return b.checks.that(&format!("ls-l {path} {config:?}"), false, e),
        };
        match reference {
            None => {
                reference = Some(answer);
                conflux_userlib::println!("ls-l {param}: answer Some({answer})");
            }
            Some(r) => b.checks.eq(
                &format!("ls-l {param} {config:?} answers as VAN"),
                answer,
                r,
            ),
        }
        let metric: String = format!("ls_l__{}__{}", config.metric(), param.replace('-', "_"));
        let mut samples = Samples::new(alloc::boxed::Box::leak(metric.into_boxed_str()), 1);
        samples.push(took);
        samples.report();
    }
}

/// One IPC per batch of entries and one per entry's stat.
fn van(b: &mut Bench, path: &str) -> Result<u64, Error> {
    let fd = b.fs.open(path, O_DIRECTORY, 0)?;
    let mut total = 0;
    loop {
        let entries = b.fs.readdir(fd)?;
        if entries.is_empty() {
            break;
        }
        for entry in &entries {
            b.fs.statat(fd, entry.name())?;
        }
        total += entries.len() as u64;
    }
    b.fs.close(fd)?;
    Ok(total)
}

/// The compound over `region` (0: control), the path put in first; one
/// IPC.
fn in_compound(b: &mut Bench, region: u8, compound: &[u8], path: &str) -> Result<u64, Error> {
    b.run_compound(region, compound, |m| put_path(m, PATH_A, path))
}
