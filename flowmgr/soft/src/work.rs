//! What `flowsoft` does for each kind of stage it runs, as a [`Work`]:
//! the job a flow holds, and one step of it.

use conflux_flow_protocol::record::{self, Checker, HEADER};
use conflux_flow_protocol::stage::{Cipher, Engine, StageSpec, StageStatus, Start};
use conflux_flow_soft_core::{cipher, crc};
use conflux_flow_stage::{edges_match, Failure, FlowIo, Os, Step, Work};

/// One flow's job.
pub enum Job {
    Cipher(Cipher),
    Crc32c,
    /// Buffers and bytes taken.
    Null {
        buffers: u64,
        bytes: u64,
    },
    /// Records made so far, of `count`.
    Pattern {
        seed: u64,
        count: u64,
        made: u64,
    },
    Check(Checker),
}

/// The software stage.
pub struct Soft;

/// The spec kinds this task runs (`StageSpec::kind` numbers).
const KINDS: [u64; 5] = [3, 4, 5, 6, 7];

impl Work for Soft {
    type Flow = Job;

    fn start(&mut self, _flow: u32, start: &Start, _io: &mut FlowIo) -> Result<Job, StageStatus> {
        if !edges_match(start) {
            return Err(StageStatus::BadEdge);
        }
        let job = match start.spec {
            StageSpec::Cipher(c) if c.engine != Engine::Device => Job::Cipher(c),
            StageSpec::Crc32c => Job::Crc32c,
            StageSpec::Null => Job::Null {
                buffers: 0,
                bytes: 0,
            },
            StageSpec::Pattern { count, seed } => {
                // A record needs its header; a smaller buffer could hold none.
                if start.output.is_some_and(|s| (s.size as usize) < HEADER) {
                    return Err(StageStatus::BadEdge);
                }
                // A rewired flow goes on from where its sink stopped.
                Job::Pattern {
                    seed,
                    count,
                    made: start.position.min(count),
                }
            }
            StageSpec::Check { seed } => Job::Check(Checker::from(seed, start.position as u32)),
            _ => return Err(StageStatus::Unsupported),
        };
        Ok(job)
    }

    fn stop(&mut self, _flow: u32, _job: Job) {}

    fn info(&self) -> [u64; 2] {
        debug_assert!(KINDS.contains(&StageSpec::Crc32c.kind()));
        [KINDS.iter().fold(0, |bits, k| bits | 1 << k), 0]
    }

    fn figures(&self, job: &Job) -> [u64; 2] {
        match job {
            Job::Check(c) => c.tally.to_words(),
            Job::Pattern { made, .. } => [*made, 0],
            Job::Null { buffers, bytes } => [*buffers, *bytes],
            Job::Cipher(_) | Job::Crc32c => [0, 0],
        }
    }
}

/// One step of `job` on `io`.
pub fn step(os: &mut impl Os, io: &mut FlowIo, job: &mut Job) -> Step {
    match job {
        Job::Cipher(c) => io.transform(os, |src, dst| {
            cipher::apply(c, src, dst).map_err(|_| Failure::Permanent)
        }),
        Job::Crc32c => io.transform(os, |src, dst| {
            crc::append(src, dst).ok_or(Failure::Permanent)
        }),
        Job::Null { buffers, bytes } => io.sink(os, |src, _seq| {
            *buffers += 1;
            *bytes += src.len() as u64;
            Ok(())
        }),
        Job::Pattern { seed, count, made } => io.source(os, |dst| {
            if *made >= *count {
                return Err(Failure::Permanent); // every record made
            }
            let n = record::write(dst, *seed, *made as u32).ok_or(Failure::Permanent)?;
            *made += 1;
            Ok(Some(n))
        }),
        Job::Check(checker) => io.sink(os, |src, _seq| {
            checker.check(src);
            Ok(())
        }),
    }
}
