//! The Cosy papers' examples written with `cosy!` build the very same
//! compounds as cosy-abi's hand-built ones (`cosy_abi::examples`), and
//! run to the same results on the reference interpreter and `MemFs`.

use cosy_abi::examples::{self, Place, LCG_INC, LCG_MUL};
use cosy_abi::memfs::{self, MemFs, O_CREAT, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY};
use cosy_abi::{Builder, Insn, OpResult, Program, Registers, Report, Target};
use cosy_macro::cosy;

/// FSL-02-01 §2.7: read a file in chunks until a short read.
fn read_loop(name_at: Place, chunk: Place) -> Builder {
    let len = chunk.2;
    cosy!(memfs::OPS, || {
        let name = buf(name_at);
        let data = buf(chunk);
        let fd = open(name, O_RDONLY, 0);
        let mut total = 0;
        loop {
            let n = read(fd, data, len);
            total += n;
            if n != len {
                break;
            }
        }
        close(fd);
        total
    })
}

/// HotOS 2003 §2.4: copy a file through a shared buffer.
fn file_copy(from_at: Place, to_at: Place, chunk: Place) -> Builder {
    let len = chunk.2;
    cosy!(memfs::OPS, || {
        #![fail_fast]
        let from = buf(from_at.0, from_at.1, from_at.2);
        let to = buf(to_at.0, to_at.1, to_at.2);
        let data = buf(chunk.0, chunk.1, chunk.2);
        let ifd = open(from, O_RDONLY, 0);
        let ofd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0o644);
        let mut total = 0;
        loop {
            let r = read(ifd, data, len);
            let w = write(ofd, data, r);
            total += w;
            if w != len {
                break;
            }
        }
        close(ifd);
        close(ofd);
        total
    })
}

/// FSL-02-01 §4.3: the database simulation, a prepared compound whose
/// parameters are the iteration count, the seed and the file's blocks.
fn db_loop(name_at: Place, block: Place) -> Builder {
    let len = block.2;
    cosy!(memfs::OPS, |iterations, mut x, blocks| {
        #![fail_fast]
        #![step_budget(u32::MAX)]
        let name = buf(name_at);
        let data = buf(block);
        let stamp = buf(block.0, block.1, 1);
        let fd = open(name, O_RDWR, 0);
        let mut crc = 0;
        for i in 0..iterations {
            x = x * LCG_MUL + LCG_INC;
            let offset = (x >> 33) % blocks * len;
            seek(fd, offset, 0);
            let n = read(fd, data, len);
            crc = crc32c(data, n, crc);
            if i & 1 != 0 {
                fill(stamp, i, 1);
                seek(fd, offset, 0);
                write(fd, data, n);
            }
        }
        close(fd);
        crc
    })
}

fn bytes(b: Builder) -> Vec<u8> {
    b.build().expect("the compound builds")
}

#[test]
fn read_loop_is_the_hand_built_compound() {
    for (name, chunk) in [
        ((0, 0, 16), (0, 64, 32)),
        ((0, 0, 16), (1, 0, 512)),
        ((2, 8, 3), (0, 4096, 4096)),
    ] {
        let (hand, ours) = (examples::read_loop(name, chunk), read_loop(name, chunk));
        assert_eq!(
            hand.reprs().unwrap(),
            ours.reprs().unwrap(),
            "{name:?} {chunk:?}"
        );
        assert_eq!(bytes(hand), bytes(ours));
    }
}

#[test]
fn file_copy_is_the_hand_built_compound() {
    for (from, to, chunk) in [
        ((0, 0, 8), (0, 8, 8), (1, 0, 64)),
        ((0, 0, 16), (0, 16, 16), (1, 0, 512)),
    ] {
        let (hand, ours) = (
            examples::file_copy(from, to, chunk),
            file_copy(from, to, chunk),
        );
        assert_eq!(hand.reprs().unwrap(), ours.reprs().unwrap());
        assert_eq!(bytes(hand), bytes(ours));
    }
}

#[test]
fn db_loop_is_the_hand_built_compound() {
    for (name, block) in [((0, 0, 8), (0, 64, 32)), ((0, 32, 16), (1, 512, 256))] {
        let (hand, ours) = (examples::db_loop(name, block), db_loop(name, block));
        assert_eq!(hand.reprs().unwrap(), ours.reprs().unwrap());
        assert_eq!(bytes(hand), bytes(ours));
    }
}

