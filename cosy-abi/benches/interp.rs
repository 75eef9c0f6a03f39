//! Host benchmark of the compound interpreter (`cargo bench -p cosy-abi
//! --bench interp`).
//!
//! - **compound**: a prepared compound looping 256 times over a no-op
//!   service call (`for i in 0..256 { nop() }`: 2 + 2 x 256 = 514 ops),
//!   against **direct**: the same 256 calls made straight to the service.
//!   The difference, divided by the ops executed, is the executor's
//!   overhead per op.
//! - **verify**: the verifier on a 256-op compound mixing calls,
//!   arithmetic, branches and data ops, per op.
//! - **crc32c**: the `CRC32C` op's checksum over 4 KiB, per byte.
//!
//! Each figure is the median of many samples, each sample timing a batch
//! of repetitions with `std::time::Instant`; compound and direct batches
//! alternate and the overhead is the median of their paired differences. Prints a table and appends
//! JSON lines to `target/bench/results.jsonl` at the workspace root (or
//! to `$CONFLUX_BENCH_OUT`, tagged with `$CONFLUX_BENCH_RUN` when the
//! runner sets it).

use std::fs::OpenOptions;
use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use cosy_abi::{
    ArgKind, Args, Builder, CallError, Cmp, Insn, OpResult, OpSpec, OpTable, Program, Registers,
    Service, Target,
};

const ITERATIONS: u64 = 256;
const SAMPLES: usize = 301;

const SPECS: [OpSpec; 2] = [
    OpSpec::new("nop", &[]),
    OpSpec::new("touch", &[ArgKind::Buf, ArgKind::Value]),
];
const OPS: OpTable<'static> = OpTable::new("bench", &SPECS);
const NOP: u16 = 0;
const TOUCH: u16 = 1;

/// A service whose calls do (almost) nothing, so what is measured is
/// the path to them.
struct NopService {
    calls: u64,
}

impl Service for NopService {
    fn ops(&self) -> OpTable<'_> {
        OPS
    }

    #[inline(never)]
    fn call(&mut self, opcode: u16, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        self.calls += 1;
        match opcode {
            NOP => Ok(0),
            _ => Ok(args.value(1)),
        }
    }
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Nanoseconds per repetition of `f`, timed over a batch of `reps`.
fn time_batch(reps: u32, f: &mut impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        f();
    }
    start.elapsed().as_nanos() as f64 / f64::from(reps)
}

/// Median nanoseconds per repetition of `f`, over `SAMPLES` batches.
fn median_ns(reps: u32, mut f: impl FnMut()) -> f64 {
    time_batch(reps, &mut f);
    median((0..SAMPLES).map(|_| time_batch(reps, &mut f)).collect())
}

/// Times `a` and `b` in alternating batches, so that both see the same
/// machine (this VM shares its cores, and its speed drifts). Returns the
/// medians of `a`, of `b`, and of the per-sample difference `a - b`.
fn paired_ns(reps: u32, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64, f64) {
    time_batch(reps, &mut a);
    time_batch(reps, &mut b);
    let pairs: Vec<(f64, f64)> = (0..SAMPLES)
        .map(|_| (time_batch(reps, &mut a), time_batch(reps, &mut b)))
        .collect();
    (
        median(pairs.iter().map(|p| p.0).collect()),
        median(pairs.iter().map(|p| p.1).collect()),
        median(pairs.iter().map(|p| p.0 - p.1).collect()),
    )
}

fn nop_loop() -> Vec<u8> {
    let mut b = Builder::new();
    let i = b.reg();
    b.step_budget(u32::MAX);
    b.for_loop(i, 0, Cmp::LtU, ITERATIONS, 1, |b| {
        b.call_void(NOP, ());
    });
    b.build().expect("build")
}

/// 256 ops of assorted kinds, for the verifier.
fn mixed() -> Vec<u8> {
    let mut b = Builder::new();
    let (x, y) = (b.reg(), b.reg());
    let (buf, other) = (b.buf(0, 0, 64), b.buf_at(0, x, 64, 64));
    let top = b.label();
    b.bind(top);
    while b.len() < 252 {
        b.call_void(NOP, ())
            .call(y, TOUCH, (buf, x))
            .add(x, x, 1)
            .mul(y, y, x);
        b.branch(Cmp::LtU, x, 10, top)
            .copy(y, buf, other, 16)
            .crc32c(y, buf, 64, y)
            .xor(x, x, y);
    }
    while b.len() < 256 {
        b.exit(y);
    }
    b.build().expect("build")
}

struct Record {
    config: &'static str,
    metric: &'static str,
    value: f64,
}

