//! The fuzz seed corpus stays valid: every seed passes the verifier in
//! the fuzz target's setup and finishes cleanly, and the seeds made from
//! the paper examples match what the builder makes today. Regenerate with
//! `cargo run -p cosy-abi --example fuzz_seeds`.

use std::path::PathBuf;

use cosy_abi::memfs::{self, MemFs};
use cosy_abi::{examples, Insn, OpResult, Outcome, Program, Registers, Target};

/// The fuzz target's setup (see `fuzz/fuzz_targets/verify_exec.rs`).
const REGION_LENS: [usize; 2] = [256, 4096];
const MAX_STEPS: u32 = 20_000;
const PARAMS: [u64; 3] = [6, 7, 8];

fn seed(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus/verify_exec")
        .join(format!("seed-{name}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_seed_verifies_and_runs_in_the_fuzz_setup() {
    for name in [
        "read_loop",
        "file_copy",
        "db_loop",
        "arithmetic",
        "data_ops",
        "walking_buffer",
    ] {
        let bytes = seed(name);
        let target = Target {
            ops: memfs::OPS,
            regions: &REGION_LENS,
            max_steps: MAX_STEPS,
        };
        let program = Program::verify(&bytes, &target, vec![Insn::EMPTY; 128])
            .unwrap_or_else(|e| panic!("seed {name} rejected: {e}"));
        let mut backing = vec![0u8; 8 * 2048];
        let mut fs = MemFs::new(&mut backing, 2048);
        fs.create(b"in", &[0x11; 300]).unwrap();
        fs.create(b"db", &[0x22; 2048]).unwrap();
        let mut r0 = vec![0u8; REGION_LENS[0]];
        r0[0..2].copy_from_slice(b"in");
        r0[16..19].copy_from_slice(b"out");
        r0[32..34].copy_from_slice(b"db");
        let mut r1 = vec![3u8; REGION_LENS[1]];
        let mut results = vec![OpResult::EMPTY; program.len()];
        let mut regs = Registers::with_params(&PARAMS).unwrap();
        let report = program.run(
            &mut fs,
            &mut [&mut r0[..], &mut r1[..]],
            &mut regs,
            &mut results,
        );
        assert_eq!(report.outcome, Outcome::Finished, "seed {name}: {report}");
    }
}

#[test]
fn example_seeds_are_current() {
    let cases = [
        ("read_loop", examples::read_loop((0, 0, 16), (1, 0, 512))),
        (
            "file_copy",
            examples::file_copy((0, 0, 16), (0, 16, 16), (1, 0, 512)),
        ),
        ("db_loop", examples::db_loop((0, 32, 16), (1, 512, 256))),
    ];
    for (name, builder) in cases {
        assert_eq!(seed(name), builder.build().unwrap(), "seed {name} is stale");
    }
}
