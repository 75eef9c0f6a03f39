//! The Cosy papers' example compounds, written with the [`Builder`] for
//! the [`memfs`](crate::memfs) service. Each runs in its doc example; the
//! tests, the fuzz seed corpus and the benchmark reuse them.
//!
//! Buffers are given as `(region, offset, len)`. `cosy-macro`'s tests
//! write each of them with the `cosy!` macro and check that it builds the
//! same compound.

use crate::builder::{Buf, Builder};
use crate::memfs::{CLOSE, OPEN, O_CREAT, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY, READ, SEEK, WRITE};
use crate::wire::Cmp;

/// A buffer in a region: `(region, offset, len)`.
pub type Place = (u8, u32, u32);

fn buf(b: &mut Builder, (region, offset, len): Place) -> Buf {
    b.buf(region, offset, len)
}

/// FSL-02-01 §2.7: open a file, read it in `chunk`-sized pieces until a
/// short read, close it. Exits with the number of bytes read.
///
/// ```
/// use cosy_abi::{examples, memfs::{self, MemFs}, Insn, OpResult, Program, Registers, Target};
///
/// let compound = examples::read_loop((0, 0, 16), (0, 64, 32)).build().unwrap();
///
/// let mut backing = vec![0u8; 8 * 1024];
/// let mut fs = MemFs::new(&mut backing, 1024);
/// fs.create(b"log", &[1u8; 100]).unwrap();
/// let mut region = vec![0u8; 96];
/// region[..3].copy_from_slice(b"log");
/// let target = Target { ops: memfs::OPS, regions: &[96], max_steps: 1_000 };
/// let program = Program::verify(&compound, &target, [Insn::EMPTY; 8]).unwrap();
/// let mut results = [OpResult::EMPTY; 8];
/// let report = program.run(&mut fs, &mut [&mut region[..]], &mut Registers::new(), &mut results);
/// assert!(report.is_clean());
/// assert_eq!(report.exit_value, 100);
/// assert_eq!(results[1].runs, 4); // three full reads of 32 bytes, one of 4
/// ```
pub fn read_loop(name: Place, chunk: Place) -> Builder {
    let mut b = Builder::new();
    let (name, data, len) = (buf(&mut b, name), buf(&mut b, chunk), chunk.2);
    let (fd, n, total) = (b.reg(), b.reg(), b.reg());
    b.call(fd, OPEN, (name, O_RDONLY, 0));
    let again = b.label();
    b.bind(again);
    b.call(n, READ, (fd, data, len));
    b.add(total, total, n);
    b.branch(Cmp::Eq, n, len, again);
    b.call_void(CLOSE, (fd,));
    b.exit(total);
    b
}

/// HotOS 2003 §2.4: copy one file to another through a shared buffer,
/// `chunk` bytes at a time, until a short write. Fail-fast, so a failed
/// open ends it. Exits with the number of bytes written.
///
/// ```
/// use cosy_abi::{examples, memfs::{self, MemFs}, Insn, OpResult, Program, Registers, Target};
///
/// let compound = examples::file_copy((0, 0, 8), (0, 8, 8), (1, 0, 64)).build().unwrap();
///
/// let mut backing = vec![0u8; 8 * 1024];
/// let mut fs = MemFs::new(&mut backing, 1024);
/// let original: Vec<u8> = (0..=200).collect();
/// fs.create(b"in", &original).unwrap();
/// let mut names = *b"in\0\0\0\0\0\0out\0\0\0\0\0";
/// let mut buffer = vec![0u8; 64];
/// let target = Target { ops: memfs::OPS, regions: &[16, 64], max_steps: 1_000 };
/// let program = Program::verify(&compound, &target, vec![Insn::EMPTY; 16]).unwrap();
/// let mut results = [OpResult::EMPTY; 16];
/// let mut regions = [&mut names[..], &mut buffer[..]];
/// let report = program.run(&mut fs, &mut regions, &mut Registers::new(), &mut results);
/// assert!(report.is_clean(), "{report}");
/// assert_eq!(report.exit_value, 201);
/// assert_eq!(fs.contents(b"out").unwrap(), &original[..]);
/// ```
pub fn file_copy(from: Place, to: Place, chunk: Place) -> Builder {
    let mut b = Builder::new();
    b.fail_fast(true);
    let (from, to, data, len) = (
        buf(&mut b, from),
        buf(&mut b, to),
        buf(&mut b, chunk),
        chunk.2,
    );
    let (ifd, ofd, r, w, total) = (b.reg(), b.reg(), b.reg(), b.reg(), b.reg());
    b.call(ifd, OPEN, (from, O_RDONLY, 0));
    b.call(ofd, OPEN, (to, O_WRONLY | O_CREAT | O_TRUNC, 0o644));
    let again = b.label();
    b.bind(again);
    b.call(r, READ, (ifd, data, len));
    b.call(w, WRITE, (ofd, data, r));
    b.add(total, total, w);
    b.branch(Cmp::Eq, w, len, again);
    b.call_void(CLOSE, (ifd,));
    b.call_void(CLOSE, (ofd,));
    b.exit(total);
    b
}

