//! fs-ops (`cargo make bench fs-ops`): what one file operation costs,
//! all layers together — the null request, `stat` of a file, `open` +
//! `close`, cached 4 KiB `pread` and `pwrite`, sequential 64 KiB reads,
//! `readdir` and `readdirplus` (`ls -l`'s listing) per entry and open +
//! read + close of a 1 KiB file (`cosybench_core::fs_ops::Op`) — in the
//! three configurations of the other workloads: VAN (one IPC per
//! operation through the client library's typed calls), COSY (a loop of
//! N of them in one compound, each operation's data copied between its
//! buffer and the app's) and COSY-FAST (the same loop over the app's
//! buffers in the data region).
//!
//! A plan line `fs-ops ROUNDS OP N [PATH]` makes each run N operations
//! (readdir, readdirplus: list a directory of N entries). A sample is
//! the guest TSC across one run divided by N, so the median is the cost
//! per operation with the run's fixed costs (an IPC, a compound's
//! verification, an `open` before a loop of reads) spread over N; the
//! untimed warm-up round leaves the caches warm. Around each timed run,
//! untimed: the app's buffers are cleared and its inputs placed before;
//! after, the run must have made all N operations' worth of work
//! (`Op::expected`), and its answer — that and the digest of what the
//! app's buffer holds (the last stat record, block, chunk, file or
//! batch of entries) — must be VAN's; a `pwrite` run's last block is
//! read back and must hold the bytes written.

mod calls;
mod data;
mod dirs;
mod lists;

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_protocol::ops::O_RDONLY;
use conflux_userlib::sys::rdtsc;
use conflux_userlib::testing::pattern;
use cosy_abi::BuildError;
use cosybench_core::fs_ops::layout::{self, BATCH, BLOCK, DATA_LEN, NAMES, NAME_LEN, RECORD_LEN};
use cosybench_core::fs_ops::{digest, Op, Spec, SMALL_FILE};
use cosybench_core::layout::put_path;

use crate::measure::{self, Config};
use crate::plan::Step;
use crate::Bench;

/// What a run answered; every configuration must answer as VAN.
#[derive(Debug, PartialEq, Eq)]
pub struct Answer {
    /// Calls, bytes or entries (`Op::expected`).
    pub count: u64,
    /// The digest of the app's buffer after the run (0 where the
    /// operation leaves nothing there).
    pub digest: u64,
}

/// A plan line's work: the spec and what its runs need besides.
pub struct Work<'a> {
    pub spec: Spec<'a>,
    /// pread, pwrite: the file's whole blocks, which the offsets cycle
    /// through.
    pub blocks: u64,
    /// open-read-close: the files' paths, in the app's table.
    pub names: Vec<String>,
}

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let label = format!("fs-ops {}", step.params.join(" "));
    let work = match Spec::parse(&step.params) {
        Ok(spec) => Work::new(b, spec),
        Err(e) => Err(format!("{e}")),
    };
    let work = match work {
        Ok(w) => w,
        Err(e) => return b.checks.that(&format!("{label}: {e}"), false, ()),
    };
    let Some((cosy, fast)) = b.compounds(&label, |fast| compound(&work, fast)) else {
        return;
    };
    let configs: &[Config] = match work.spec.op.moves_data() {
        true => &Config::ALL,
        false => &[Config::Van, Config::Cosy],
    };
    let mut mine = vec![0u8; layout::SPAN as usize];
    let mut stamp = 0;
    let n = work.spec.n;
    measure::rounds_timed(
        b,
        "fs-ops",
        work.spec.op.name(),
        step.rounds,
        configs,
        |b, config| {
            stamp += 1;
            let (raw, took) = match config {
                Config::Van => van(b, &work, &mut mine, stamp)?,
                Config::Cosy => timed_compound(b, 0, &cosy, &work, stamp)?,
                Config::CosyFast => timed_compound(b, b.data, &fast, &work, stamp)?,
            };
            let answer = outcome(b, &work, config, raw, stamp, &mine)?;
            Ok::<_, String>((answer, took / n))
        },
    );
}