fn write_records(records: &[Record]) {
    let path = std::env::var_os("CONFLUX_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
                .join("bench")
                .join("results.jsonl")
        });
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create the bench output directory");
    }
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .expect("open the bench output");
    // The runner's id for this `cargo make bench` run (a UTC time, no
    // characters that need escaping); none when run by hand.
    let run = std::env::var("CONFLUX_BENCH_RUN")
        .ok()
        .filter(|id| {
            id.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-:.TZ".contains(c))
        })
        .map_or(String::new(), |id| format!(",\"run\":\"{id}\""));
    for r in records {
        writeln!(
            out,
            "{{\"bench\":\"cosy-interp\",\"config\":\"{}\",\"param\":\"median\",\"metric\":\"{}\",\"value\":{:.3},\"unit\":\"ns\",\"mode\":\"host\"{run}}}",
            r.config, r.metric, r.value
        )
        .expect("write a bench record");
    }
    println!("appended {} records to {}", records.len(), path.display());
}

fn main() {
    let mut region = vec![0u8; 4096];
    let lens = [region.len()];
    let target = Target {
        ops: OPS,
        regions: &lens,
        max_steps: u32::MAX,
    };

    let compound = nop_loop();
    let program = Program::verify(&compound, &target, [Insn::EMPTY; 8]).expect("verify");
    let mut results = [OpResult::EMPTY; 8];
    let mut service = NopService { calls: 0 };
    let mut regs = Registers::new();
    let report = program.run(
        &mut service,
        &mut [&mut region[..]],
        &mut regs,
        &mut results,
    );
    assert!(report.is_clean(), "{report}");
    let ops_run = f64::from(report.steps);
    assert_eq!(service.calls, ITERATIONS);

    let mut direct_service = NopService { calls: 0 };
    let mut direct_region = vec![0u8; 4096];
    let (compound_ns, direct_ns, difference_ns) = paired_ns(
        100,
        || {
            let mut regs = Registers::new();
            let report = program.run(
                black_box(&mut service),
                &mut [&mut region[..]],
                &mut regs,
                &mut results,
            );
            black_box(report);
        },
        || {
            let mut regions = [&mut direct_region[..]];
            for _ in 0..ITERATIONS {
                let mut args = Args::new(&mut regions);
                black_box(black_box(&mut direct_service).call(NOP, &mut args).ok());
            }
        },
    );

    let mixed = mixed();
    let mut storage = vec![Insn::EMPTY; 256];
    let verify_ns = median_ns(200, || {
        let program =
            Program::verify(black_box(&mixed), &target, &mut storage[..]).expect("verify");
        black_box(program.len());
    });
    let verify_loop_ns = median_ns(2000, || {
        let program =
            Program::verify(black_box(&compound), &target, &mut storage[..]).expect("verify");
        black_box(program.len());
    });

    let crc_data: Vec<u8> = (0..4096u32).map(|i| (i * 37 + 11) as u8).collect();
    let crc_per_byte = median_ns(20, || {
        black_box(cosy_abi::crc32c(0, black_box(&crc_data)));
    }) / crc_data.len() as f64;

    let per_op = compound_ns / ops_run;
    let direct_per_call = direct_ns / ITERATIONS as f64;
    let overhead_per_op = difference_ns / ops_run;
    let overhead_per_call = difference_ns / ITERATIONS as f64;
    let verify_per_op = verify_ns / 256.0;
    let verify_loop_per_op = verify_loop_ns / program.len() as f64;

    println!("cosy-interp (host), medians of {SAMPLES} samples");
    println!("{:<44} {:>12}", "measurement", "ns");
    println!(
        "{:<44} {:>12.1}",
        format!("compound: {ITERATIONS} x nop() loop, {ops_run} ops, per run"),
        compound_ns
    );
    println!(
        "{:<44} {:>12.1}",
        format!("direct: {ITERATIONS} x nop() calls, per run"),
        direct_ns
    );
    println!("{:<44} {:>12.2}", "compound: per op executed", per_op);
    println!("{:<44} {:>12.2}", "direct: per call", direct_per_call);
    println!(
        "{:<44} {:>12.2}",
        "executor overhead per op", overhead_per_op
    );
    println!(
        "{:<44} {:>12.2}",
        "executor overhead per loop iteration", overhead_per_call
    );
    println!(
        "{:<44} {:>12.2}",
        "verify: per op (256-op mixed compound)", verify_per_op
    );
    println!(
        "{:<44} {:>12.2}",
        "verify: per op (4-op nop loop)", verify_loop_per_op
    );
    println!("{:<44} {:>12.3}", "crc32c: per byte (4 KiB)", crc_per_byte);

    write_records(&[
        Record {
            config: "compound",
            metric: "per_op_overhead",
            value: overhead_per_op,
        },
        Record {
            config: "compound",
            metric: "per_iteration_overhead",
            value: overhead_per_call,
        },
        Record {
            config: "compound",
            metric: "per_op",
            value: per_op,
        },
        Record {
            config: "direct",
            metric: "per_call",
            value: direct_per_call,
        },
        Record {
            config: "verify",
            metric: "verify_per_op",
            value: verify_per_op,
        },
        Record {
            config: "verify-loop",
            metric: "verify_per_op",
            value: verify_loop_per_op,
        },
        Record {
            config: "crc32c",
            metric: "per_byte",
            value: crc_per_byte,
        },
    ]);
}
