//! The task table, the scheduler and task life and death.
//!
//! Fixed priorities (0 most urgent) with round robin among equals: the
//! next task is the most urgent ready one, searching from the task after the
//! current, so a yielding or preempted task goes behind its peers. The table
//! is a fixed array — the manifest bounds the number of tasks — and the whole
//! kernel state sits behind one lock (a big kernel lock, enough for one CPU).
//! When no task is ready but one waits for an interrupt, the CPU idles in a
//! ring-0 `hlt` loop; when no task can ever run again, the machine stops.

use crate::arch::machine;
use crate::arch::paging::AddressSpace;
use crate::arch::trap::TrapFrame;
use crate::cap::{Cap, ObjRef, Slot};
use crate::kprintln;
use crate::object::{Object, Objects};
use crate::task::{State, Task};
use conflux_abi::cap::ObjectKind;
use conflux_abi::exit::Verdict;
use conflux_abi::SysError;
use conflux_bootimg::{BootImage, ObjectRecord, MAX_TASKS};
use spin::Mutex;

/// All kernel state that changes after boot.
pub struct Kernel {
    pub tasks: [Option<Task>; MAX_TASKS],
    /// Slots `0..ntasks` are the image's tasks; scans stop there, which
    /// keeps the IPC path's cost proportional to the system, not to 64.
    pub ntasks: usize,
    pub current: usize,
    /// The CPU is in the idle loop (no task is running).
    pub idle: bool,
    pub objects: Objects,
    pub image: Option<BootImage<'static>>,
    pub supervisor: Option<usize>,
    /// The endpoint fault messages go to (the supervisor's slot 1).
    pub faults_ep: Option<u16>,
    /// Tasks named in the image that could not be started.
    pub failed_to_load: usize,
    /// Orders blocked senders.
    pub next_seq: u64,
    /// Source of capability ids.
    pub next_cap_id: u32,
}

pub static KERNEL: Mutex<Kernel> = Mutex::new(Kernel {
    tasks: [const { None }; MAX_TASKS],
    ntasks: 0,
    current: 0,
    idle: false,
    objects: Objects::new(),
    image: None,
    supervisor: None,
    faults_ep: None,
    failed_to_load: 0,
    next_seq: 0,
    next_cap_id: 1,
});

/// Slot of the supervisor's fault endpoint (fixed by the manifest lowering).
const FAULTS_SLOT: u64 = 1;

static mut IDLE_STACK: [u8; 4096] = [0; 4096];

fn idle_loop() -> ! {
    loop {
        x86_64::instructions::hlt();
    }
}

impl Kernel {
    /// The running task.
    pub fn current(&mut self) -> &mut Task {
        self.tasks[self.current]
            .as_mut()
            .expect("the current slot always holds a task")
    }

    /// Task `i`, which the caller knows exists.
    pub fn task(&mut self, i: usize) -> &mut Task {
        self.tasks[i]
            .as_mut()
            .expect("task index from kernel state")
    }

    /// The image's task slots.
    pub fn live(&self) -> &[Option<Task>] {
        &self.tasks[..self.ntasks]
    }

    /// The most urgent ready task, round robin among equals, starting after
    /// the current one (so the current task is chosen last among peers).
    pub fn pick_next(&self) -> Option<usize> {
        let n = self.ntasks.max(1);
        let mut best: Option<(u8, usize)> = None;
        for step in 1..=n {
            let i = (self.current + step) % n;
            if let Some(t) = self.tasks.get(i).and_then(Option::as_ref) {
                if matches!(t.state, State::Ready) && best.is_none_or(|(p, _)| t.priority < p) {
                    best = Some((t.priority, i));
                }
            }
        }
        best.map(|(_, i)| i)
    }

    /// True when a ready task is more urgent than the current one.
    pub fn should_preempt(&self) -> bool {
        let cur = self.tasks[self.current]
            .as_ref()
            .map_or(u8::MAX, |t| t.priority);
        self.tasks
            .iter()
            .flatten()
            .any(|t| matches!(t.state, State::Ready) && t.priority < cur)
    }

    pub fn next_id(&mut self) -> u32 {
        self.next_cap_id += 1;
        self.next_cap_id
    }

    pub fn next_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Switches to the next task: loads its registers into `frame` and its
    /// address space into CR3. Idles if only interrupts can make progress;
    /// stops the machine when nothing ever can.
    pub fn switch(&mut self, frame: &mut TrapFrame) {
        let Some(next) = self.pick_next() else {
            if self.waits_for_interrupt() {
                self.idle = true;
                // Only the idle stack's address is taken; the idle loop uses
                // no stack of its own beyond interrupt frames.
                let top = core::ptr::addr_of_mut!(IDLE_STACK) as u64 + 4096;
                *frame = TrapFrame::new_kernel(idle_loop as *const () as u64, top);
                return;
            }
            self.all_ended();
        };
        self.idle = false;
        self.current = next;
        let t = self.current();
        *frame = t.ctx;
        if let Some(space) = &t.space {
            space.activate();
        }
    }

    /// Some task waits on a notification an interrupt line can signal.
    fn waits_for_interrupt(&self) -> bool {
        self.live().iter().flatten().any(|t| match t.state {
            State::Waiting { obj } => self
                .objects
                .table
                .iter()
                .any(|o| matches!(o, Object::Irq { notification, .. } if *notification == obj)),
            _ => false,
        })
    }

