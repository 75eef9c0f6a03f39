//! Property test: on random well-formed compounds, the executor agrees
//! with a deliberately simple reference interpreter written straight from
//! the spec (it reads the plain op list, no decoding, no tricks) on the
//! report, the registers, the per-op results, the regions and the
//! service calls made.

mod common;

use common::{TestService, FAIL, NOP, OPS, PEEK, STAMP, SUM6};
use cosy_abi::wire::{CompoundRepr, Kind, OpRepr, Opcode, OperandRepr as O, RefRepr, NO_REG};
use cosy_abi::{
    code, crc32c, Fault, Insn, OpResult, Outcome, Program, Progress, Registers, Report, Target,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

const REGION_LENS: [usize; 2] = [64, 1024];
/// Registers the generator uses (of 32), so values flow between ops.
const USED_REGS: u64 = 8;

/// Draws numbers from the proptest-chosen genes (0 when they run out), so
/// shrinking the genes shrinks the compound.
struct Genes<'a> {
    genes: &'a [u64],
    at: usize,
}

impl Genes<'_> {
    fn next(&mut self) -> u64 {
        let g = self.genes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        g
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn value(&mut self) -> O {
        match self.below(6) {
            0..=2 => O::reg(self.below(USED_REGS) as u8),
            3 => O::imm(self.below(10)),
            4 => O::imm([64, u64::MAX, 1 << 63, 255][self.below(4) as usize]),
            _ => O::imm(self.next()),
        }
    }

    fn count(&mut self) -> O {
        match self.below(3) {
            0 => O::reg(self.below(USED_REGS) as u8),
            1 => O::imm(self.below(40)),
            _ => O::imm(self.below(700)),
        }
    }

    fn dst(&mut self) -> u8 {
        match self.below(USED_REGS + 1) {
            r if r == USED_REGS => NO_REG,
            r => r as u8,
        }
    }

    fn target(&mut self, ops: usize) -> u16 {
        self.below(ops as u64 + 1) as u16
    }
}

fn gen_refs(g: &mut Genes<'_>) -> Vec<RefRepr> {
    // Ref 0 is short, so it can always serve as a search needle.
    let mut refs = vec![RefRepr {
        region: 0,
        offset_reg: NO_REG,
        offset: g.below(56) as u32,
        len: 1 + g.below(8) as u32,
    }];
    for _ in 0..g.below(4) {
        let region = g.below(2) as u8;
        let region_len = REGION_LENS[usize::from(region)] as u64;
        let len = 1 + g.below(region_len.min(600));
        let offset = g.below(region_len - len + 1) as u32;
        let offset_reg = if g.below(3) == 0 {
            g.below(USED_REGS) as u8
        } else {
            NO_REG
        };
        refs.push(RefRepr {
            region,
            offset_reg,
            offset,
            len: len as u32,
        });
    }
    refs
}

