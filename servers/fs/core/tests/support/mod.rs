//! What the file-service tests share: a client (a session and one region)
//! whose requests reach `FileService` the way the server's per-call path
//! builds them (`Args` from operand words) or as a verified compound, on
//! an image made by the host's mke2fs.

#![allow(dead_code)] // each test file uses its own part of this module

#[path = "../../../ext4/tests/common/mod.rs"]
pub mod common;

use common::{FileDisk, Image, Mkfs};
use conflux_ext4::{FileSystem, FixedClock};
use conflux_fs_core::{FileService, Files, Grant, Inodes, Pages, Session};
use conflux_fs_protocol::{ops, FsError};
use cosy_abi::{Args, CallError, Insn, OpResult, Program, Registers, Report, Service, Target};

/// One operand of a per-call request.
#[derive(Clone, Copy)]
pub enum O {
    V(u64),
    /// A buffer: offset and length in the client's region.
    B(usize, usize),
}

pub const REGION: usize = 256 * 1024;

pub struct Client {
    pub session: Session,
    pub region: Vec<u8>,
}

impl Client {
    /// A client with the whole tree, read-write.
    pub fn new() -> Client {
        Client::with(Grant::whole_tree())
    }

    pub fn with(grant: Grant) -> Client {
        Client {
            session: Session::new(grant),
            region: vec![0; REGION],
        }
    }
}

/// Pages in the tests' page cache: few, so that tests that move more
/// than 64 KiB also write pages back to make room.
pub const TEST_PAGES: usize = 16;

pub struct Server {
    pub fs: Files<FileDisk>,
    pub inodes: Inodes,
}

impl Server {
    /// One operation through the per-call path: its value or error code.
    pub fn call(&mut self, c: &mut Client, op: u16, operands: &[O]) -> Result<u64, u16> {
        let mut regions = [&mut c.region[..]];
        let mut args = Args::new(&mut regions);
        for o in operands {
            args = match *o {
                O::V(v) => args.with_value(v),
                O::B(off, len) => args.with_buf(0, off, len).map_err(|e| e.code())?,
            };
        }
        let mut svc = FileService {
            fs: &mut self.fs,
            inodes: &mut self.inodes,
            session: &mut c.session,
        };
        svc.call(op, &mut args).map_err(|e| e.code())
    }

    /// Verifies and runs `compound` over the client's region.
    pub fn run(&mut self, c: &mut Client, compound: &[u8]) -> Report {
        run_compound(
            &mut self.fs,
            &mut self.inodes,
            &mut c.session,
            compound,
            &mut c.region,
        )
    }
}

/// Verifies `compound` against the file operations and one region, and
/// runs it for `session` as the server would.
pub fn run_compound(
    fs: &mut Files<FileDisk>,
    inodes: &mut Inodes,
    session: &mut Session,
    compound: &[u8],
    region: &mut [u8],
) -> Report {
    let lens = [region.len()];
    let target = Target {
        ops: ops::TABLE,
        regions: &lens,
        max_steps: 1_000_000,
    };
    let program = Program::verify(compound, &target, vec![Insn::EMPTY; 256]).expect("verifies");
    let mut results = vec![OpResult::EMPTY; 256];
    let mut regs = Registers::new();
    let mut svc = FileService {
        fs,
        inodes,
        session,
    };
    program.run(&mut svc, &mut [region], &mut regs, &mut results)
}

/// Puts `s` NUL-terminated at `at` of the region; the path operand.
pub fn path(c: &mut Client, at: usize, s: &str) -> O {
    c.region[at..at + s.len()].copy_from_slice(s.as_bytes());
    c.region[at + s.len()] = 0;
    O::B(at, s.len() + 1)
}

/// The per-call result of failing with `e`.
pub fn fail(e: FsError) -> Result<u64, u16> {
    Err(CallError::from(e).code())
}

/// A server on a fresh image made by `how`.
pub fn setup_with(name: &str, how: Mkfs) -> (Image, Server) {
    let image = Image::new(name, how);
    let fs = cached(image.mount());
    (
        image,
        Server {
            fs,
            inodes: Inodes::default(),
        },
    )
}

/// A server on a fresh empty image.
pub fn setup(name: &str) -> (Image, Server) {
    setup_with(name, Mkfs::default())
}

/// `fs` with a page cache of [`TEST_PAGES`] pages.
pub fn cached(fs: FileSystem<FileDisk>) -> Files<FileDisk> {
    Files::new(
        fs,
        Pages::new(TEST_PAGES).expect("page pool"),
        FixedClock(common::NOW),
    )
}
