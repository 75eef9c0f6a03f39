//! dbsim and `ls -l` through each path (`cosybench_core::paths`), one
//! client: each request timed from the first submission (or call) to
//! its last answer, and its answer checked against what the work must
//! give. Metrics `<path>_dbsim_latency` and `<path>_ls_l_latency`, TSC
//! cycles per request (the runner names the configuration by the
//! prefix).

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;

use conflux_fs_client::{Error, Fs};
use conflux_userlib::bench::Samples;
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use cosybench_core::many::{work, DB_FILE};
use cosybench_core::paths::{self, Compounds, Path};
use cosybench_core::work::expected;

use crate::Sizes;

/// The directory `ls -l` lists (the manifest generates it), and its
/// entries.
pub const LS_DIR: &str = "/ring/ls-100";
pub const LS_ENTRIES: u64 = 100;

/// Times `request` `sizes.rounds` times after `sizes.warmup` untimed,
/// each answer compared with `want`; the first failure, said in full.
fn timed(
    metric: &str,
    want: u64,
    sizes: &Sizes,
    mut request: impl FnMut() -> Result<u64, Error>,
) -> Result<(), String> {
    let name: &'static str = Box::leak(metric.into());
    let mut s = Samples::new(name, sizes.rounds);
    for i in 0..sizes.warmup + sizes.rounds {
        let t0 = rdtsc();
        let answer = request().map_err(|e| format!("{metric}: request {i} failed: {e}"))?;
        let dt = rdtsc() - t0;
        if answer != want {
            return Err(format!(
                "{metric}: request {i} answered {answer}, not {want}: the path lost or repeated work"
            ));
        }
        if i >= sizes.warmup {
            s.push(dt);
        }
    }
    s.report();
    println!("ringbench: ok: {metric}: every request answered {want}");
    Ok(())
}

/// Both workloads through every path.
pub fn run(fs: &mut Fs, sizes: &Sizes) -> Result<(), String> {
    let w = work(0);
    let c = Compounds::new(w).map_err(|e| format!("build dbsim's and ls -l's compounds: {e:?}"))?;
    for path in Path::ALL {
        let p = path.prefix();
        timed(&format!("{p}_dbsim_latency"), expected(w), sizes, || {
            paths::dbsim(fs, path, &c, DB_FILE, w)
        })?;
        timed(&format!("{p}_ls_l_latency"), LS_ENTRIES, sizes, || {
            paths::ls_l(fs, path, &c, LS_DIR)
        })?;
    }
    Ok(())
}