fn gen_ops(g: &mut Genes<'_>, refs: usize) -> Vec<OpRepr> {
    let n = 1 + g.below(24) as usize;
    let mut ops = Vec::with_capacity(n);
    let buf = |g: &mut Genes<'_>| O::buf(g.below(refs as u64) as u16);
    while ops.len() < n {
        let op = match g.below(14) {
            0 => {
                let opcode = [SUM6, FAIL, STAMP, PEEK, NOP][g.below(5) as usize];
                let call = OpRepr::new(Opcode::Call).dst(g.dst()).sub(opcode);
                let call = match opcode {
                    SUM6 => call.operands(&[
                        g.value(),
                        g.value(),
                        g.value(),
                        g.value(),
                        g.value(),
                        g.value(),
                    ]),
                    FAIL => call.operands(&[O::imm(1 + g.below(3))]),
                    STAMP | PEEK => call.operands(&[buf(g), g.value()]),
                    _ => call,
                };
                // Often with a LOOP back to it (`for i in a..b { call() }`),
                // which the executor runs as a pair.
                if g.below(3) == 0 && ops.len() + 2 <= n {
                    let at = ops.len() as u16;
                    ops.push(call);
                    ops.push(
                        OpRepr::new(Opcode::Loop)
                            .dst(g.below(USED_REGS) as u8)
                            .sub(g.below(10) as u16)
                            .target(at)
                            .operands(&[g.value(), g.count()]),
                    );
                    continue;
                }
                call
            }
            1 => OpRepr::new(Opcode::Exit).operands(&[g.value()]),
            2 => OpRepr::new(Opcode::Mov).dst(g.dst()).operands(&[g.value()]),
            3 | 4 => {
                let code = Opcode::ALL[3 + g.below(10) as usize];
                OpRepr::new(code)
                    .dst(g.dst())
                    .operands(&[g.value(), g.value()])
            }
            5 => OpRepr::new(Opcode::Br)
                .sub(g.below(10) as u16)
                .target(g.target(n))
                .operands(&[g.value(), g.value()]),
            6 => OpRepr::new(Opcode::Jump).target(g.target(n)),
            7 => OpRepr::new(Opcode::Loop)
                .dst(g.below(USED_REGS) as u8)
                .sub(g.below(10) as u16)
                .target(g.target(n))
                .operands(&[g.value(), g.value()]),
            8 => {
                let size = 1 + g.below(3) as usize;
                if ops.len() + size >= n {
                    continue;
                }
                ops.push(
                    OpRepr::new(Opcode::Switch)
                        .sub(size as u16)
                        .target(g.target(n))
                        .operands(&[g.value()]),
                );
                for _ in 0..size {
                    ops.push(OpRepr::new(Opcode::Jump).target(g.target(n)));
                }
                continue;
            }
            9 => OpRepr::new(Opcode::Copy)
                .dst(g.dst())
                .operands(&[buf(g), buf(g), g.count()]),
            10 => {
                let byte = if g.below(2) == 0 {
                    O::imm(g.below(256))
                } else {
                    O::reg(g.below(USED_REGS) as u8)
                };
                OpRepr::new(Opcode::Fill)
                    .dst(g.dst())
                    .operands(&[buf(g), byte, g.count()])
            }
            11 => OpRepr::new(Opcode::Memcmp)
                .dst(g.dst())
                .operands(&[buf(g), buf(g), g.count()]),
            12 => {
                OpRepr::new(Opcode::Search)
                    .dst(g.dst())
                    .operands(&[buf(g), O::buf(0), g.count()])
            }
            _ => OpRepr::new(Opcode::Crc32c)
                .dst(g.dst())
                .operands(&[buf(g), g.count(), g.value()]),
        };
        ops.push(op);
    }
    ops
}

/// Everything a run produces, for comparison.
#[derive(Debug, PartialEq)]
struct Outcome_ {
    report: Report,
    regs: Registers,
    results: Vec<OpResult>,
    regions: Vec<Vec<u8>>,
    calls: Vec<(u16, Vec<u64>)>,
}

/// The reference interpreter.
struct Reference<'a> {
    ops: &'a [OpRepr],
    refs: &'a [RefRepr],
    regs: [u64; 32],
    regions: Vec<Vec<u8>>,
    calls: Vec<(u16, Vec<u64>)>,
}

enum Done {
    Next(u64),
    Jump(u16, u64),
    Exit(u64),
    Failed(u16),
    NoBudget,
}