    fn all_ended(&self) -> ! {
        let (mut exited, mut faulted, mut blocked) = (0, 0, 0);
        for t in self.live().iter().flatten() {
            match t.state {
                State::Exited => exited += 1,
                s if s.is_dead() => faulted += 1,
                _ => blocked += 1,
            }
        }
        kprintln!(
            "all tasks ended: {exited} exited, {faulted} stopped after a fault, {} failed to start, {blocked} blocked forever",
            self.failed_to_load
        );
        machine::exit(Verdict::AllTasksEnded)
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
                    matches!(self.objects.table[obj as usize], Object::Endpoint { server } if server as usize == d)
                }
                _ => false,
            };
            if depends {
                let t = self.task(i);
                t.ctx.rax = SysError::DeadPeer.code();
                t.state = State::Ready;
            }
        }
    }

    /// Ends the current task: `fault` carries the fault message words when
    /// it faulted. Returns its address space, for the caller to destroy once
    /// another address space is active.
    pub fn end_current(&mut self, fault: Option<[u64; 4]>) -> Option<AddressSpace> {
        let me = self.current;
        let supervised = self.faults_ep.filter(|_| self.supervisor != Some(me));
        let seq = self.next_seq();
        let t = self.task(me);
        t.state = match (fault, supervised) {
            (Some(words), Some(obj)) => {
                t.fault = words;
                State::FaultSending { obj, seq }
            }
            (Some(_), None) => State::Stopped,
            (None, _) => State::Exited,
        };
        let space = t.space.take();
        self.wake_dependents(me);
        if let State::FaultSending { obj, .. } = self.task(me).state {
            if let Some(r) = self.receiver_on(obj) {
                self.deliver_from(me, r);
            }
        }
        space
    }

    /// Loads task `i` from the image (again, for a restart) with its
    /// initial capabilities.
    fn load_task(&mut self, i: usize, generation: u32) -> bool {
        let Some(rec) = self.image.as_ref().and_then(|img| img.task(i)) else {
            return false;
        };
        match Task::load(&rec) {
            Ok(mut t) => {
                t.generation = generation;
                self.tasks[i] = Some(t);
                self.install_caps(i);
                true
            }
            Err(e) => {
                kprintln!("task '{}' not started: {e}", rec.name);
                false
            }
        }
    }

    /// Gives task `i` its capabilities from the image and maps its regions.
    fn install_caps(&mut self, i: usize) {
        let Some(img) = self.image else { return };
        for c in img.caps().filter(|c| c.task as usize == i) {
            let Some(rec) = img.object(c.object as usize) else {
                continue;
            };
            let id = self.next_id();
            let gen = match self.objects.table[c.object as usize] {
                Object::Endpoint { server } => self.tasks[server as usize]
                    .as_ref()
                    .map_or(0, |t| t.generation),
                _ => 0,
            };
            let mut cap = Cap {
                obj: ObjRef::Object(rec.object.kind(), c.object),
                rights: c.rights,
                badge: c.badge,
                id,
                parent: None,
                gen,
                mapped_at: 0,
                doomed: false,
            };
            if c.map_vaddr != 0 {
                match self.map_object(i, &cap, c.map_vaddr, c.rights) {
                    Ok(()) => cap.mapped_at = c.map_vaddr,
                    Err(e) => kprintln!(
                        "task '{}': slot {} not mapped at {:#x}: {e}",
                        self.task(i).name,
                        c.slot,
                        c.map_vaddr
                    ),
                }
            }
            self.task(i).caps.slots[c.slot as usize] = Slot::Full(cap);
        }
    }

    /// Acts on the supervisor's answer to a fault message: `restart` or leave stopped.
    pub fn fault_decided(&mut self, i: usize, restart: bool) {
        let (name, gen) = {
            let t = self.task(i);
            (t.name, t.generation)
        };
        if restart && self.load_task(i, gen.wrapping_add(1)) {
            kprintln!(
                "task '{name}' restarted by its supervisor (generation {})",
                gen.wrapping_add(1)
            );
        } else {
            self.task(i).state = State::Stopped;
            kprintln!("task '{name}' left stopped by its supervisor");
        }
    }
}

/// Creates every object and task in the image, prints the banner and runs the first.
pub fn start(image: BootImage<'static>, frame_slot: *mut TrapFrame) -> ! {
    let mut k = KERNEL.lock();
    k.image = Some(image);
    for (i, rec) in image.objects().enumerate() {
        if let Err(e) = k.objects.create(i, &rec) {
            kprintln!("boot failed: object {i}: {e}");
            machine::exit(Verdict::KernelFault);
        }
        if let ObjectRecord::Irq { line, .. } = rec.object {
            crate::arch::ioapic::route(line);
        }
    }
    k.ntasks = image.task_count();
    for i in 0..image.task_count() {
        if !k.load_task(i, 0) {
            k.failed_to_load += 1;
        }
    }
    k.supervisor = image.supervisor();
    k.faults_ep = k
        .supervisor
        .and_then(|s| match k.tasks[s].as_ref()?.caps.get(FAULTS_SLOT) {
            Ok(Cap {
                obj: ObjRef::Object(ObjectKind::Endpoint, obj),
                ..
            }) => Some(*obj),
            _ => None,
        });
    let started = k.tasks.iter().flatten().count();
    kprintln!(
        "Conflux {} — system '{}' up: {started} tasks, {} MiB free",
        env!("CARGO_PKG_VERSION"),
        image.system_name(),
        crate::mem::free_frames() / 256
    );
    k.current = k.ntasks - 1; // so the search starts at slot 0
                              // Safety: `frame_slot` is the top of this CPU's kernel stack, reserved
                              // for the frame that `enter` restores.
    let frame = unsafe { &mut *frame_slot };
    k.switch(frame);
    drop(k);
    // Safety: `switch` filled the frame with a ready task's context (or
    // the idle loop's).
    unsafe { crate::arch::trap::enter(frame_slot) }
}
