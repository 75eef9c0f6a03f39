//! An API refusal: the answer's label (a [`FlowStatus`]) and the two words
//! that say where and why, and the numbers `BadRequest` uses for its kind.

use conflux_flow_protocol::api::{FlowStatus, RequestError};
use conflux_flow_protocol::stage::StageStatus;
use core::fmt;

/// No stage is to blame (word 0 of a refusal).
pub const NO_STAGE: u64 = u64::MAX;
/// Word 1 of `StageRefused` when the stage's task did not answer at all
/// (it is dead).
pub const STAGE_DEAD: u64 = u64::MAX;

/// Word 1 of `BadRequest`: which check failed.
pub mod bad {
    pub const SPEC: u64 = 1;
    pub const MISPLACED: u64 = 2;
    pub const STAGE_COUNT: u64 = 3;
    pub const PRIORITY: u64 = 4;
    pub const BUFFER: u64 = 5;
    /// The buffers asked for do not fit the slot's pool.
    pub const POOL_TOO_SMALL: u64 = 6;
    /// PAUSE or RESUME of a flow that is done or terminated.
    pub const FINISHED: u64 = 7;
    /// The message carries no flow id.
    pub const NO_ID: u64 = 8;
    /// A capability came with a request that takes none, or CREATE's is
    /// not a notification.
    pub const CAP: u64 = 9;
    /// A rate limit, but `flowmgr` could not measure the TSC's rate.
    pub const NO_CLOCK: u64 = 10;
    /// More than 2 replicas, or replicas of a flow that has no cipher
    /// stage or too many stages.
    pub const REPLICAS: u64 = 11;
}

/// Why an API request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: FlowStatus,
    /// Word 0: the stage to blame, or [`NO_STAGE`].
    pub stage: u64,
    /// Word 1: the detail (a [`bad`] kind, a `StageStatus`, ...).
    pub detail: u64,
}

impl Refusal {
    pub fn new(status: FlowStatus) -> Self {
        Self {
            status,
            stage: NO_STAGE,
            detail: 0,
        }
    }

    pub fn bad(kind: u64) -> Self {
        Self {
            detail: kind,
            ..Self::new(FlowStatus::BadRequest)
        }
    }

    pub fn no_stage(index: usize) -> Self {
        Self {
            stage: index as u64,
            ..Self::new(FlowStatus::NoStage)
        }
    }

    /// Stage `index`'s task answered `label` (not `Ok`), or was dead.
    pub fn stage_refused(index: usize, label: Option<u32>) -> Self {
        Self {
            status: FlowStatus::StageRefused,
            stage: index as u64,
            detail: label.map_or(STAGE_DEAD, u64::from),
        }
    }

    /// The answer's words.
    pub fn words(&self) -> [u64; 2] {
        [self.stage, self.detail]
    }

    /// The refusal in an answer: its label and words (checked like
    /// anything received; `None` for `Ok` or an unknown label).
    pub fn decode(label: u32, words: &[u64]) -> Option<Self> {
        let status = FlowStatus::from_label(label).filter(|s| *s != FlowStatus::Ok)?;
        Some(Self {
            status,
            stage: words.first().copied().unwrap_or(NO_STAGE),
            detail: words.get(1).copied().unwrap_or(0),
        })
    }
}

impl From<RequestError> for Refusal {
    fn from(e: RequestError) -> Self {
        let (stage, kind) = match e {
            RequestError::Spec { index, .. } => (index as u64, bad::SPEC),
            RequestError::Misplaced { index } => (index as u64, bad::MISPLACED),
            RequestError::StageCount(_) => (NO_STAGE, bad::STAGE_COUNT),
            RequestError::Priority(_) => (NO_STAGE, bad::PRIORITY),
            RequestError::Buffer(_) => (NO_STAGE, bad::BUFFER),
            RequestError::Replicas(_) => (NO_STAGE, bad::REPLICAS),
        };
        Self {
            stage,
            ..Self::bad(kind)
        }
    }
}

fn bad_kind(kind: u64) -> &'static str {
    match kind {
        bad::SPEC => "its spec is malformed",
        bad::MISPLACED => "it cannot stand there (a flow is a source, transformers, then a sink)",
        bad::STAGE_COUNT => "a flow has a source, at most 4 transformers and a sink",
        bad::PRIORITY => "the priority is not 0..=7",
        bad::BUFFER => "the buffer size is not 64..=65536 bytes, a multiple of 16",
        bad::POOL_TOO_SMALL => "the buffers do not fit a flow slot's pool: ask for smaller ones",
        bad::FINISHED => "the flow is done or terminated: destroy it",
        bad::NO_ID => "the message carries no flow id",
        bad::CAP => "only CREATE takes a capability, and only a notification (the flow's)",
        bad::REPLICAS => "replicas=2 needs a cipher stage in a flow of at most 4 stages",
        bad::NO_CLOCK => "flowmgr could not measure the TSC's rate, so it cannot keep a rate limit: ask for rate 0",
        _ => "an unknown reason",
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stage = (self.stage != NO_STAGE).then_some(self.stage);
        if self.status == FlowStatus::BadRequest {
            f.write_str("bad request: ")?;
            if let Some(s) = stage {
                write!(f, "stage {s}: ")?;
            }
            return f.write_str(bad_kind(self.detail));
        }
        write!(f, "{}", self.status)?;
        match (self.status, stage) {
            (FlowStatus::NoStage, Some(s)) => write!(f, " (stage {s})"),
            (FlowStatus::StageRefused, Some(s)) if self.detail == STAGE_DEAD => {
                write!(f, ": stage {s}'s task is dead")
            }
            (FlowStatus::StageRefused, Some(s)) => {
                match u32::try_from(self.detail)
                    .ok()
                    .and_then(StageStatus::from_label)
                {
                    Some(st) => write!(f, ": stage {s}: {st}"),
                    None => write!(f, ": stage {s} answered label {}", self.detail),
                }
            }
            _ => Ok(()),
        }
    }
}