impl Reference<'_> {
    fn value(&self, o: &O) -> u64 {
        match o.kind {
            Kind::Imm => o.value,
            Kind::Reg => self.regs[o.value as usize],
            Kind::Ref => u64::from(self.refs[o.value as usize].len),
            Kind::None => 0,
        }
    }

    /// (region, start, len) of a ref now, or None if out of bounds.
    fn place(&self, o: &O) -> Option<(usize, usize, usize)> {
        let r = self.refs[o.value as usize];
        let base = if r.offset_reg == NO_REG {
            0
        } else {
            self.regs[r.offset_reg as usize]
        };
        let start = base.checked_add(u64::from(r.offset))?;
        let end = start.checked_add(u64::from(r.len))?;
        if end > self.regions[r.region as usize].len() as u64 {
            return None;
        }
        Some((r.region as usize, start as usize, r.len as usize))
    }

    fn bytes(&self, p: (usize, usize, usize)) -> Vec<u8> {
        self.regions[p.0][p.1..p.1 + p.2].to_vec()
    }

    fn call(&mut self, op: &OpRepr) -> Done {
        let argc = match op.sub {
            SUM6 => 6,
            FAIL => 1,
            STAMP | PEEK => 2,
            _ => 0,
        };
        let mut places = vec![];
        for o in &op.operands[..argc] {
            if o.kind == Kind::Ref {
                match self.place(o) {
                    Some(p) => places.push(p),
                    None => return Done::Failed(code::REF_OUT_OF_BOUNDS),
                }
            }
        }
        let values: Vec<u64> = op.operands[..argc].iter().map(|o| self.value(o)).collect();
        self.calls.push((op.sub, values.clone()));
        match op.sub {
            SUM6 => Done::Next(values.iter().fold(0, |a: u64, v| a.wrapping_add(*v))),
            FAIL => Done::Failed(code::SERVICE | values[0] as u16),
            STAMP => {
                let (r, s, l) = places[0];
                self.regions[r][s..s + l].fill(values[1] as u8);
                Done::Next(l as u64)
            }
            PEEK => match self.bytes(places[0]).get(values[1] as usize) {
                Some(b) => Done::Next(u64::from(*b)),
                None => Done::Failed(code::SERVICE | 22),
            },
            _ => Done::Next(0),
        }
    }

    fn data(&mut self, op: &OpRepr, steps_left: u32) -> Done {
        let code_ = Opcode::from_u8(op.code).unwrap();
        let Some(a) = self.place(&op.operands[0]) else {
            return Done::Failed(code::REF_OUT_OF_BOUNDS);
        };
        let b = if op.operands[1].kind == Kind::Ref {
            match self.place(&op.operands[1]) {
                Some(b) => Some(b),
                None => return Done::Failed(code::REF_OUT_OF_BOUNDS),
            }
        } else {
            None
        };
        let n = if code_ == Opcode::Crc32c {
            self.value(&op.operands[1])
        } else {
            self.value(&op.operands[2])
        };
        let too_big = n > a.2 as u64
            || matches!(code_, Opcode::Copy | Opcode::Memcmp) && n > b.unwrap().2 as u64;
        if too_big {
            return Done::Failed(code::COUNT_TOO_LARGE);
        }
        let n = n as usize;
        if (n / 256) as u32 > steps_left {
            return Done::NoBudget;
        }
        let result = match code_ {
            Opcode::Copy => {
                let src = self.bytes(b.unwrap());
                let d = a;
                self.regions[d.0][d.1..d.1 + n].copy_from_slice(&src[..n]);
                n as u64
            }
            Opcode::Fill => {
                let byte = self.value(&op.operands[1]) as u8;
                self.regions[a.0][a.1..a.1 + n].fill(byte);
                n as u64
            }
            Opcode::Memcmp => match self.bytes(a)[..n].cmp(&self.bytes(b.unwrap())[..n]) {
                std::cmp::Ordering::Less => u64::MAX,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            },
            Opcode::Search => {
                let (hay, needle) = (self.bytes(a), self.bytes(b.unwrap()));
                let (mut i, mut count) = (0, 0);
                while i + needle.len() <= n {
                    if hay[i..i + needle.len()] == needle[..] {
                        count += 1;
                        i += needle.len();
                    } else {
                        i += 1;
                    }
                }
                count
            }
            _ => u64::from(crc32c(
                self.value(&op.operands[2]) as u32,
                &self.bytes(a)[..n],
            )),
        };
        Done::Next(result)
    }

    fn step(&mut self, pc: usize, steps_left: u32, steps: &mut u32) -> Done {
        let op = self.ops[pc];
        let (a, b) = (self.value(&op.operands[0]), self.value(&op.operands[1]));
        let holds = |cmp: u16, x: u64, y: u64| cosy_abi::Cmp::ALL[cmp as usize].holds(x, y);
        match Opcode::from_u8(op.code).unwrap() {
            Opcode::Call => self.call(&op),
            Opcode::Exit => Done::Exit(a),
            Opcode::Mov => Done::Next(a),
            Opcode::Add => Done::Next(a.wrapping_add(b)),
            Opcode::Sub => Done::Next(a.wrapping_sub(b)),
            Opcode::Mul => Done::Next(a.wrapping_mul(b)),
            Opcode::Div if b == 0 => Done::Failed(code::DIVIDE_BY_ZERO),
            Opcode::Div => Done::Next(a / b),
            Opcode::Rem if b == 0 => Done::Failed(code::DIVIDE_BY_ZERO),
            Opcode::Rem => Done::Next(a % b),
            Opcode::And => Done::Next(a & b),
            Opcode::Or => Done::Next(a | b),
            Opcode::Xor => Done::Next(a ^ b),
            Opcode::Shl => Done::Next(if b >= 64 { 0 } else { a << b }),
            Opcode::Shr => Done::Next(if b >= 64 { 0 } else { a >> b }),
            Opcode::Br if holds(op.sub, a, b) => Done::Jump(op.target, 1),
            Opcode::Br => Done::Next(0),
            Opcode::Jump => Done::Jump(op.target, 0),
            Opcode::Loop => {
                let v = self.regs[op.dst as usize].wrapping_add(a);
                self.regs[op.dst as usize] = v;
                if holds(op.sub, v, b) {
                    Done::Jump(op.target, v)
                } else {
                    Done::Next(v)
                }
            }
            Opcode::Switch if a < u64::from(op.sub) => {
                Done::Jump(self.ops[pc + 1 + a as usize].target, a)
            }
            Opcode::Switch => Done::Jump(op.target, u64::from(op.sub)),
            _ => {
                let done = self.data(&op, steps_left);
                if let Done::Next(_) = done {
                    let n = if op.code == Opcode::Crc32c as u8 {
                        b
                    } else {
                        self.value(&op.operands[2])
                    };
                    *steps += (n / 256) as u32;
                }
                done
            }
        }
    }

    fn run(mut self, budget: u32, fail_fast: bool) -> Outcome_ {
        let mut results = vec![OpResult::EMPTY; self.ops.len()];
        let mut report = Report {
            outcome: Outcome::Finished,
            ..Report::default()
        };
        let (mut pc, mut steps) = (0usize, 0u32);
        let fault = |pc: usize, code| {
            Some(Fault {
                op: Some(pc as u16),
                code,
            })
        };
        while pc < self.ops.len() {
            if steps >= budget {
                report.outcome = Outcome::Stopped;
                report.stop = fault(pc, code::BUDGET_EXHAUSTED);
                break;
            }
            steps += 1;
            let dst = self.ops[pc].dst;
            let writes = !matches!(
                Opcode::from_u8(self.ops[pc].code).unwrap(),
                Opcode::Exit | Opcode::Br | Opcode::Jump | Opcode::Loop | Opcode::Switch
            );
            let done = self.step(pc, budget - steps, &mut steps);
            let mut record = |value, status| {
                let r: &mut OpResult = &mut results[pc];
                *r = OpResult {
                    value,
                    status,
                    runs: r.runs + 1,
                };
            };
            match done {
                Done::Next(v) => {
                    if writes && dst != NO_REG {
                        self.regs[dst as usize] = v;
                    }
                    record(v, code::OK);
                    pc += 1;
                }
                Done::Jump(t, v) => {
                    record(v, code::OK);
                    pc = t as usize;
                }
                Done::Exit(v) => {
                    record(v, code::OK);
                    report.exit_value = v;
                    break;
                }
                Done::Failed(c) => {
                    let v = 0u64.wrapping_sub(u64::from(c));
                    if dst != NO_REG {
                        self.regs[dst as usize] = v;
                    }
                    record(v, c);
                    report.failures += 1;
                    if report.first_failure.is_none() {
                        report.first_failure = fault(pc, c);
                    }
                    if fail_fast {
                        report.outcome = Outcome::Stopped;
                        report.stop = fault(pc, c);
                        break;
                    }
                    pc += 1;
                }
                Done::NoBudget => {
                    steps -= 1;
                    report.outcome = Outcome::Stopped;
                    report.stop = fault(pc, code::BUDGET_EXHAUSTED);
                    break;
                }
            }
        }
        report.steps = steps;
        let mut regs = Registers::new();
        for (i, v) in self.regs.iter().enumerate() {
            regs.set(i as u8, *v);
        }
        Outcome_ {
            report,
            regs,
            results,
            regions: self.regions,
            calls: self.calls,
        }
    }
}

