//! Boots an image into `Kernel<Mock>` and makes syscalls on tasks' behalf.

use super::mock::{Mock, Regs};
use crate::kernel::{Cpu, Kernel, Next};
use crate::task::State;
use conflux_abi::ipc::{Info, RawMessage};
use conflux_abi::{SysError, Sysno};
use conflux_bootimg::{
    encode, BootImage, CapRecord, Image, ObjectEntry, ObjectRecord, Restart, TaskRecord,
};

/// One object of a test image.
#[derive(Clone, Copy)]
pub enum Obj {
    Endpoint {
        server: u32,
    },
    Notification,
    Region {
        size: u64,
    },
    IoPorts {
        base: u64,
        count: u64,
    },
    Irq {
        line: u64,
        notification: u32,
        bit: u64,
    },
}

fn record(o: Obj) -> ObjectEntry<'static> {
    let object = match o {
        Obj::Endpoint { server } => ObjectRecord::Endpoint {
            server: server as u8,
        },
        Obj::Notification => ObjectRecord::Notification,
        Obj::Region { size } => ObjectRecord::Region { size },
        Obj::IoPorts { base, count } => ObjectRecord::IoPorts {
            base: base as u16,
            count: count as u32,
            device: None,
        },
        Obj::Irq {
            line,
            notification,
            bit,
        } => ObjectRecord::Irq {
            line: line as u8,
            notification: notification as u16,
            bit: bit as u8,
        },
    };
    ObjectEntry {
        name: "obj",
        object,
    }
}

/// An initial capability: (task, slot, object, rights, badge, map address).
pub type Grant = (u8, u8, u16, u8, u64, u64);

pub struct Sim {
    pub k: Kernel<Mock>,
    pub cpu: Cpu,
}

const NAMES: [&str; 6] = ["t0", "t1", "t2", "t3", "t4", "t5"];

impl Sim {
    /// Boots `priorities.len()` tasks (task 0 supervises when `supervised`).
    pub fn boot(priorities: &[u8], objects: &[Obj], grants: &[Grant], supervised: bool) -> Self {
        let tasks = priorities
            .iter()
            .enumerate()
            .map(|(i, &priority)| TaskRecord {
                name: NAMES[i],
                elf: b"ELF",
                stack_size: 4096,
                heap_size: 4096,
                priority,
                restart: Restart::OnFault,
                cpu: 0,
            })
            .collect();
        let caps = grants
            .iter()
            .map(
                |&(task, slot, object, rights, badge, map_vaddr)| CapRecord {
                    task,
                    slot,
                    object,
                    rights,
                    badge,
                    map_vaddr,
                },
            )
            .collect();
        let image = Image {
            system_name: "host",
            supervisor: supervised.then_some(0),
            tasks,
            objects: objects.iter().map(|&o| record(o)).collect(),
            caps,
        };
        let bytes: &'static [u8] = Box::leak(
            encode(&image)
                .expect("test image encodes")
                .into_boxed_slice(),
        );
        let image = BootImage::parse(bytes).expect("test image parses");
        let mut k = Kernel::<Mock>::new();
        for (i, o) in objects.iter().enumerate() {
            k.objects.table[i] = match *o {
                Obj::Endpoint { server } => crate::object::Object::Endpoint {
                    server: server as u8,
                },
                Obj::Notification => crate::object::Object::Notification { word: 0 },
                Obj::Region { size } => crate::object::Object::Memory {
                    phys: 0x100_0000,
                    size,
                    device: false,
                },
                Obj::IoPorts { base, count } => crate::object::Object::IoPorts {
                    base: base as u16,
                    count: count as u32,
                },
                Obj::Irq {
                    line,
                    notification,
                    bit,
                } => crate::object::Object::Irq {
                    line: line as u8,
                    notification: notification as u16,
                    bit: bit as u8,
                },
            };
        }
        k.start(image);
        Self {
            k,
            cpu: Cpu::default(),
        }
    }

    /// Task `t` makes syscall `num`; returns what the kernel asks next.
    pub fn sys(&mut self, t: usize, num: Sysno, args: [u64; 6]) -> Next {
        self.cpu.current = t;
        let ctx = &mut self.k.task(t).ctx;
        *ctx = Regs {
            num: num as u64,
            args,
            ..Regs::default()
        };
        let next = self.k.syscall(&mut self.cpu);
        self.check_counts();
        next
    }

    /// The summary (per-endpoint blocked counts, ready bitmap) agrees
    /// with the tasks' states, and only a task in a call has a deadline.
    pub fn check_counts(&self) {
        let mut want = [0u16; conflux_bootimg::MAX_OBJECTS];
        let mut ready = 0u64;
        for (i, t) in self.k.live().iter().enumerate() {
            let Some(t) = t else { continue };
            if let Some(o) = t.state.endpoint() {
                want[o as usize] += 1;
            }
            if t.state.is_ready() {
                ready |= 1 << i;
            }
            assert!(
                t.deadline == 0 || t.state.in_call(),
                "task {i} is {:?} yet keeps a call deadline",
                t.state
            );
        }
        assert_eq!(
            self.k.summary.ep_blocked, want,
            "per-endpoint counts drifted"
        );
        assert_eq!(
            self.k.summary.ready, ready,
            "ready bitmap {:#b} drifted from the states' {ready:#b}",
            self.k.summary.ready
        );
    }

    /// `sys` through the general dispatch only, never the fastpath.
    pub fn sys_slow(&mut self, t: usize, num: Sysno, args: [u64; 6]) -> Next {
        self.cpu.current = t;
        self.k.task(t).ctx = Regs {
            num: num as u64,
            args,
            ..Regs::default()
        };
        let next = self.k.slow_syscall(&mut self.cpu);
        self.check_counts();
        next
    }

    /// The status last written for task `t`.
    pub fn result(&mut self, t: usize) -> Option<Result<u64, SysError>> {
        self.k.task(t).ctx.result
    }

    /// `sys`, expecting an immediate result.
    pub fn call_ok(&mut self, t: usize, num: Sysno, args: [u64; 6]) -> Result<u64, SysError> {
        self.sys(t, num, args);
        self.result(t).expect("the call returned at once")
    }

    pub fn state(&mut self, t: usize) -> State {
        self.k.task(t).state
    }

    pub fn incoming(&mut self, t: usize) -> Option<RawMessage> {
        self.k.task(t).ctx.incoming
    }

    /// `cap_info` of (task, slot) as the task would see it.
    pub fn info(&mut self, t: usize, slot: u64) -> Result<u64, SysError> {
        self.call_ok(t, Sysno::CapInfo, [slot, 0, 0, 0, 0, 0])
    }

    pub fn mint(
        &mut self,
        t: usize,
        src: u64,
        dst: u64,
        rights: u8,
        badge: u64,
    ) -> Result<u64, SysError> {
        self.call_ok(t, Sysno::CapMint, [src, dst, rights as u64, badge, 0, 0])
    }
}

/// Info word for a message of `len` words, optionally carrying `cap`.
pub fn info(label: u32, len: usize, cap: Option<usize>) -> u64 {
    let i = Info::new(label, len);
    match cap {
        Some(s) => i.with_cap(s).encode().unwrap(),
        None => i.encode().unwrap(),
    }
}

/// Packed recv slots.
pub fn slots(ep: usize, reply: usize, cap: usize) -> u64 {
    conflux_abi::syscall::pack_slots(ep, reply, cap).unwrap()
}

pub use conflux_abi::SysError as E;
