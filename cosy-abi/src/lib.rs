//! Cosy compound IPC for Conflux: the wire format, a builder for apps, the
//! verifier and executor that servers run, and an allocator for the shared
//! data region.
//!
//! An app encodes a list of operations (service calls, arithmetic,
//! branches, loops, data ops on shared buffers) into a buffer it shares
//! with a server and makes one IPC; the server verifies the list, runs it
//! against its own operations and writes the results back. The format is
//! specified in `docs/cosy-abi.md`; the ideas are from Cosy (Purohit et
//! al., FSL-02-01 and HotOS 2003).
//!
//! # Principles
//!
//! - **Compound bytes are untrusted.** They are read through one checked
//!   view ([`Compound`]) and become trusted only as a [`Program`], which
//!   only [`Program::verify`] makes. The verifier copies the decoded ops
//!   into server memory, so the client cannot change them mid-run.
//! - **Nothing a compound says can hurt the server.** No `unsafe`; every
//!   region access is a bounds-checked slice; every run is bounded by a
//!   step budget the server caps; every failure is a code, never a panic.
//! - **No allocation on the server side.** The verifier, executor and wire
//!   view use caller-provided storage and work in `no_std`. Only the
//!   [`Builder`] (apps, feature `alloc`) allocates.
//! - **One path for one call and for many.** A service implements its
//!   operations once ([`Service::call`] with [`Args`]); the compound
//!   executor and the server's plain per-call path both use it.
//! - **Errors say where and why**, as a specific variant with a readable
//!   `Display` and a stable wire code ([`code`]).
//!
//! # A compound from end to end
//!
//! ```
//! use cosy_abi::{memfs::{self, MemFs}, Builder, Cmp, OpResult, Insn, Program, Registers, Target};
//!
//! // The app: read a file in 16-byte chunks until a short read (Cosy's
//! // open / read-loop / close example, FSL-02-01 §2.7).
//! let mut b = Builder::new();
//! let name = b.buf(0, 0, 8);
//! let chunk = b.buf(0, 64, 16);
//! let (fd, n, total) = (b.reg(), b.reg(), b.reg());
//! b.call(fd, memfs::OPEN, (name, 8, 0));
//! let again = b.label();
//! b.bind(again);
//! b.call(n, memfs::READ, (fd, chunk, 16));
//! b.add(total, total, n);
//! b.branch(Cmp::Eq, n, 16, again);
//! b.call_void(memfs::CLOSE, (fd,));
//! b.exit(total);
//! let compound = b.build().unwrap();
//!
//! // The server: verify once, run, report.
//! let mut backing = vec![0u8; 4096];
//! let mut fs = MemFs::new(&mut backing, 1024);
//! fs.create(b"data.txt", &[7u8; 40]).unwrap();
//! let mut region = vec![0u8; 128];
//! region[..8].copy_from_slice(b"data.txt");
//! let target = Target { ops: memfs::OPS, regions: &[region.len()], max_steps: 1000 };
//! let program = Program::verify(&compound, &target, [Insn::EMPTY; 16]).unwrap();
//! let mut results = [OpResult::EMPTY; 16];
//! let mut regs = Registers::new();
//! let report = program.run(&mut fs, &mut [&mut region[..]], &mut regs, &mut results);
//! assert!(report.is_clean());
//! assert_eq!(report.exit_value, 40);
//! ```
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod arena;
mod args;
#[cfg(feature = "alloc")]
mod builder;
pub mod code;
mod crc32c;
#[cfg(feature = "alloc")]
pub mod examples;
mod exec;
pub mod memfs;
mod program;
mod regfile;
mod region_alloc;
mod registers;
mod report;
pub mod ring;
mod service;
pub mod typed;
mod verify;
pub mod wire;

pub use arena::{Arena, ArenaError, Place, Table};
pub use args::{Args, BufWord};
#[cfg(feature = "alloc")]
pub use builder::{Buf, BuildError, Builder, Label, Operand, Operands, Reg};
pub use crc32c::crc32c;
pub use exec::{Execution, Progress};
pub use program::{Insn, Program, Target, MAX_REGIONS};
pub use region_alloc::{Block, FreeError, RegionAlloc};
pub use registers::Registers;
pub use report::{Fault, OpResult, Outcome, Report};
pub use service::{ArgKind, CallError, CallShape, OpSpec, OpTable, Service};
pub use verify::{Expect, Field, OpError, OpName, RefError, VerifyError};
pub use wire::{Cmp, Compound, Opcode};