fn initial_regions(fill: u8) -> Vec<Vec<u8>> {
    REGION_LENS
        .iter()
        .map(|&len| (0..len).map(|i| (i as u8).wrapping_mul(fill)).collect())
        .collect()
}

fn check(
    genes: &[u64],
    params: &[u64],
    budget: u32,
    fail_fast: bool,
    fill: u8,
    slice: u32,
) -> Result<(), TestCaseError> {
    let mut g = Genes { genes, at: 0 };
    let refs = gen_refs(&mut g);
    let ops = gen_ops(&mut g, refs.len());
    let repr = CompoundRepr {
        flags: u16::from(fail_fast),
        step_budget: budget,
        ops: &ops,
        refs: &refs,
    };
    let mut bytes = vec![0; repr.buffer_len()];
    repr.emit(&mut bytes).unwrap();
    let target = Target {
        ops: OPS,
        regions: &REGION_LENS,
        max_steps: 10_000,
    };
    let program = match Program::verify(&bytes, &target, vec![Insn::EMPTY; 32]) {
        Ok(p) => p,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "generated compound rejected: {e}\n{ops:#?}"
            )))
        }
    };

    let mut regions = initial_regions(fill);
    let mut service = TestService::default();
    let mut regs = Registers::with_params(params).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let report = {
        let mut slices: Vec<&mut [u8]> = regions.iter_mut().map(Vec::as_mut_slice).collect();
        program.run(&mut service, &mut slices, &mut regs, &mut results)
    };
    let actual = Outcome_ {
        report,
        regs,
        results,
        regions,
        calls: service.calls,
    };
    let sliced = run_sliced(&program, params, fill, slice);
    prop_assert_eq!(&sliced, &actual, "in slices of {} steps", slice);

    let mut start = [0u64; 32];
    start[..params.len()].copy_from_slice(params);
    let reference = Reference {
        ops: &ops,
        refs: &refs,
        regs: start,
        regions: initial_regions(fill),
        calls: vec![],
    };
    let expected = reference.run(budget, fail_fast);
    prop_assert!(actual.report.steps <= budget);
    prop_assert_eq!(actual, expected, "ops: {:#?}\nrefs: {:#?}", ops, refs);
    Ok(())
}

