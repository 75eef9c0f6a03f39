//! Shared test fixtures: a small service whose operations exercise every
//! kind of operand, and a helper that builds, verifies and runs.
#![allow(dead_code)]

use cosy_abi::wire::{CompoundRepr, OpRepr, RefRepr};
use cosy_abi::{
    ArgKind, Args, BuildError, Builder, CallError, Insn, OpResult, OpSpec, OpTable, Program,
    Registers, Report, Service, Target, VerifyError,
};

/// `sum6(a, b, c, d, e, f) -> a + b + c + d + e + f`
pub const SUM6: u16 = 0;
/// `fail(code) -> Err(Service(code))`
pub const FAIL: u16 = 1;
/// `stamp(buf, byte) -> len`: fills `buf` with `byte`.
pub const STAMP: u16 = 2;
/// `peek(buf, i) -> buf[i]`
pub const PEEK: u16 = 3;
/// `nop() -> 0`
pub const NOP: u16 = 4;
/// `misuse(value) -> buf(0)`: asks for a buffer at a value operand.
pub const MISUSE: u16 = 5;

const V: ArgKind = ArgKind::Value;
const B: ArgKind = ArgKind::Buf;
const SPECS: [OpSpec; 6] = [
    OpSpec::new("sum6", &[V, V, V, V, V, V]),
    OpSpec::new("fail", &[V]),
    OpSpec::new("stamp", &[B, V]),
    OpSpec::new("peek", &[B, V]),
    OpSpec::new("nop", &[]),
    OpSpec::new("misuse", &[V]),
];
pub const OPS: OpTable<'static> = OpTable::new("test", &SPECS);

/// Records every call it gets.
#[derive(Default, Debug)]
pub struct TestService {
    pub calls: Vec<(u16, Vec<u64>)>,
}

impl Service for TestService {
    fn ops(&self) -> OpTable<'_> {
        OPS
    }

    fn call(&mut self, opcode: u16, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        self.calls
            .push((opcode, (0..args.len()).map(|i| args.value(i)).collect()));
        match opcode {
            SUM6 => Ok((0..6).map(|i| args.value(i)).fold(0u64, u64::wrapping_add)),
            FAIL => Err(CallError::Service(args.value(0) as u16)),
            STAMP => {
                let byte = args.value(1) as u8;
                let buf = args.buf_mut(0)?;
                buf.fill(byte);
                Ok(buf.len() as u64)
            }
            PEEK => {
                let i = args.value(1) as usize;
                args.buf(0)?
                    .get(i)
                    .map(|&b| u64::from(b))
                    .ok_or(CallError::Service(22))
            }
            NOP => Ok(0),
            MISUSE => args.buf(0).map(|b| b.len() as u64),
            _ => Err(CallError::UnknownOp { opcode }),
        }
    }

    /// STAMP moves bytes: its work is one step per `BYTES_PER_STEP`, as a
    /// file server's reads and writes are, so sliced runs pause sooner.
    fn work(&self, opcode: u16, value: Option<u64>) -> u32 {
        match (opcode, value) {
            (STAMP, Some(n)) => (n / cosy_abi::wire::BYTES_PER_STEP) as u32,
            _ => 0,
        }
    }
}

/// The outcome of one run.
pub struct Run {
    pub report: Report,
    pub regs: Registers,
    pub results: Vec<OpResult>,
    pub regions: Vec<Vec<u8>>,
    pub service: TestService,
}

impl Run {
    /// Register `r`.
    pub fn reg(&self, r: cosy_abi::Reg) -> u64 {
        self.regs.get(r.index())
    }
}

pub fn target<'a>(regions: &'a [usize]) -> Target<'a> {
    Target {
        ops: OPS,
        regions,
        max_steps: 100_000,
    }
}

/// Verifies compound bytes against the test service and these region sizes.
pub fn verify(bytes: &[u8], region_lens: &[usize]) -> Result<Program<Vec<Insn>>, VerifyError> {
    Program::verify(bytes, &target(region_lens), vec![Insn::EMPTY; 256])
}

/// The bytes of a compound of these raw ops and refs, in continue mode
/// with a budget of 100; for crafting compounds the builder would refuse.
pub fn bytes(ops: &[OpRepr], refs: &[RefRepr]) -> Vec<u8> {
    let repr = CompoundRepr {
        flags: 0,
        step_budget: 100,
        ops,
        refs,
    };
    let mut out = vec![0; repr.buffer_len()];
    repr.emit(&mut out).unwrap();
    out
}

/// Builds, verifies and runs with the given regions and parameters.
pub fn run_with(b: &Builder, regions: Vec<Vec<u8>>, params: &[u64]) -> Run {
    let bytes = b.build().expect("build");
    let lens: Vec<usize> = regions.iter().map(Vec::len).collect();
    let program = verify(&bytes, &lens).expect("verify");
    run_program(&program, regions, params)
}

pub fn run_program(program: &Program<Vec<Insn>>, mut regions: Vec<Vec<u8>>, params: &[u64]) -> Run {
    let mut service = TestService::default();
    let mut regs = Registers::with_params(params).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let report = {
        let mut slices: Vec<&mut [u8]> = regions.iter_mut().map(Vec::as_mut_slice).collect();
        program.run(&mut service, &mut slices, &mut regs, &mut results)
    };
    Run {
        report,
        regs,
        results,
        regions,
        service,
    }
}

/// Builds, verifies and runs with no regions and no parameters.
pub fn run(b: &Builder) -> Run {
    run_with(b, vec![], &[])
}

/// The build error of a builder that must fail.
pub fn build_err(b: &Builder) -> BuildError {
    b.build().expect_err("build should fail")
}
