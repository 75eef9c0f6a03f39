//! The README's example against the file server's real op table: a path
//! two modules deep (`ops::TABLE` -> `ops::OPEN`), a builtin in the loop,
//! a prepared parameter; built here and checked op by op.

use conflux_fs_protocol::ops::{self, O_RDONLY};
use cosy_abi::wire::{Kind, Opcode};
use cosy_abi::{Insn, Program, Target};
use cosy_macro::cosy;

#[test]
fn grep_compound_for_the_file_server() {
    // Counts "needle" in a file, 4 KiB at a time; r0 caps the chunks.
    let compound = cosy!(ops::TABLE, |max_chunks| {
        #![fail_fast]
        let path = buf(0, 0, 64);
        let needle = buf(0, 64, 6);
        let data = buf(0, 4096, 4096);
        let fd = open(path, O_RDONLY, 0);
        let mut hits = 0;
        for _ in 0..max_chunks {
            let n = read(fd, data, 4096);
            if n == 0 {
                break;
            }
            hits += search(data, needle, n);
        }
        close(fd);
        hits
    });
    let (reprs, refs) = compound.reprs().unwrap();
    let code = |i: usize| Opcode::from_u8(reprs[i].code).unwrap();
    let calls: Vec<u16> = reprs
        .iter()
        .filter(|op| op.code == Opcode::Call as u8)
        .map(|op| op.sub)
        .collect();
    assert_eq!(calls, [ops::OPEN, ops::READ, ops::CLOSE]);
    assert_eq!(refs.len(), 3);
    assert_eq!(reprs[0].operands[0].kind, Kind::Ref);
    use Opcode::*;
    let codes: Vec<Opcode> = (0..reprs.len()).map(code).collect();
    // OPEN; MOV, BR (entry); READ, BR (n == 0), SEARCH, ADD; LOOP; CLOSE; EXIT.
    assert_eq!(
        codes,
        [Call, Mov, Br, Call, Br, Search, Add, Loop, Call, Exit]
    );
    // And the file server's verifier takes it.
    let bytes = compound.build().unwrap();
    let target = Target {
        ops: ops::TABLE,
        regions: &[8192],
        max_steps: 1 << 20,
    };
    assert!(Program::verify(&bytes, &target, [Insn::EMPTY; 16]).is_ok());
}

#[test]
fn the_file_servers_errors_are_named_in_a_compound() {
    // Creates the file if opening it failed because it is missing.
    let compound = cosy!(ops::TABLE, || {
        let path = buf(0, 0, 64);
        let mut fd = open(path, O_RDONLY, 0);
        if is_err(fd, NOT_FOUND) {
            fd = open(path, O_RDONLY | ops::O_CREAT, 0o644);
        }
        fd
    });
    let (reprs, _) = compound.reprs().unwrap();
    let br = reprs
        .iter()
        .find(|op| op.code == Opcode::Br as u8)
        .expect("a branch");
    let code = cosy_abi::code::SERVICE | conflux_fs_protocol::FsError::NotFound.code();
    assert_eq!(br.operands[1].value, 0u64.wrapping_sub(u64::from(code)));
}

/// The README's example (`### Compounds with cosy!`), on a region of the
/// control region's size; its op sequence checked where it matters.
#[test]
fn the_readme_example_builds_with_an_arena_and_failure_tests() {
    let mut control = vec![0u8; 64 * 1024];
    let mut arena = cosy_abi::Arena::new(0, &mut control[..16 * 1024]).unwrap();
    let names = arena.table(&["/a.txt", "/b.txt", "/c.txt"]).unwrap();
    let word = arena.bytes(b"needle").unwrap();
    let chunk = arena.buffer(4096).unwrap();
    let compound = cosy!(ops::TABLE, || {
        let needle = buf(word);
        let data = buf(chunk);
        let mut at = 0;
        let path = buf_at(names.first, at); // table entry `at`
        let mut hits = 0;
        let mut missing = 0;
        for _ in 0..names.count {
            let fd = open(path, O_RDONLY, 0); // ops::OPEN
            if is_err(fd, NOT_FOUND) {
                // ops::errors::NOT_FOUND
                missing += 1;
            } else if is_ok(fd) {
                loop {
                    let n = read(fd, data, 4096);
                    if n == 0 || is_err(n) {
                        break;
                    }
                    hits += search(data, needle, n); // a builtin: runs in the server
                }
                close(fd);
            }
            at += names.stride;
        }
        hits | missing << 32 // the exit value
    });
    let (reprs, refs) = compound.reprs().unwrap();
    // The path moves with `at`; the others are fixed where the arena put them.
    assert_eq!(refs.len(), 3);
    assert_eq!((refs[0].offset, refs[0].len), (word.offset, 6));
    assert_ne!(refs[2].offset_reg, 0xFF);
    assert_eq!(refs[2].offset, names.first.offset);
    // `is_err(fd, NOT_FOUND)` is one BR EQ against -(0x8000 | 2); `is_err(n)` a signed BR.
    let not_found = 0u64.wrapping_sub(u64::from(cosy_abi::code::SERVICE | 2));
    assert!(reprs
        .iter()
        .any(|op| op.code == Opcode::Br as u8 && op.operands[1].value == not_found));
    assert!(reprs
        .iter()
        .any(|op| op.code == Opcode::Br as u8 && op.sub == cosy_abi::Cmp::LtS as u16));
    let bytes = compound.build().unwrap();
    let target = Target {
        ops: ops::TABLE,
        regions: &[control.len()],
        max_steps: 1000,
    };
    assert!(Program::verify(&bytes, &target, [Insn::EMPTY; 64]).is_ok());
}
