//! Timing: each round runs every configuration once, in turn (so a drift
//! of the machine touches all alike), after one untimed warm-up round
//! (which also fills the file server's cache: the figures are warm). A
//! sample is the guest TSC across one whole run of the workload — TSC
//! cycles under tcg, instructions under icount. The median, p99, mean
//! and count go to the console as record lines
//! (`BENCH <bench>__<config>__<param> median <value>`), which the runner
//! reads back (`qemu/runner/src/bench/cosy.rs`).
//!
//! Every run returns its answer (a count, a length); all configurations
//! must give the one VAN gave, or the round is reported as failed.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;
use core::fmt::Debug;

use conflux_userlib::bench::Samples;
use conflux_userlib::sys::rdtsc;

pub use cosybench_core::Config;

use crate::Bench;

/// `rounds` timed rounds of `run` in each of `configs` (VAN first: its
/// answer is the reference); `bench` and `param` name the metric.
pub fn rounds<T, E>(
    b: &mut Bench,
    bench: &str,
    param: &str,
    rounds: u32,
    configs: &[Config],
    mut run: impl FnMut(&mut Bench, Config) -> Result<T, E>,
) where
    T: PartialEq + Debug,
    E: Debug,
{
    rounds_timed(b, bench, param, rounds, configs, |b, config| {
        let start = rdtsc();
        run(b, config).map(|answer| (answer, rdtsc() - start))
    })
}

/// As [`rounds`], `run` timing itself: it returns its answer and the
/// TSC cycles its run took (dbsim's multi-process runs: from their
/// common start to the last process's end).
pub fn rounds_timed<T, E>(
    b: &mut Bench,
    bench: &str,
    param: &str,
    rounds: u32,
    configs: &[Config],
    mut run: impl FnMut(&mut Bench, Config) -> Result<(T, u64), E>,
) where
    T: PartialEq + Debug,
    E: Debug,
{
    let mut samples: Vec<Samples> = configs
        .iter()
        .map(|c| {
            let name = format!(
                "{}__{}__{}",
                bench.replace('-', "_"),
                c.metric(),
                param.replace('-', "_")
            );
            Samples::new(Box::leak(name.into_boxed_str()), rounds as usize)
        })
        .collect();
    let mut wrong = 0;
    for round in 0..=rounds {
        let mut reference = None;
        for (config, samples) in configs.iter().zip(samples.iter_mut()) {
            let (answer, took) = match run(b, *config) {
                Ok(a) => a,
                Err(e) => {
                    let what = format!("{bench} {param} {config:?} round {round}");
                    b.checks.that(&what, false, e);
                    return;
                }
            };
            match &reference {
                None => reference = Some(answer),
                Some(r) if *r == answer => {}
                Some(r) => {
                    wrong += 1;
                    let what = format!("{bench} {param} {config:?} answers as VAN");
                    b.checks.eq(&what, &answer, r);
                }
            }
            if round > 0 {
                samples.push(took);
            }
        }
        if round == 0 {
            conflux_userlib::println!("{bench} {param}: answer {:?}", reference);
        }
    }
    let what = format!("{bench} {param}: every configuration answered as VAN");
    b.checks.eq(&what, wrong, 0);
    for s in samples {
        s.report();
    }
}
