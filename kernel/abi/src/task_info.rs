//! What `task_info` reports about one task, packed into one word.
//!
//! The operator's shell shows it as `ps`: the kernel knows each task's
//! state, priority and how often its supervisor restarted it; the names
//! come from the manifest (the shell's generated `TASK_NAMES`), so the
//! kernel never copies strings out.

/// A task's life state as `task_info` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RunState {
    /// Runnable (or running).
    Ready = 0,
    /// Blocked in IPC: sending, receiving or waiting for a reply.
    Ipc = 1,
    /// Blocked on a notification.
    Waiting = 2,
    /// Ended with `exit`.
    Exited = 3,
    /// Faulted: stopped for good or waiting for its supervisor.
    Faulted = 4,
    /// The slot holds no task (it could not be loaded).
    Absent = 5,
}

impl RunState {
    /// Every state, in code order.
    pub const ALL: [Self; 6] = [
        Self::Ready,
        Self::Ipc,
        Self::Waiting,
        Self::Exited,
        Self::Faulted,
        Self::Absent,
    ];

    /// The word `ps` prints.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::Ipc => "ipc",
            Self::Waiting => "waiting",
            Self::Exited => "exited",
            Self::Faulted => "faulted",
            Self::Absent => "absent",
        }
    }
}

/// One task's report: state in bits 0..8, priority in 8..16, restarts
/// (its generation) in 32..64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskInfo {
    pub state: RunState,
    pub priority: u8,
    pub restarts: u32,
}

impl TaskInfo {
    pub fn pack(self) -> u64 {
        self.state as u64 | (self.priority as u64) << 8 | (self.restarts as u64) << 32
    }

    /// `None` for a word no kernel writes (an unknown state code).
    pub fn unpack(word: u64) -> Option<Self> {
        let state = *RunState::ALL.get((word & 0xff) as usize)?;
        Some(Self {
            state,
            priority: (word >> 8) as u8,
            restarts: (word >> 32) as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_unknown_states() {
        for state in RunState::ALL {
            let info = TaskInfo {
                state,
                priority: 7,
                restarts: u32::MAX,
            };
            assert_eq!(TaskInfo::unpack(info.pack()), Some(info));
        }
        assert_eq!(TaskInfo::unpack(6), None);
    }
}
