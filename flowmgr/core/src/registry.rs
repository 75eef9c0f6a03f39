//! The stage tasks `flowmgr` may use, what each runs (from its `INFO`
//! answer), and which of its flow numbers are taken.
//!
//! A task's `INFO` answer is untrusted like any message: it only decides
//! which stages `flowmgr` *offers* the task, and a task that lied refuses
//! `START` later (or fails, and the ladder moves the stage elsewhere).

use conflux_flow_protocol::stage::{info, Engine, StageSpec, MAX_FLOWS};

/// Stage tasks `flowmgr` keeps track of at most.
pub const MAX_TASKS: usize = 16;

/// One stage task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageTask {
    /// Whether it answered `INFO` (until then it is offered nothing).
    pub known: bool,
    /// `1 << kind` for each stage kind it runs.
    pub kinds: u64,
    /// Its cipher runs on a device.
    pub device: bool,
    /// Its flow numbers in use (bit `n`).
    used: u8,
}

/// A set of tasks (bit `t`): those a stage must not be placed on again.
pub type Avoid = u32;

/// Where a stage was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub task: usize,
    /// The task's own number for the flow.
    pub number: u32,
    /// The task runs ciphers on a device.
    pub device: bool,
}

/// Which tasks are acceptable for a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Device ciphers only.
    Device,
    /// Software only.
    Software,
    /// Any task that runs the kind.
    Any,
}

impl Class {
    /// What a spec's engine allows (only ciphers have one).
    pub fn of(spec: &StageSpec) -> Self {
        match spec {
            StageSpec::Cipher(c) => match c.engine {
                Engine::Device => Self::Device,
                Engine::Software => Self::Software,
                Engine::Any => Self::Any,
            },
            _ => Self::Any,
        }
    }
}

/// The system's stage tasks, in the manifest's order.
#[derive(Clone, Debug)]
pub struct Registry {
    tasks: [StageTask; MAX_TASKS],
    len: usize,
    /// Tasks that stopped answering (a call ran past its deadline): not
    /// called, not offered stages, until they answer `INFO` again.
    silent: Avoid,
}

