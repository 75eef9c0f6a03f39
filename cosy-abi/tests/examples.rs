//! The Cosy papers' examples against the in-memory file service, each
//! checked against the same work done one call at a time (the papers'
//! VAN configuration) through the same `Service::call`.

use cosy_abi::examples::{self, LCG_INC, LCG_MUL};
use cosy_abi::memfs::{self, MemFs, ENOENT};
use cosy_abi::{
    code, crc32c, Args, Fault, Insn, OpResult, Outcome, Program, Registers, Report, Service, Target,
};

const SLOT: usize = 16 * 1024;

fn fs(backing: &mut [u8]) -> MemFs<'_> {
    MemFs::new(backing, SLOT)
}

fn pattern(len: usize, seed: u64) -> Vec<u8> {
    (0..len as u64)
        .map(|i| (i.wrapping_mul(seed | 1) >> 3) as u8)
        .collect()
}

fn run(
    compound: &[u8],
    fs: &mut MemFs<'_>,
    regions: &mut [&mut [u8]],
    params: &[u64],
) -> (Report, Vec<OpResult>) {
    let lens: Vec<usize> = regions.iter().map(|r| r.len()).collect();
    let target = Target {
        ops: memfs::OPS,
        regions: &lens,
        max_steps: 1_000_000,
    };
    let program = Program::verify(compound, &target, vec![Insn::EMPTY; 64]).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut regs = Registers::with_params(params).unwrap();
    let report = program.run(fs, regions, &mut regs, &mut results);
    (report, results)
}

/// One operand of a direct call.
enum V {
    N(u64),
    B(usize, usize, usize),
}
use V::{B, N};

/// One direct call, the VAN way.
fn call(fs: &mut MemFs<'_>, regions: &mut [&mut [u8]], op: u16, operands: &[V]) -> u64 {
    let mut args = Args::new(regions);
    for operand in operands {
        args = match *operand {
            N(v) => args.with_value(v),
            B(region, offset, len) => args.with_buf(region, offset, len).unwrap(),
        };
    }
    fs.call(op, &mut args).unwrap()
}

#[test]
fn read_loop_reads_to_the_end_and_closes() {
    for (len, reads) in [(1000usize, 16u32), (1024, 17), (0, 1)] {
        let mut backing = vec![0u8; 8 * SLOT];
        let mut fs = fs(&mut backing);
        fs.create(b"file", &pattern(len, 3)).unwrap();
        let mut region = [0u8; 128];
        region[..4].copy_from_slice(b"file");
        let compound = examples::read_loop((0, 0, 16), (0, 64, 64))
            .build()
            .unwrap();
        let (report, results) = run(&compound, &mut fs, &mut [&mut region[..]], &[]);
        assert!(report.is_clean(), "{report}");
        assert_eq!(report.exit_value, len as u64);
        assert_eq!(results[1].runs, reads, "reads of a {len}-byte file");
        assert_eq!(fs.open_fds(), 0);
        assert_eq!(fs.calls(), u64::from(reads) + 2);
        let tail = len % 64;
        if tail != 0 {
            assert_eq!(&region[64..64 + tail], &pattern(len, 3)[len - tail..]);
        }
    }
}

#[test]
fn read_loop_of_a_missing_file_fails_op_zero_and_carries_on() {
    let mut backing = vec![0u8; 8 * SLOT];
    let mut fs = fs(&mut backing);
    let mut region = [0u8; 128];
    region[..4].copy_from_slice(b"none");
    let compound = examples::read_loop((0, 0, 16), (0, 64, 64))
        .build()
        .unwrap();
    let (report, results) = run(&compound, &mut fs, &mut [&mut region[..]], &[]);
    assert_eq!(report.outcome, Outcome::Finished);
    assert_eq!(
        report.first_failure,
        Some(Fault {
            op: Some(0),
            code: code::SERVICE | ENOENT
        })
    );
    // open, read (bad fd) and close (bad fd) fail; the loop does not spin.
    assert_eq!(report.failures, 3);
    assert_eq!(results[1].runs, 1);
}

#[test]
fn file_copy_matches_copying_call_by_call() {
    let original = pattern(5000, 7);
    let names = b"src\0\0\0\0\0dst\0\0\0\0\0";
    let compound = examples::file_copy((0, 0, 8), (0, 8, 8), (1, 0, 512))
        .build()
        .unwrap();

    let mut backing = vec![0u8; 8 * SLOT];
    let mut cosy = fs(&mut backing);
    cosy.create(b"src", &original).unwrap();
    let (mut n, mut buffer) = (*names, vec![0u8; 512]);
    let (report, _) = run(
        &compound,
        &mut cosy,
        &mut [&mut n[..], &mut buffer[..]],
        &[],
    );
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.exit_value, 5000);
    assert_eq!(cosy.contents(b"dst").unwrap(), &original[..]);

    let mut backing = vec![0u8; 8 * SLOT];
    let mut van = fs(&mut backing);
    van.create(b"src", &original).unwrap();
    let (mut n, mut buffer) = (*names, vec![0u8; 512]);
    let regions = &mut [&mut n[..], &mut buffer[..]];
    let ifd = call(
        &mut van,
        regions,
        memfs::OPEN,
        &[B(0, 0, 8), N(memfs::O_RDONLY), N(0)],
    );
    let ofd = call(
        &mut van,
        regions,
        memfs::OPEN,
        &[B(0, 8, 8), N(memfs::O_WRONLY | memfs::O_CREAT), N(0)],
    );
    loop {
        let r = call(
            &mut van,
            regions,
            memfs::READ,
            &[N(ifd), B(1, 0, 512), N(512)],
        );
        let w = call(
            &mut van,
            regions,
            memfs::WRITE,
            &[N(ofd), B(1, 0, 512), N(r)],
        );
        if w != 512 {
            break;
        }
    }
    call(&mut van, regions, memfs::CLOSE, &[N(ifd)]);
    call(&mut van, regions, memfs::CLOSE, &[N(ofd)]);
    assert_eq!(van.contents(b"dst"), cosy.contents(b"dst"));
    assert_eq!(van.calls(), cosy.calls());
}

