//! The kernel's state and the life cycle of tasks: start from the boot
//! image, end (exit or fault), supervision and restart, and the choice of
//! what runs next.

use crate::cap::{Cap, ObjRef};
use crate::cspace::{CapSpace, NodeId};
use crate::machine::{Machine, UserRegs};
use crate::object::{Object, Objects};
use crate::summary::Summary;
use crate::task::{State, Task};
use conflux_abi::cap::ObjectKind;
use conflux_abi::ipc::{FaultMessage, SupervisorReply, SUPERVISOR_FAULT_SLOT};
use conflux_abi::SysError;
use conflux_bootimg::{BootImage, MAX_TASKS};

/// What one CPU is doing. It lives in the CPU's own per-CPU block, not in
/// the shared kernel state, so more CPUs change no IPC code.
#[derive(Clone, Copy, Debug)]
pub struct Cpu {
    /// This CPU's index (0 is the boot CPU): it runs the tasks placed on it.
    pub index: usize,
    /// The task running (or last run) on this CPU.
    pub current: usize,
    /// The CPU is in the idle loop.
    pub idle: bool,
    /// The task whose floating-point and segment state is in this CPU's
    /// registers (saved lazily at the next switch to another task), or
    /// [`Cpu::NO_OWNER`]. A plain index rather than an `Option`: it is
    /// compared on every switch.
    pub fpu_owner: usize,
}

impl Cpu {
    /// `fpu_owner` when no live task's state is in the registers.
    pub const NO_OWNER: usize = usize::MAX;
}

impl Default for Cpu {
    fn default() -> Self {
        Self {
            index: 0,
            current: 0,
            idle: false,
            fpu_owner: Self::NO_OWNER,
        }
    }
}

/// What a syscall or event asks of the scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Return to the current task (unless a more urgent one became ready).
    Resume,
    /// Run this task now: the IPC fastpath's direct hand-off. Only used
    /// when the task is at least as urgent as every ready task.
    Switch(usize),
    /// The current task goes behind its equals.
    Yield,
    /// The current task cannot run; choose another.
    Block,
}

/// Whom the CPU runs after a scheduling decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Run(usize),
    /// Nothing is ready, but an interrupt can make something ready.
    Idle,
    /// Nothing can ever run again.
    Halt,
}

/// All kernel state that changes after boot.
pub struct Kernel<M: Machine> {
    pub tasks: [Option<Task<M>>; MAX_TASKS],
    /// Slots `0..ntasks` are the image's tasks; scans stop there.
    pub ntasks: usize,
    pub caps: CapSpace,
    pub objects: Objects,
    pub image: Option<BootImage<'static>>,
    pub supervisor: Option<usize>,
    /// The endpoint fault messages go to.
    pub faults_ep: Option<u16>,
    /// Tasks named in the image that could not be started.
    pub failed_to_load: usize,
    /// Per-endpoint blocked counts and the ready tasks, kept by
    /// [`Kernel::set_state`], the one place task states change, so the
    /// fastpath can ask "does anyone wait here?" and "is anyone else
    /// ready?" without scanning the tasks.
    pub summary: Summary,
    /// Which CPU runs each task; CPUs to wake (`crate::placement`).
    pub placement: crate::placement::Placement,
    /// Ticks of the machine's timer since boot ([`Kernel::tick`]).
    pub ticks: u64,
    /// Each task slot's console budget (kept across restarts).
    pub console: [crate::console_budget::Budget; MAX_TASKS],
    /// The wall clock at tick 0, ms since the Unix epoch ([`crate::rtc`]);
    /// `None` when the real-time clock gave no date.
    pub wall_at_boot_ms: Option<u64>,
    next_seq: u64,
}

impl<M: Machine> Default for Kernel<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Machine> Kernel<M> {
    pub const fn new() -> Self {
        Self {
            tasks: [const { None }; MAX_TASKS],
            ntasks: 0,
            caps: CapSpace::new(),
            objects: Objects::new(),
            image: None,
            supervisor: None,
            faults_ep: None,
            failed_to_load: 0,
            summary: Summary::new(),
            placement: crate::placement::Placement::new(),
            ticks: 0,
            console: [crate::console_budget::Budget::full(0); MAX_TASKS],
            wall_at_boot_ms: None,
            next_seq: 0,
        }
    }

    /// Task `i`, which the caller knows exists.
    #[inline]
    pub fn task(&mut self, i: usize) -> &mut Task<M> {
        self.tasks[i]
            .as_mut()
            .expect("task index from kernel state")
    }

    /// Moves task `t` to state `new`, keeping the summary.
    #[inline]
    pub fn set_state(&mut self, t: usize, new: State) {
        let Some(task) = self.tasks[t].as_mut() else {
            return;
        };
        let old = core::mem::replace(&mut task.state, new);
        if !new.in_call() {
            task.deadline = 0; // the timed call, if any, is over
        }
        self.summary.change(t, old, new);
        if new.is_ready() {
            self.placement.woke(t);
        }
    }