/// The same run in slices of `slice` steps, on a copy of the program in
/// storage of its own size (as a server keeps a paused compound).
fn run_sliced(program: &Program<Vec<Insn>>, params: &[u64], fill: u8, slice: u32) -> Outcome_ {
    let program = program
        .copy_into(vec![Insn::EMPTY; program.len()])
        .expect("storage of the program's own size");
    let mut regions = initial_regions(fill);
    let mut service = TestService::default();
    let regs = Registers::with_params(params).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut slices: Vec<&mut [u8]> = regions.iter_mut().map(Vec::as_mut_slice).collect();
    let mut run = program.start(&regs, &slices, &mut results).unwrap();
    let mut pauses = 0u32;
    let report = loop {
        match program.resume(&mut run, &mut service, &mut slices, &mut results, slice) {
            Progress::Done(r) => break r,
            Progress::Paused => pauses += 1,
        }
        assert!(pauses <= 10_000, "a run that never ends");
    };
    // Resuming an ended run changes nothing.
    assert_eq!(
        program.resume(&mut run, &mut service, &mut slices, &mut results, slice),
        Progress::Done(report)
    );
    drop(slices);
    Outcome_ {
        report,
        regs: run.registers(),
        results,
        regions,
        calls: service.calls,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 20_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn executor_matches_the_reference(
        genes in prop::collection::vec(any::<u64>(), 0..160),
        params in prop::collection::vec(0u64..72, 0..8),
        budget in 1u32..400,
        fail_fast in any::<bool>(),
        fill in any::<u8>(),
        slice in 1u32..40,
    ) {
        check(&genes, &params, budget, fail_fast, fill, slice)?;
    }
}

#[test]
fn the_generator_makes_every_op() {
    let mut seen = std::collections::HashSet::new();
    for seed in 0..400u64 {
        let genes: Vec<u64> = (0..160u64)
            .map(|i| (seed * 1_000_003 + i).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7)
            .collect();
        let mut g = Genes {
            genes: &genes,
            at: 0,
        };
        let refs = gen_refs(&mut g);
        seen.extend(gen_ops(&mut g, refs.len()).iter().map(|op| op.code));
        check(
            &genes,
            &[3, 1, 4, 1, 5],
            300,
            seed % 2 == 0,
            seed as u8,
            1 + (seed % 7) as u32,
        )
        .unwrap();
    }
    for op in Opcode::ALL {
        assert!(seen.contains(&(op as u8)), "{op} never generated");
    }
}