impl<'a> Work<'a> {
    /// What `spec`'s runs need, looked up once (VAN, untimed); an error
    /// saying what is wrong with the file or directory it names.
    fn new(b: &mut Bench, spec: Spec<'a>) -> Result<Work<'a>, String> {
        let mut work = Work {
            spec,
            blocks: 0,
            names: Vec::new(),
        };
        let path = spec.path;
        match spec.op {
            Op::Pread | Op::Pwrite | Op::Read64k => {
                let size =
                    b.fs.stat(path)
                        .map_err(|e| format!("stat {path}: {e}"))?
                        .size;
                work.blocks = size / u64::from(BLOCK);
                let needs = match spec.op {
                    Op::Read64k => spec.n * u64::from(DATA_LEN),
                    _ => u64::from(BLOCK),
                };
                if size < needs {
                    return Err(format!(
                        "{path} holds {size} bytes; {} {} needs at least {needs} (make the file larger or N smaller)",
                        spec.op.name(),
                        spec.n
                    ));
                }
            }
            Op::OpenReadClose => {
                work.names = (0..spec.n).map(|i| format!("{path}/f{i:05}")).collect();
                let longest = work.names.iter().map(String::len).max().unwrap_or(0);
                if longest >= NAME_LEN as usize {
                    return Err(format!(
                        "the paths of {path}'s files take {longest} bytes; the table holds names of fewer than {NAME_LEN}"
                    ));
                }
            }
            _ => {}
        }
        Ok(work)
    }
}

/// COSY's compound (`fast` = `None`) or COSY-FAST's (over data region
/// `fast`) for `work`.
fn compound(work: &Work<'_>, fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    match work.spec.op {
        Op::Nop | Op::Stat | Op::OpenClose => calls::compound(work, fast),
        Op::Pread | Op::Pwrite | Op::Read64k => data::compound(work, fast),
        Op::Readdir | Op::Readdirplus => lists::compound(work, fast),
        Op::OpenReadClose => dirs::compound(work, fast),
    }
}

/// Clears the app's buffers in `memory` (laid out as `layout` says) and
/// places `config`'s inputs: the path, open-read-close's table of paths,
/// the block pwrite writes (a pattern of `stamp`, new for every run).
fn place(work: &Work<'_>, memory: &mut [u8], config: Config, stamp: u32) -> Result<(), String> {
    let app = layout::app(config);
    let record = app.record as usize;
    memory[record..record + RECORD_LEN as usize].fill(0);
    let data = app.data as usize;
    memory[data..data + DATA_LEN as usize].fill(0);
    if work.spec.op != Op::Nop && !put_path(memory, app.path, work.spec.path) {
        return Err(format!(
            "the path {} does not fit its buffer",
            work.spec.path
        ));
    }
    for (i, name) in work.names.iter().enumerate() {
        put_path(memory, NAMES + i as u32 * NAME_LEN, name);
    }
    if work.spec.op == Op::Pwrite {
        memory[data..data + BLOCK as usize].copy_from_slice(&pattern(stamp, BLOCK as usize));
    }
    Ok(())
}

/// A VAN run, its inputs placed in the app's memory `mine` first.
fn van(b: &mut Bench, work: &Work<'_>, mine: &mut [u8], stamp: u32) -> Result<(u64, u64), String> {
    place(work, mine, Config::Van, stamp)?;
    let app = layout::app(Config::Van);
    let (fs, record, data) = (&mut b.fs, app.record as usize, app.data as usize);
    let app_data = data..data + DATA_LEN as usize;
    match work.spec.op {
        Op::Nop | Op::Stat | Op::OpenClose => calls::van(fs, work, mine, record),
        Op::Pread | Op::Pwrite | Op::Read64k => data::van(fs, work, mine, data),
        Op::Readdir | Op::Readdirplus => lists::van(fs, work, &mut mine[app_data]),
        Op::OpenReadClose => dirs::van(fs, work, &mut mine[data..data + BLOCK as usize]),
    }
    .map_err(|e| format!("{e}"))
}