/// Everything a run leaves behind that the app can see.
#[derive(Debug, PartialEq)]
struct Outcome {
    report: Report,
    results: Vec<OpResult>,
    regions: Vec<Vec<u8>>,
    files: Vec<Option<Vec<u8>>>,
    calls: u64,
}

/// Runs `compound` on a fresh `MemFs` holding `files`, with `regions`.
fn run(
    compound: &[u8],
    files: &[(&[u8], Vec<u8>)],
    mut regions: Vec<Vec<u8>>,
    params: &[u64],
) -> Outcome {
    let mut backing = vec![0u8; 8 * 16 * 1024];
    let mut fs = MemFs::new(&mut backing, 16 * 1024);
    for (name, data) in files {
        fs.create(name, data).unwrap();
    }
    let lens: Vec<usize> = regions.iter().map(Vec::len).collect();
    let target = Target {
        ops: memfs::OPS,
        regions: &lens,
        max_steps: 1_000_000,
    };
    let program = Program::verify(compound, &target, vec![Insn::EMPTY; 64]).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut regs = Registers::with_params(params).unwrap();
    let mut views: Vec<&mut [u8]> = regions.iter_mut().map(Vec::as_mut_slice).collect();
    let report = program.run(&mut fs, &mut views, &mut regs, &mut results);
    let names: [&[u8]; 3] = [b"in", b"out", b"db"];
    Outcome {
        report,
        files: names
            .iter()
            .map(|n| fs.contents(n).map(<[u8]>::to_vec))
            .collect(),
        calls: fs.calls(),
        results,
        regions,
    }
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

#[test]
fn read_loop_runs_as_the_hand_built_one_does() {
    for len in [0, 31, 32, 1000] {
        let files = [(&b"in"[..], pattern(len))];
        let mut region = vec![0u8; 96];
        region[..2].copy_from_slice(b"in");
        let run_of = |b: Builder| run(&bytes(b), &files, vec![region.clone()], &[]);
        let ours = run_of(read_loop((0, 0, 16), (0, 64, 32)));
        assert!(ours.report.is_clean(), "{}", ours.report);
        assert_eq!(ours.report.exit_value, len as u64);
        assert_eq!(ours, run_of(examples::read_loop((0, 0, 16), (0, 64, 32))));
    }
}

#[test]
fn file_copy_runs_as_the_hand_built_one_does() {
    for len in [0, 64, 200, 5000] {
        let files = [(&b"in"[..], pattern(len))];
        let names = b"in\0\0\0\0\0\0out\0\0\0\0\0".to_vec();
        let run_of = |b: Builder| run(&bytes(b), &files, vec![names.clone(), vec![0; 64]], &[]);
        let ours = run_of(file_copy((0, 0, 8), (0, 8, 8), (1, 0, 64)));
        assert!(ours.report.is_clean(), "{}", ours.report);
        assert_eq!(ours.files[1].as_deref(), Some(&pattern(len)[..]));
        assert_eq!(
            ours,
            run_of(examples::file_copy((0, 0, 8), (0, 8, 8), (1, 0, 64)))
        );
    }
    // A failed open stops both at the same op (fail-fast).
    let run_of = |b: Builder| {
        run(
            &bytes(b),
            &[],
            vec![b"nope\0\0\0\0out\0\0\0\0\0".to_vec(), vec![0; 64]],
            &[],
        )
    };
    let ours = run_of(file_copy((0, 0, 8), (0, 8, 8), (1, 0, 64)));
    assert!(!ours.report.is_clean());
    assert_eq!(
        ours,
        run_of(examples::file_copy((0, 0, 8), (0, 8, 8), (1, 0, 64)))
    );
}

#[test]
fn db_loop_runs_as_the_hand_built_one_does() {
    let files = [(&b"db"[..], pattern(4096))];
    let mut region = vec![0u8; 128];
    region[..2].copy_from_slice(b"db");
    for (iterations, seed) in [(0, 1), (1, 5), (10, 7), (100, 42)] {
        let params = [iterations, seed, 4096 / 32];
        let run_of = |b: Builder| run(&bytes(b), &files, vec![region.clone()], &params);
        let ours = run_of(db_loop((0, 0, 8), (0, 64, 32)));
        assert!(ours.report.is_clean(), "{}", ours.report);
        assert_eq!(ours.calls, 2 + iterations * 2 + iterations / 2 * 2);
        assert_eq!(ours, run_of(examples::db_loop((0, 0, 8), (0, 64, 32))));
    }
}
