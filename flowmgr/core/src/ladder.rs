//! The exception ladder: what `flowmgr` does when a stage fails, one step
//! further each time the step before did not help.
//!
//! 1. **Retry**: a transient error (the device said "busy") is retried by
//!    the stage itself, on the same buffer; `flowmgr` counts what stages
//!    report ([`RETRY`]).
//! 2. **Restart**: the stage's task died and init restarted it (the call
//!    reaches a new instance, which knows no flows): the stage is wired
//!    again on the same task, at most [`MAX_RESTARTS`] times per stage.
//! 3. **Redirect**: the task is dead for good, stopped answering (its
//!    calls ran past their deadline), keeps failing, or refuses the stage:
//!    it moves to another task of the same class (another device
//!    instance, or another software stage task).
//! 4. **Fallback**: no other device instance is left and the cipher's
//!    engine allows software: it moves to a software stage task.
//! 5. **Terminate**: nothing is left; the flow is ended cleanly.
//!
//! Each step is counted in the flow's `FlowStats::ladder` and signalled to
//! the application. This module decides; [`crate::manager`] acts.

use crate::registry::{Avoid, Class, Placement, Registry};
use conflux_flow_protocol::stage::StageSpec;

/// Indices into `FlowStats::ladder`.
pub const RETRY: usize = 0;
pub const RESTART: usize = 1;
pub const REDIRECT: usize = 2;
pub const FALLBACK: usize = 3;

/// Restarts one stage of one flow gets before it is redirected.
pub const MAX_RESTARTS: u8 = 2;

/// How a stage failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Its task answers, but as a new instance that does not know the
    /// flow: init restarted it.
    Restarted,
    /// Its task does not answer: dead.
    Dead,
    /// Its task lives but gave no answer by the call's deadline: stuck.
    /// Handled as `Dead` (it cannot be restarted from here: it never
    /// faulted), and the task is offered nothing until it answers again.
    Silent,
    /// Its task answered, but refused to (re)start the stage.
    Refused,
}

/// What to do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Wire the stage again on the same task.
    Restart,
    /// Wire it on another task of its class (placement taken).
    Redirect(Placement),
    /// Wire it on a software task (placement taken).
    Fallback(Placement),
    /// End the flow.
    Terminate,
}

impl Step {
    /// The [`FlowStats`](conflux_flow_protocol::api::FlowStats) ladder
    /// counter this step adds to, if any.
    pub fn counter(self) -> Option<usize> {
        match self {
            Self::Restart => Some(RESTART),
            Self::Redirect(_) => Some(REDIRECT),
            Self::Fallback(_) => Some(FALLBACK),
            Self::Terminate => None,
        }
    }
}

/// One stage's history on the ladder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct History {
    pub restarts: u8,
    /// Tasks it failed on.
    pub avoid: Avoid,
}

/// The next step for stage `spec` of `class`, placed at `placed`, that
/// failed with `failure`. A redirect or fallback releases `placed`'s flow
/// number and takes one on the new task.
pub fn decide(
    reg: &mut Registry,
    spec: &StageSpec,
    class: Class,
    placed: Placement,
    history: &mut History,
    failure: Failure,
) -> Step {
    if failure == Failure::Restarted && history.restarts < MAX_RESTARTS {
        history.restarts += 1;
        return Step::Restart;
    }
    history.avoid |= 1 << placed.task;
    let cipher = matches!(spec, StageSpec::Cipher(_));
    let same = match (cipher, placed.device) {
        (false, _) => Class::Any,
        (true, true) => Class::Device,
        (true, false) => Class::Software,
    };
    let (task, fallback) = match reg.choose(spec, same, history.avoid) {
        Some(t) => (t, false),
        None if cipher && placed.device && class == Class::Any => {
            match reg.choose(spec, Class::Software, history.avoid) {
                Some(t) => (t, true),
                None => return Step::Terminate,
            }
        }
        None => return Step::Terminate,
    };
    let Some(next) = reg.take(task) else {
        return Step::Terminate;
    };
    reg.release(placed);
    history.restarts = 0;
    if fallback {
        Step::Fallback(next)
    } else {
        Step::Redirect(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conflux_flow_protocol::stage::{info, Cipher, Direction, Engine, Key, Mode};

    fn cipher(engine: Engine) -> StageSpec {
        StageSpec::Cipher(Cipher {
            mode: Mode::Ctr,
            direction: Direction::Decrypt,
            engine,
            key: Key::new(&[0; 32]).unwrap(),
            iv: [0; 16],
        })
    }

    /// 0: software, 1 and 2: device ciphers.
    fn reg() -> Registry {
        let mut r = Registry::new(3);
        r.learn(0, [1 << 3, 0]);
        r.learn(1, [1 << 3, info::DEVICE]);
        r.learn(2, [1 << 3, info::DEVICE]);
        r
    }

    #[test]
    fn the_whole_ladder_in_order() {
        let mut r = reg();
        let spec = cipher(Engine::Any);
        let mut h = History::default();
        let mut at = r.take(1).unwrap();
        let mut steps = Vec::new();
        for failure in [
            Failure::Restarted,
            Failure::Restarted,
            Failure::Restarted,
            Failure::Dead,
            Failure::Dead,
        ] {
            let s = decide(&mut r, &spec, Class::Any, at, &mut h, failure);
            if let Step::Redirect(p) | Step::Fallback(p) = s {
                at = p;
            }
            steps.push(s);
        }
        assert_eq!(steps[0], Step::Restart);
        assert_eq!(steps[1], Step::Restart);
        // The third restart is one too many: another device.
        assert!(matches!(steps[2], Step::Redirect(p) if p.task == 2 && p.device));
        // No device left: software.
        assert!(matches!(steps[3], Step::Fallback(p) if p.task == 0 && !p.device));
        assert_eq!(steps[4], Step::Terminate);
        // Numbers of abandoned tasks were given back; the last is held.
        assert_eq!((r.in_use(0), r.in_use(1), r.in_use(2)), (1, 0, 0));
    }

    #[test]
    fn device_only_ciphers_never_fall_back() {
        let mut r = reg();
        let mut h = History::default();
        let at = r.take(1).unwrap();
        let spec = cipher(Engine::Device);
        let s = decide(&mut r, &spec, Class::Device, at, &mut h, Failure::Refused);
        let Step::Redirect(at) = s else {
            panic!("{s:?}")
        };
        assert_eq!(
            decide(&mut r, &spec, Class::Device, at, &mut h, Failure::Dead),
            Step::Terminate
        );
    }

    #[test]
    fn other_kinds_move_to_any_task_that_runs_them() {
        let mut r = Registry::new(2);
        r.learn(0, [1 << 5, 0]);
        r.learn(1, [1 << 5, 0]);
        let mut h = History::default();
        let at = r.take(0).unwrap();
        let s = decide(
            &mut r,
            &StageSpec::Null,
            Class::Any,
            at,
            &mut h,
            Failure::Dead,
        );
        assert!(matches!(s, Step::Redirect(p) if p.task == 1));
        assert_eq!(s.counter(), Some(REDIRECT));
    }
}