#[test]
fn file_copy_stops_at_a_failed_open_in_fail_fast_mode() {
    let mut backing = vec![0u8; 8 * SLOT];
    let mut fs = fs(&mut backing);
    let (mut names, mut buffer) = (*b"src\0\0\0\0\0dst\0\0\0\0\0", vec![0u8; 64]);
    let compound = examples::file_copy((0, 0, 8), (0, 8, 8), (1, 0, 64))
        .build()
        .unwrap();
    let (report, results) = run(
        &compound,
        &mut fs,
        &mut [&mut names[..], &mut buffer[..]],
        &[],
    );
    assert_eq!(report.outcome, Outcome::Stopped);
    assert_eq!(
        report.stop,
        Some(Fault {
            op: Some(0),
            code: code::SERVICE | ENOENT
        })
    );
    assert_eq!((report.steps, results[1].runs), (1, 0));
    assert!(fs.contents(b"dst").is_none());
}

/// The database loop one call at a time; returns the CRC of all reads.
fn db_van(fs: &mut MemFs<'_>, region: &mut [u8], iterations: u64, seed: u64, blocks: u64) -> u64 {
    const BLOCK: u64 = 64;
    let regions = &mut [region];
    let fd = call(
        fs,
        regions,
        memfs::OPEN,
        &[B(0, 0, 8), N(memfs::O_RDWR), N(0)],
    );
    let (mut x, mut crc) = (seed, 0u32);
    for i in 0..iterations {
        x = x.wrapping_mul(LCG_MUL).wrapping_add(LCG_INC);
        let offset = ((x >> 33) % blocks) * BLOCK;
        call(fs, regions, memfs::SEEK, &[N(fd), N(offset), N(0)]);
        let n = call(
            fs,
            regions,
            memfs::READ,
            &[N(fd), B(0, 64, BLOCK as usize), N(BLOCK)],
        );
        crc = crc32c(crc, &regions[0][64..64 + n as usize]);
        if i & 1 == 1 {
            regions[0][64] = i as u8;
            call(fs, regions, memfs::SEEK, &[N(fd), N(offset), N(0)]);
            call(
                fs,
                regions,
                memfs::WRITE,
                &[N(fd), B(0, 64, BLOCK as usize), N(n)],
            );
        }
    }
    call(fs, regions, memfs::CLOSE, &[N(fd)]);
    u64::from(crc)
}

#[test]
fn database_loop_is_one_prepared_compound_matching_van() {
    let compound = examples::db_loop((0, 0, 8), (0, 64, 64)).build().unwrap();
    let blocks = 40u64;
    let contents = pattern(64 * blocks as usize, 11);
    let (mut cosy_backing, mut van_backing) = (vec![0u8; 8 * SLOT], vec![0u8; 8 * SLOT]);
    let mut cosy = fs(&mut cosy_backing);
    let mut van = fs(&mut van_backing);
    cosy.create(b"db", &contents).unwrap();
    van.create(b"db", &contents).unwrap();
    let mut region = vec![0u8; 128];
    region[..2].copy_from_slice(b"db");
    let mut van_region = region.clone();

    let target = Target {
        ops: memfs::OPS,
        regions: &[128],
        max_steps: 1_000_000,
    };
    let program = Program::verify(&compound, &target, [Insn::EMPTY; 32]).unwrap();
    let mut results = [OpResult::EMPTY; 32];
    for (iterations, seed) in [(100u64, 1u64), (37, 99), (0, 5)] {
        let mut regs = Registers::with_params(&[iterations, seed, blocks]).unwrap();
        let report = program.run(&mut cosy, &mut [&mut region[..]], &mut regs, &mut results);
        assert!(report.is_clean(), "{report}");
        let expected = db_van(&mut van, &mut van_region, iterations, seed, blocks);
        assert_eq!(
            report.exit_value, expected,
            "{iterations} iterations, seed {seed}"
        );
        assert_eq!(cosy.contents(b"db"), van.contents(b"db"));
        assert_eq!(cosy.calls(), van.calls());
    }
    // 137 iterations: 68 of them wrote, so the 2:1 ratio held.
    assert_ne!(cosy.contents(b"db").unwrap(), &contents[..]);
}