    /// The image's task slots.
    pub fn live(&self) -> &[Option<Task<M>>] {
        &self.tasks[..self.ntasks]
    }

    pub fn next_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Loads every task of `image` (whose objects are already in
    /// `self.objects`) and finds the supervisor's fault endpoint.
    pub fn start(&mut self, image: BootImage<'static>) {
        self.image = Some(image);
        self.ntasks = image.task_count().min(MAX_TASKS);
        self.caps.set_tasks(self.ntasks);
        for (i, rec) in image.tasks().take(self.ntasks).enumerate() {
            self.place(i, rec.name, rec.cpu as usize);
        }
        for i in 0..self.ntasks {
            if !self.load_task(i, 0) {
                self.failed_to_load += 1;
            }
        }
        self.supervisor = image.supervisor();
        self.faults_ep = self.supervisor.and_then(|s| {
            let n = NodeId::slot(s, SUPERVISOR_FAULT_SLOT as u64).ok()?;
            let c = self.caps.lookup(n, ObjectKind::Endpoint, 0).ok()?;
            c.obj.object()
        });
    }

    /// Places task `name` (index `i`) on the CPU the image names, or on CPU
    /// 0 with a line saying so when the machine has fewer CPUs running
    /// (under icount QEMU gets one CPU whatever the manifest says).
    pub fn place(&mut self, i: usize, name: &str, cpu: usize) {
        let cpus = self.placement.cpus;
        let cpu = if cpu < cpus {
            cpu
        } else {
            M::log(format_args!(
                "task '{name}' is placed on CPU {cpu} but only {cpus} CPU(s) run; it runs on CPU 0"
            ));
            0
        };
        self.placement.place(i, cpu);
    }

    /// Loads task `i` from the image with its initial capabilities.
    fn load_task(&mut self, i: usize, generation: u32) -> bool {
        let Some(rec) = self.image.as_ref().and_then(|img| img.task(i)) else {
            return false;
        };
        match M::load(&rec) {
            Ok(loaded) => {
                self.set_state(i, State::Exited); // the old instance, if any, waits nowhere
                self.tasks[i] = Some(Task::new(rec.name, rec.priority, generation, loaded));
                self.summary.set_ready(i, true); // a new task starts ready
                self.placement.woke(i);
                self.caps.clear_task(i);
                self.install_caps(i);
                true
            }
            Err(e) => {
                M::log(format_args!("task '{}' not started: {e}", rec.name));
                false
            }
        }
    }

    /// Gives task `i` its capabilities from the image and maps its regions.
    fn install_caps(&mut self, i: usize) {
        let Some(img) = self.image else { return };
        for (r, c) in img.caps().enumerate().filter(|(_, c)| c.task as usize == i) {
            let Some(rec) = img.object(c.object as usize) else {
                continue;
            };
            let gen = match self.objects.get(c.object) {
                Object::Endpoint { server } => self.tasks[server as usize]
                    .as_ref()
                    .map_or(0, |t| t.generation),
                _ => 0,
            };
            let mut cap = Cap {
                origin: Some(r as u16),
                gen,
                ..Cap::new(
                    ObjRef::Object(rec.object.kind(), c.object),
                    c.rights,
                    c.badge,
                )
            };
            if c.map_vaddr != 0 {
                match self.map_cap(i, &cap, c.map_vaddr, c.rights) {
                    Ok(()) => cap.mapped_at = c.map_vaddr,
                    Err(e) => M::log(format_args!(
                        "task '{}': slot {} not mapped at {:#x}: {e}",
                        self.task(i).name,
                        c.slot,
                        c.map_vaddr
                    )),
                }
            }
            if let Ok(n) = NodeId::slot(i, c.slot as u64) {
                // The image validated slots as unique per task.
                let _ = self.caps.insert(n, cap);
            }
        }
    }

    /// Ends task `me`: `fault` carries the report for its supervisor (a
    /// fault, a panic or an exit; `None`: nothing to report).
    /// Its capabilities are released (mappings removed through the same
    /// path as `region_unmap`), its bound notification and timer dropped,
    /// then its address space is destroyed, which frees only the frames
    /// the space owns. Dependents wake with `DeadPeer`.
    pub fn end_task(
        &mut self,
        cpu: &mut crate::kernel::Cpu,
        me: usize,
        fault: Option<FaultMessage>,
    ) {
        let supervised = self.faults_ep.filter(|_| self.supervisor != Some(me));
        let seq = self.next_seq();
        self.release_caps(me);
        if cpu.fpu_owner == me {
            cpu.fpu_owner = Cpu::NO_OWNER;
        }
        // An exit is reported like a fault when someone supervises, and
        // is an exit, never a fault, when no one does.
        let state = match (fault, supervised) {
            (Some(_), Some(obj)) => State::FaultSending { obj, seq },
            (Some(f), None) if f.exit_code().is_none() => State::Stopped,
            _ => State::Exited,
        };
        self.set_state(me, state);
        let t = self.task(me);
        t.fault = fault;
        t.bound = None; // a dead task receives nothing and keeps no timer
        t.timer = None;
        if let Some(space) = t.space.take() {
            M::destroy(space, me);
        }
        self.wake_dependents(me);
        if let State::FaultSending { obj, .. } = self.task(me).state {
            if let Some(r) = self.receiver_on(obj) {
                self.deliver_from(me, r);
            }
        }
    }

    /// When nothing can run again: releases what the tasks still blocked
    /// forever hold (capabilities, mappings, address spaces), so the
    /// machine can check that every frame came back.
    pub fn reclaim_all(&mut self) {
        for t in 0..self.ntasks {
            self.release_caps(t);
            if let Some(space) = self.tasks[t].as_mut().and_then(|t| t.space.take()) {
                M::destroy(space, t);
            }
        }
    }

    /// Deletes every capability task `t` holds (slots and in-flight).
    fn release_caps(&mut self, t: usize) {
        let mut nodes = [None; crate::cspace::STRIDE];
        for (k, (n, _)) in self.caps.nodes_of(t).enumerate() {
            nodes[k] = Some(n);
        }
        for n in nodes.into_iter().flatten() {
            if let Ok(cap) = self.caps.remove(n) {
                self.unmap_cap(t, &cap);
            }
        }
        for s in 0..conflux_abi::cap::CAP_SLOTS as u64 {
            if let Ok(n) = NodeId::slot(t, s) {
                self.let_go_of_lapsed(t, n, crate::cap::Slot::Empty);
            }
        }
    }

    /// Makes every task that waits on dead task `d` runnable with `DeadPeer`.
    fn wake_dependents(&mut self, d: usize) {
        for i in 0..self.ntasks {
            let Some(t) = self.tasks[i].as_ref() else {
                continue;
            };
            let depends = match t.state {
                State::AwaitingReply { server } => server as usize == d,
                State::Sending { obj, .. } => {
                    matches!(self.objects.get(obj), Object::Endpoint { server } if server as usize == d)
                }
                _ => false,
            };
            if depends {
                self.wake_with(i, SysError::DeadPeer);
            }
        }
    }

    /// Makes blocked task `i` ready with error `e`, dropping any capability
    /// it was offering.
    pub fn wake_with(&mut self, i: usize, e: SysError) {
        let _ = self.caps.remove(NodeId::in_flight(i));
        self.task(i).ctx.set_err(e);
        self.set_state(i, State::Ready);
    }

    /// Acts on the supervisor's answer about task `i`, which faulted or
    /// exited.
    pub fn fault_decided(&mut self, i: usize, answer: SupervisorReply) {
        let (name, gen) = {
            let t = self.task(i);
            (t.name, t.generation)
        };
        let next = gen.wrapping_add(1);
        if answer == SupervisorReply::Restart && self.load_task(i, next) {
            M::log(format_args!(
                "task '{name}' restarted by its supervisor (generation {next})"
            ));
        } else {
            // A task that exited stays an exit in the closing line and in
            // `task_info`, whatever its supervisor answered; its exit was
            // logged when it happened, and staying ended is what an exit
            // means, so only a fault left stopped gets a line.
            if self.task(i).exited() {
                self.set_state(i, State::Exited);
            } else {
                self.set_state(i, State::Stopped);
                M::log(format_args!("task '{name}' left stopped by its supervisor"));
            }
        }
    }

    /// Chooses what `cpu` runs after `next` and records it in `cpu`.
    pub fn schedule(&mut self, cpu: &mut Cpu, next: Next) -> Decision {
        let cur = cpu.current;
        let chosen = match next {
            Next::Switch(t) => Some(t),
            Next::Resume
                if !cpu.idle
                    && !self.should_preempt(cur)
                    && self.is_ready(cur)
                    && self.placement.cpu_of(cur) == cpu.index =>
            {
                Some(cur)
            }
            _ => self.pick_next(cpu.index, cur),
        };
        match chosen {
            Some(t) => {
                cpu.current = t;
                cpu.idle = false;
                self.placement.set_busy(cpu.index, true);
                Decision::Run(t)
            }
            // Another CPU may still make something ready here: one that
            // runs a task, or has one ready it has not chosen yet.
            None if self.waits_for_interrupt()
                || self.placement.busy & !(1 << cpu.index) != 0
                || self.summary.ready != 0 =>
            {
                cpu.idle = true;
                self.placement.set_busy(cpu.index, false);
                Decision::Idle
            }
            None => Decision::Halt,
        }
    }

    fn is_ready(&self, t: usize) -> bool {
        self.tasks[t].as_ref().is_some_and(|t| t.state.is_ready())
    }

    /// Counts for the closing line: (exited, stopped after a fault, blocked forever).
    pub fn ending_counts(&self) -> (usize, usize, usize) {
        let (mut exited, mut faulted, mut blocked) = (0, 0, 0);
        for t in self.live().iter().flatten() {
            match t.state {
                State::Exited => exited += 1,
                // An exit still waiting for its supervisor is an exit.
                s if s.is_dead() && t.exited() => exited += 1,
                s if s.is_dead() => faulted += 1,
                _ => blocked += 1,
            }
        }
        (exited, faulted, blocked)
    }
}