/// A compound's run over `region` (0: the control region), its inputs
/// placed there first; its exit value and the TSC the IPC took.
fn timed_compound(
    b: &mut Bench,
    region: u8,
    compound: &[u8],
    work: &Work<'_>,
    stamp: u32,
) -> Result<(u64, u64), String> {
    let config = if region == 0 {
        Config::Cosy
    } else {
        Config::CosyFast
    };
    place(work, memory(b, config)?, config, stamp)?;
    let start = rdtsc();
    let reply = b.fs.run(compound, &[]);
    let took = rdtsc() - start;
    let reply = reply.map_err(|e| format!("run the compound: {e}"))?;
    Ok((reply.exit_value, took))
}

/// The memory a compound of `config` uses: the control region (COSY) or
/// the data region (COSY-FAST).
fn memory(b: &mut Bench, config: Config) -> Result<&mut [u8], String> {
    match config {
        Config::CosyFast => {
            let data = b.data;
            b.fs.data(data)
                .ok_or_else(|| format!("data region {data} is not attached"))
        }
        _ => Ok(b.fs.control()),
    }
}

/// The answer of a run that answered `raw`: checks that it did all its
/// work and digests what it left in the app's buffer (`mine` for VAN);
/// reads a pwrite run's last block back.
fn outcome(
    b: &mut Bench,
    work: &Work<'_>,
    config: Config,
    raw: u64,
    stamp: u32,
    mine: &[u8],
) -> Result<Answer, String> {
    let (op, n) = (work.spec.op, work.spec.n);
    // A listing's answer also says how many entries its last batch left
    // in the app's buffer (`lists`): their bytes are what is compared.
    let (count, last) = match op.entry_len() {
        Some(_) => (raw / lists::PACK, raw % lists::PACK),
        None => (raw, 0),
    };
    if last > u64::from(BATCH) {
        return Err(format!(
            "{} answered a last batch of {last} entries, more than the {BATCH} a batch asks for",
            op.name()
        ));
    }
    let listed = last * op.entry_len().map_or(0, u64::from);
    let want = op.expected(n);
    if count != want {
        return Err(format!(
            "{} answered {count}, not the {want} that {n} operations on {} make (a short read or write, a missing entry)",
            op.name(),
            work.spec.path
        ));
    }
    let app = layout::app(config);
    let memory: &[u8] = match config {
        Config::Van => mine,
        _ => memory(b, config)?,
    };
    let bytes = |at: u32, len: u64| &memory[at as usize..at as usize + len as usize];
    let digest = match op {
        Op::Nop | Op::OpenClose | Op::Pwrite => 0,
        Op::Stat => digest(bytes(app.record, u64::from(RECORD_LEN))),
        Op::Pread => digest(bytes(app.data, u64::from(BLOCK))),
        Op::Read64k => digest(bytes(app.data, u64::from(DATA_LEN))),
        Op::OpenReadClose => digest(bytes(app.data, SMALL_FILE)),
        Op::Readdir | Op::Readdirplus => digest(bytes(app.data, listed)),
    };
    if op == Op::Pwrite {
        written(b, work, stamp)?;
    }
    Ok(Answer { count, digest })
}

/// Reads back the block a pwrite run wrote last (VAN); an error unless
/// it holds the pattern of `stamp`, so a run whose writes went nowhere
/// cannot pass.
fn written(b: &mut Bench, work: &Work<'_>, stamp: u32) -> Result<(), String> {
    let path = work.spec.path;
    let at = (work.spec.n - 1) % work.blocks * u64::from(BLOCK);
    let mut back = vec![0u8; BLOCK as usize];
    let read = b.fs.open(path, O_RDONLY, 0).and_then(|fd| {
        let n = b.fs.pread(fd, &mut back, at);
        b.fs.close(fd)?;
        n
    });
    match read {
        Ok(n) if n == back.len() && back == pattern(stamp, back.len()) => Ok(()),
        Ok(n) => Err(format!(
            "pwrite: the block at {at} of {path} read back ({n} bytes) is not the one written last"
        )),
        Err(e) => Err(format!(
            "pwrite: read back the block at {at} of {path}: {e}"
        )),
    }
}
