//! The word count as an app writes it: names in a table, a
//! needle and a data buffer placed by an `Arena` (no offset computed by
//! hand), a loop over the table with `buf_at(table.first, at)`, and
//! missing files told apart with `is_err(fd, ENOENT)`; run on cosy-abi's
//! executor over memfs.

use cosy_abi::memfs::{self, MemFs, O_RDONLY};
use cosy_abi::{Arena, Insn, OpResult, Program, Registers, Target};
use cosy_macro::cosy;

#[test]
fn counting_a_word_over_a_table_of_files_some_missing() {
    let mut region = [0u8; 256];
    let mut arena = Arena::new(0, &mut region).unwrap();
    let names = arena.table(&["a", "missing", "c"]).unwrap();
    let needle = arena.bytes(b"word").unwrap();
    let data = arena.buffer(64).unwrap();
    let len = data.len;

    // Exit value: hits + 1000 * missing files.
    let compound = cosy!(memfs::OPS, || {
        let needle = buf(needle);
        let data = buf(data);
        let mut at = 0;
        let name = buf_at(names.first, at);
        let mut hits = 0;
        let mut missing = 0;
        for _ in 0..names.count {
            let fd = open(name, O_RDONLY, 0);
            if is_err(fd, ENOENT) {
                missing += 1;
            } else if is_ok(fd) {
                let n = read(fd, data, len);
                hits += search(data, needle, n);
                close(fd);
            }
            at += names.stride;
        }
        hits + 1000 * missing
    });
    let bytes = compound.build().unwrap();

    let mut backing = [0u8; 1024];
    let mut fs = MemFs::new(&mut backing, 128);
    fs.create(b"a", b"a word, then another word").unwrap();
    fs.create(b"c", b"no match here; word").unwrap();
    let target = Target {
        ops: memfs::OPS,
        regions: &[region.len()],
        max_steps: 10_000,
    };
    let program = Program::verify(&bytes, &target, [Insn::EMPTY; 64]).unwrap();
    let mut results = [OpResult::EMPTY; 64];
    let report = program.run(
        &mut fs,
        &mut [&mut region[..]],
        &mut Registers::new(),
        &mut results,
    );
    assert_eq!(report.exit_value, 1003, "{report}");
    assert_eq!(report.failures, 1);
}
