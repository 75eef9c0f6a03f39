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
    let compound = cosy!(ops::TABLE => #[fail_fast] |max_chunks| {
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
    let compound = cosy!(ops::TABLE => || {
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
