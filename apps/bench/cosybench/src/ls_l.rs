//! `ls -l` (FSL-02-01 §4.3, HotOS 2003): read a directory and stat every
//! entry (the listing and its compounds are `cosybench_core::ls_l`'s,
//! which the rings benchmark runs too). VAN makes one IPC per `readdir`
//! batch and one per `statat`; COSY and COSY-FAST run the whole listing
//! as one compound (written with `cosy!`): COSY-FAST's batches of entries and stats land in the
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

use alloc::format;
use alloc::string::String;

use conflux_fs_client::Error;
use conflux_userlib::bench::Samples;
use conflux_userlib::sys::rdtsc;

use crate::measure::{self, Config};
use crate::plan::Step;
use crate::Bench;
use cosybench_core::layout::{put_path, PATH_A};
use cosybench_core::ls_l::compound;

/// The configurations and the copy each lists cold.
const COPIES: [(Config, &str); 3] = [
    (Config::Van, "van"),
    (Config::Cosy, "cosy"),
    (Config::CosyFast, "cosy-fast"),
];

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

/// One IPC per batch of entries and one per entry's stat
/// (`cosybench_core::ls_l::van`).
fn van(b: &mut Bench, path: &str) -> Result<u64, Error> {
    cosybench_core::ls_l::van(&mut b.fs, path)
}

/// The compound over `region` (0: control), the path put in first; one
/// IPC.
fn in_compound(b: &mut Bench, region: u8, compound: &[u8], path: &str) -> Result<u64, Error> {
    b.run_compound(region, compound, |m| put_path(m, PATH_A, path))
}
