//! The task table and the scheduler.
//!
//! Fixed priorities (0 most urgent) with round robin among equals: the
//! next task is the most urgent ready one, searching from the task after the
//! current, so a yielding task goes behind its peers. The table is a fixed
//! array — the manifest bounds the number of tasks — and the whole kernel
//! state sits behind one lock (a big kernel lock, enough for one CPU).

use crate::arch::machine;
use crate::arch::paging::AddressSpace;
use crate::arch::trap::TrapFrame;
use crate::kprintln;
use crate::task::{State, Task};
use conflux_abi::exit::Verdict;
use conflux_bootimg::{BootImage, MAX_TASKS};
use spin::Mutex;

/// All kernel state that changes after boot.
pub struct Kernel {
    pub tasks: [Option<Task>; MAX_TASKS],
    pub current: usize,
    /// Tasks named in the image that could not be started.
    pub failed_to_load: usize,
}

pub static KERNEL: Mutex<Kernel> = Mutex::new(Kernel {
    tasks: [const { None }; MAX_TASKS],
    current: 0,
    failed_to_load: 0,
});

impl Kernel {
    /// The running task.
    pub fn current(&mut self) -> &mut Task {
        self.tasks[self.current]
            .as_mut()
            .expect("the current slot always holds a task")
    }

    /// The most urgent ready task, round robin among equals, starting after
    /// the current one (so the current task is chosen last among peers).
    pub fn pick_next(&self) -> Option<usize> {
        let n = self.tasks.len();
        let mut best: Option<(u8, usize)> = None;
        for step in 1..=n {
            let i = (self.current + step) % n;
            if let Some(t) = &self.tasks[i] {
                if t.state == State::Ready && best.is_none_or(|(p, _)| t.priority < p) {
                    best = Some((t.priority, i));
                }
            }
        }
        best.map(|(_, i)| i)
    }

    /// Ends the current task; its address space is returned for the caller
    /// to destroy once another address space is active.
    pub fn end_current(&mut self, state: State) -> Option<AddressSpace> {
        let t = self.current();
        t.state = state;
        t.space.take()
    }

    /// Switches to the next task: loads its registers into `frame` and its
    /// address space into CR3. Stops the machine when no task is left.
    pub fn switch(&mut self, frame: &mut TrapFrame) {
        let Some(next) = self.pick_next() else {
            self.all_ended();
        };
        self.current = next;
        let t = self.current();
        *frame = t.ctx;
        if let Some(space) = &t.space {
            space.activate();
        }
    }

    fn all_ended(&self) -> ! {
        let (mut exited, mut faulted) = (0, 0);
        for t in self.tasks.iter().flatten() {
            match t.state {
                State::Exited(_) => exited += 1,
                State::Faulted => faulted += 1,
                State::Ready => {}
            }
        }
        kprintln!(
            "all tasks ended: {exited} exited, {faulted} stopped after a fault, {} failed to start",
            self.failed_to_load
        );
        machine::exit(Verdict::AllTasksEnded)
    }
}

/// Creates every task in the image, prints the banner and runs the first.
pub fn start(image: &BootImage<'static>, frame_slot: *mut TrapFrame) -> ! {
    let mut k = KERNEL.lock();
    for (i, rec) in image.tasks().enumerate() {
        match Task::load(&rec) {
            Ok(t) => k.tasks[i] = Some(t),
            Err(e) => {
                kprintln!("task '{}' not started: {e}", rec.name);
                k.failed_to_load += 1;
            }
        }
    }
    let started = k.tasks.iter().flatten().count();
    kprintln!(
        "Conflux {} — system '{}' up: {started} tasks, {} MiB free",
        env!("CARGO_PKG_VERSION"),
        image.system_name(),
        crate::mem::free_frames() / 256
    );
    k.current = MAX_TASKS - 1; // so the search starts at slot 0
                               // Safety: `frame_slot` is the top of this CPU's kernel stack, reserved
                               // for the frame that `enter` restores.
    let frame = unsafe { &mut *frame_slot };
    k.switch(frame);
    drop(k);
    // Safety: `switch` filled the frame with a ready task's user context.
    unsafe { crate::arch::trap::enter(frame_slot) }
}
