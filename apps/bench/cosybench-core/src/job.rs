//! The messages between the benchmark task (the leader, which serves
//! endpoint `cosybench_coord`) and its client tasks in dbsim's
//! multi-process runs. A client calls the leader to say it is ready
//! ([`READY`]) and, after each job, what it found ([`DONE`]: status,
//! answer, the TSC when it finished); each reply is its next job
//! ([`JOB`]: configuration, work and file) or the end ([`QUIT`]). A
//! client is thus blocked in its call whenever it has no job, and the
//! leader starts all processes of a run by replying to them in turn
//! right after it read the run's start time.
//!
//! Job words: configuration code, reads, blocks, seed, the path's
//! length, then the path's bytes eight to a word (little-endian); words
//! past the fourth travel in the IPC buffer (`crate::wire`).

use alloc::string::String;
use alloc::vec::Vec;

use conflux_abi::ipc::MAX_WORDS;

use crate::work::Work;
use crate::Config;

/// Client to leader: ready for a job (the first call).
pub const READY: u32 = 1;
/// Client to leader: a job's outcome, `[status, answer, finished]`
/// (status 0: done; else the job failed, and the client said why on its
/// console).
pub const DONE: u32 = 2;
/// Leader to client: a job.
pub const JOB: u32 = 3;
/// Leader to client: no more jobs; the client ends.
pub const QUIT: u32 = 4;

/// Words before the path's bytes.
const HEAD: usize = 5;
/// The longest path a job carries.
pub const MAX_PATH: usize = (MAX_WORDS - HEAD) * 8;

/// One process's share of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub config: Config,
    pub work: Work,
    pub path: String,
}

/// Why a job message was not understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobError {
    /// Fewer words than the job needs, or a path longer than its words.
    Short,
    UnknownConfig(u64),
    /// The path is longer than [`MAX_PATH`] or not UTF-8.
    BadPath,
    /// Zero reads or blocks.
    NoWork,
}

impl Job {
    /// The job's words; `None` if the path is longer than [`MAX_PATH`].
    pub fn encode(&self) -> Option<Vec<u64>> {
        let bytes = self.path.as_bytes();
        if bytes.len() > MAX_PATH {
            return None;
        }
        let w = self.work;
        let mut words = alloc::vec![self.config.code(), w.reads, w.blocks, w.seed];
        words.push(bytes.len() as u64);
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            words.push(u64::from_le_bytes(b));
        }
        Some(words)
    }

    /// The job in `words` (validated: a known configuration, some work,
    /// a UTF-8 path that fits).
    pub fn decode(words: &[u64]) -> Result<Job, JobError> {
        let [config, reads, blocks, seed, len] = *words.get(..HEAD).ok_or(JobError::Short)? else {
            return Err(JobError::Short);
        };
        let config = Config::from_code(config).ok_or(JobError::UnknownConfig(config))?;
        if reads == 0 || blocks == 0 {
            return Err(JobError::NoWork);
        }
        let len = usize::try_from(len).map_err(|_| JobError::BadPath)?;
        if len > MAX_PATH {
            return Err(JobError::BadPath);
        }
        let body = words
            .get(HEAD..HEAD + len.div_ceil(8))
            .ok_or(JobError::Short)?;
        let mut bytes: Vec<u8> = body.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.truncate(len);
        let path = String::from_utf8(bytes).map_err(|_| JobError::BadPath)?;
        Ok(Job {
            config,
            work: Work {
                reads,
                blocks,
                seed,
            },
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(path: &str) -> Job {
        Job {
            config: Config::CosyFast,
            work: Work {
                reads: 3000,
                blocks: 16384,
                seed: 77,
            },
            path: path.into(),
        }
    }

    #[test]
    fn a_job_comes_back_as_it_went() {
        for path in ["/cosy/db-64m.bin", "", "12345678", "/a"] {
            let words = job(path).encode().unwrap();
            assert_eq!(words.len(), HEAD + path.len().div_ceil(8));
            assert_eq!(Job::decode(&words), Ok(job(path)));
        }
        let longest = "x".repeat(MAX_PATH);
        let words = job(&longest).encode().unwrap();
        assert_eq!(words.len(), MAX_WORDS);
        assert_eq!(Job::decode(&words), Ok(job(&longest)));
        assert_eq!(job(&"x".repeat(MAX_PATH + 1)).encode(), None);
    }

    #[test]
    fn a_bad_job_is_refused_with_its_reason() {
        let words = job("/cosy/db.bin").encode().unwrap();
        assert_eq!(Job::decode(&words[..4]), Err(JobError::Short));
        assert_eq!(Job::decode(&words[..6]), Err(JobError::Short));
        let mut w = words.clone();
        w[0] = 9;
        assert_eq!(Job::decode(&w), Err(JobError::UnknownConfig(9)));
        let mut w = words.clone();
        w[1] = 0;
        assert_eq!(Job::decode(&w), Err(JobError::NoWork));
        let mut w = words.clone();
        w[4] = MAX_PATH as u64 + 1;
        assert_eq!(Job::decode(&w), Err(JobError::BadPath));
        let mut w = words;
        w[5] = u64::from_le_bytes([0xff; 8]);
        assert_eq!(Job::decode(&w), Err(JobError::BadPath));
    }
}