/// Multiplier of the examples' random numbers (Knuth's MMIX LCG).
pub const LCG_MUL: u64 = 6_364_136_223_846_793_005;
/// Increment of the examples' random numbers.
pub const LCG_INC: u64 = 1_442_695_040_888_963_407;

/// FSL-02-01 §4.3's database simulation as one prepared compound: for
/// `r0` iterations, pick a random block (an LCG seeded by `r1`, over `r2`
/// blocks of `block` bytes), seek to it and read it; on every second
/// iteration stamp its first byte with the iteration number and write it
/// back (reads : writes = 2 : 1). Exits with the CRC-32C of everything
/// read. Parameters: `r0` iterations, `r1` seed, `r2` blocks in the file.
///
/// ```
/// use cosy_abi::{examples, memfs::{self, MemFs}, Insn, OpResult, Program, Registers, Target};
///
/// let compound = examples::db_loop((0, 0, 8), (0, 64, 32)).build().unwrap();
///
/// let mut backing = vec![0u8; 8 * 1024];
/// let mut fs = MemFs::new(&mut backing, 1024);
/// fs.create(b"db", &[0u8; 1024]).unwrap();
/// let mut region = vec![0u8; 96];
/// region[..2].copy_from_slice(b"db");
/// let target = Target { ops: memfs::OPS, regions: &[96], max_steps: 100_000 };
/// // Verify once...
/// let program = Program::verify(&compound, &target, [Insn::EMPTY; 32]).unwrap();
/// let mut results = [OpResult::EMPTY; 32];
/// // ...run many times with new parameters.
/// for seed in 1..4 {
///     let mut regs = Registers::with_params(&[10, seed, 1024 / 32]).unwrap();
///     let report = program.run(&mut fs, &mut [&mut region[..]], &mut regs, &mut results);
///     assert!(report.is_clean(), "{report}");
/// }
/// assert_eq!(fs.calls(), 3 * (1 + 10 * 2 + 5 * 2 + 1));
/// ```
pub fn db_loop(name: Place, block: Place) -> Builder {
    let mut b = Builder::new();
    b.fail_fast(true).step_budget(u32::MAX);
    let (name, data, len) = (buf(&mut b, name), buf(&mut b, block), block.2);
    // The block's first byte, which odd iterations overwrite.
    let stamp = b.buf(block.0, block.1, 1);
    // r0..r2 are the parameters.
    let (iterations, x, blocks) = (b.reg(), b.reg(), b.reg());
    // In the order the ops first write them, as `cosy!` numbers them.
    let (fd, i, offset, n, crc, odd) = (b.reg(), b.reg(), b.reg(), b.reg(), b.reg(), b.reg());
    b.call(fd, OPEN, (name, O_RDWR, 0));
    b.for_loop(i, 0, Cmp::LtU, iterations, 1, |b| {
        b.mul(x, x, LCG_MUL);
        b.add(x, x, LCG_INC);
        b.shr(offset, x, 33);
        b.rem(offset, offset, blocks);
        b.mul(offset, offset, len);
        b.call_void(SEEK, (fd, offset, 0));
        b.call(n, READ, (fd, data, len));
        b.crc32c(crc, data, n, crc);
        let skip = b.label();
        b.and(odd, i, 1);
        b.branch(Cmp::Eq, odd, 0, skip);
        b.fill(odd, stamp, i, 1);
        b.call_void(SEEK, (fd, offset, 0));
        b.call_void(WRITE, (fd, data, n));
        b.bind(skip);
    });
    b.call_void(CLOSE, (fd,));
    b.exit(crc);
    b
}