impl Registry {
    /// `count` tasks (at most [`MAX_TASKS`]), none known yet.
    pub fn new(count: usize) -> Self {
        Self {
            tasks: [StageTask::default(); MAX_TASKS],
            len: count.min(MAX_TASKS),
            silent: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn task(&self, t: usize) -> Option<&StageTask> {
        self.tasks[..self.len].get(t)
    }

    /// Records task `t`'s `INFO` answer (`[kinds, flags]`).
    pub fn learn(&mut self, t: usize, answer: [u64; 2]) {
        if let Some(task) = self.tasks[..self.len].get_mut(t) {
            self.silent &= !(1 << t);
            task.known = true;
            task.kinds = answer[0];
            task.device = answer[1] & info::DEVICE != 0;
        }
    }

    /// Tasks `tasks` stopped answering: they are offered nothing, and
    /// asked `INFO` again (like a task that never answered) at each
    /// create; their flow numbers stay taken until their flows let go.
    pub fn mark_silent(&mut self, tasks: Avoid) {
        for t in (0..self.len).filter(|t| tasks & (1 << t) != 0) {
            self.tasks[t].known = false;
            self.silent |= 1 << t;
        }
    }

    /// The tasks that stopped answering.
    pub fn silent(&self) -> Avoid {
        self.silent
    }

    /// The tasks that have not answered `INFO` yet (or stopped answering).
    pub fn unknown(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).filter(|&t| !self.tasks[t].known)
    }

    /// The best task for `spec` of `class`, not in `avoid`, with a free
    /// flow number: a device task first where `class` is `Any` and the
    /// spec is a cipher, then the least loaded.
    pub fn choose(&self, spec: &StageSpec, class: Class, avoid: Avoid) -> Option<usize> {
        let kind = spec.kind();
        let cipher = matches!(spec, StageSpec::Cipher(_));
        let fits = |t: &usize| {
            let task = &self.tasks[*t];
            task.known
                && kind < 64
                && task.kinds & (1 << kind) != 0
                && avoid & (1 << *t) == 0
                && task.used.count_ones() < MAX_FLOWS
                && match (cipher, class) {
                    (false, _) | (true, Class::Any) => true,
                    (true, Class::Device) => task.device,
                    (true, Class::Software) => !task.device,
                }
        };
        (0..self.len).filter(fits).min_by_key(|&t| {
            let task = &self.tasks[t];
            // Devices first for ciphers (false sorts first), then load.
            (cipher && !task.device, task.used.count_ones())
        })
    }

    /// Takes a free flow number of task `t`.
    pub fn take(&mut self, t: usize) -> Option<Placement> {
        let task = self.tasks[..self.len].get_mut(t)?;
        let number = (0..MAX_FLOWS).find(|n| task.used & (1 << n) == 0)?;
        task.used |= 1 << number;
        Some(Placement {
            task: t,
            number,
            device: task.device,
        })
    }

    /// Gives a placement's flow number back.
    pub fn release(&mut self, p: Placement) {
        if let Some(task) = self.tasks[..self.len].get_mut(p.task) {
            if p.number < MAX_FLOWS {
                task.used &= !(1 << p.number);
            }
        }
    }

    /// Flow numbers of task `t` in use.
    pub fn in_use(&self, t: usize) -> u32 {
        self.task(t).map_or(0, |task| task.used.count_ones())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conflux_flow_protocol::stage::{Cipher, Direction, Key, Mode};

    const CIPHER: u64 = 1 << 3;
    const CRC: u64 = 1 << 4;

    fn cipher(engine: Engine) -> StageSpec {
        StageSpec::Cipher(Cipher {
            mode: Mode::Cbc,
            direction: Direction::Encrypt,
            engine,
            key: Key::new(&[0; 16]).unwrap(),
            iv: [0; 16],
        })
    }

    /// 0: software (cipher, crc), 1: device cipher, 2: device cipher.
    fn three() -> Registry {
        let mut r = Registry::new(3);
        r.learn(0, [CIPHER | CRC, 0]);
        r.learn(1, [CIPHER, info::DEVICE]);
        r.learn(2, [CIPHER, info::DEVICE]);
        r
    }

    #[test]
    fn engines_pick_their_class_and_any_prefers_a_device() {
        let r = three();
        assert_eq!(
            r.choose(&cipher(Engine::Software), Class::Software, 0),
            Some(0)
        );
        assert_eq!(r.choose(&cipher(Engine::Device), Class::Device, 0), Some(1));
        assert_eq!(r.choose(&cipher(Engine::Any), Class::Any, 0), Some(1));
        assert_eq!(r.choose(&cipher(Engine::Any), Class::Any, 0b110), Some(0));
        assert_eq!(
            r.choose(&cipher(Engine::Device), Class::Device, 0b110),
            None
        );
        assert_eq!(r.choose(&StageSpec::Crc32c, Class::Any, 0), Some(0));
        assert_eq!(r.choose(&StageSpec::Null, Class::Any, 0), None);
    }

    #[test]
    fn the_least_loaded_device_is_chosen_and_numbers_run_out() {
        let mut r = three();
        let p = r.take(1).unwrap();
        assert_eq!((p.task, p.number, p.device), (1, 0, true));
        assert_eq!(r.choose(&cipher(Engine::Device), Class::Device, 0), Some(2));
        for n in 1..MAX_FLOWS {
            assert_eq!(r.take(0).unwrap().number, n - 1);
        }
        assert!(r.take(0).is_some());
        assert_eq!(r.take(0), None, "8 numbers per task");
        assert_eq!(r.choose(&StageSpec::Crc32c, Class::Any, 0), None);
        r.release(Placement {
            task: 0,
            number: 5,
            device: false,
        });
        assert_eq!(r.take(0).unwrap().number, 5);
    }

    #[test]
    fn unknown_tasks_are_offered_nothing_and_out_of_range_is_ignored() {
        let mut r = Registry::new(2);
        assert_eq!(r.unknown().collect::<Vec<_>>(), [0, 1]);
        r.learn(1, [u64::MAX, 0]);
        r.learn(7, [u64::MAX, 0]);
        assert_eq!(r.unknown().collect::<Vec<_>>(), [0]);
        assert_eq!(r.choose(&StageSpec::Null, Class::Any, 0), Some(1));
        assert_eq!(r.take(9), None);
        assert_eq!(Registry::new(100).len(), MAX_TASKS);
    }
}
