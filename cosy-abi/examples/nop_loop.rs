//! Runs the prepared null loop (`for i in 0..N { nop() }`, the compound
//! `cargo make bench cosy` times in the guest) once, for counting the
//! executor's instructions with callgrind, where timing is too noisy:
//!
//! ```text
//! cargo build --release -p cosy-abi --example nop_loop
//! valgrind --tool=callgrind --toggle-collect='nop_loop::one_run' \
//!     target/release/examples/nop_loop 256
//! ```
//!
//! `Collected` is the instructions of one run (verified beforehand, not
//! counted); the difference between N = 256 and N = 128, divided by 128,
//! is the cost of one loop iteration (`CALL nop` + `LOOP`), and N = 0
//! gives the fixed cost of a run. The service's `nop` is `#[inline(never)]`
//! and does nothing, as the file server's does.

use std::hint::black_box;

use cosy_abi::{
    Args, Builder, CallError, Cmp, Insn, OpResult, OpSpec, OpTable, Program, Registers, Service,
    Target,
};

const SPECS: [OpSpec; 1] = [OpSpec::new("nop", &[])];
const OPS: OpTable<'static> = OpTable::new("null", &SPECS);
const NOP: u16 = 0;

struct Null;

impl Service for Null {
    fn ops(&self) -> OpTable<'_> {
        OPS
    }

    #[inline(never)]
    fn call(&mut self, opcode: u16, _args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        match opcode {
            NOP => Ok(0),
            other => Err(CallError::UnknownOp { opcode: other }),
        }
    }
}

/// One run with `n` as the parameter; what callgrind counts.
#[inline(never)]
fn one_run(program: &Program<[Insn; 8]>, region: &mut [u8], results: &mut [OpResult], n: u64) {
    let mut regs = Registers::with_params(&[n]).expect("one parameter");
    let report = program.run(&mut Null, &mut [region], &mut regs, results);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.exit_value, n);
}

fn main() {
    let n: u64 = match std::env::args().nth(1) {
        Some(arg) => arg.parse().expect("N, the loop count, a number"),
        None => 256,
    };
    // The compound `cosy!` writes for apps/bench/cosybench's null loop: r0 = n.
    let mut b = Builder::new();
    let (count, i) = (b.reg(), b.reg());
    b.step_budget(u32::MAX).fail_fast(true);
    b.for_loop(i, 0, Cmp::LtU, count, 1, |b| {
        b.call_void(NOP, ());
    });
    b.exit(count);
    let compound = b.build().expect("build the null loop");
    let mut region = vec![0u8; 64];
    let lens = [region.len()];
    let target = Target {
        ops: OPS,
        regions: &lens,
        max_steps: u32::MAX,
    };
    let program = Program::verify(&compound, &target, [Insn::EMPTY; 8]).expect("verify");
    let mut results = [OpResult::EMPTY; 8];
    one_run(black_box(&program), &mut region, &mut results, black_box(n));
    println!("null loop N={n}: {} ops, ran clean", program.len());
}
