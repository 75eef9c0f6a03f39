//! Writes the seed corpus of the `verify_exec` fuzz target: small valid
//! compounds that together use every op, in the target's setup (region 0
//! of 256 bytes holding the names "in" at 0, "out" at 16 and "db" at 32;
//! region 1 of 4096 bytes).
//!
//! `cargo run -p cosy-abi --example fuzz_seeds [DIR]`; DIR defaults to
//! `cosy-abi/fuzz/corpus/verify_exec`.

use std::path::PathBuf;

use cosy_abi::{examples, BuildError, Builder, Cmp};

/// Arithmetic, a switch, and a division by zero in continue mode.
fn arithmetic() -> Builder {
    let mut b = Builder::new();
    let (p0, p1, p2) = (b.reg(), b.reg(), b.reg());
    let (x, y) = (b.reg(), b.reg());
    b.add(x, p0, p1)
        .sub(y, x, p2)
        .mul(x, x, y)
        .div(y, x, 3)
        .rem(y, y, 0);
    b.and(x, x, 0xFF)
        .or(x, x, 0x100)
        .xor(x, x, p2)
        .shl(x, x, 3)
        .shr(y, x, 70);
    let (one, two, out) = (b.label(), b.label(), b.label());
    b.switch(p0, &[one, two], out);
    b.bind(one);
    b.mov(y, 1).jump(out);
    b.bind(two);
    b.mov(y, 2);
    b.bind(out);
    b.for_loop(x, 0, Cmp::LtS, 5, 1, |b| {
        b.add(y, y, x);
    });
    b.exit(y);
    b
}

/// Every data op on region 1.
fn data_ops() -> Builder {
    let mut b = Builder::new();
    let a = b.buf(1, 0, 512);
    let c = b.buf(1, 512, 512);
    let needle = b.buf(1, 7, 3);
    let r = b.reg();
    b.fill(r, a, 0x41, 256)
        .copy(r, c, a, 512)
        .memcmp(r, a, c, 512);
    b.search(r, a, needle, 512).crc32c(r, a, 512, 0).exit(r);
    b
}

/// A register-relative buffer walking region 1.
fn walking_buffer() -> Builder {
    let mut b = Builder::new();
    let (off, sum) = (b.reg(), b.reg());
    let window = b.buf_at(1, off, 0, 64);
    b.for_loop(off, 0, Cmp::LtU, 4096, 64, |b| {
        b.crc32c(sum, window, 64, sum);
    });
    b.exit(sum);
    b
}

fn main() -> Result<(), BuildError> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/verify_exec")
        });
    std::fs::create_dir_all(&dir).expect("create the corpus directory");
    let seeds = [
        ("read_loop", examples::read_loop((0, 0, 16), (1, 0, 512))),
        (
            "file_copy",
            examples::file_copy((0, 0, 16), (0, 16, 16), (1, 0, 512)),
        ),
        ("db_loop", examples::db_loop((0, 32, 16), (1, 512, 256))),
        ("arithmetic", arithmetic()),
        ("data_ops", data_ops()),
        ("walking_buffer", walking_buffer()),
    ];
    for (name, builder) in seeds {
        let bytes = builder.build()?;
        std::fs::write(dir.join(format!("seed-{name}")), &bytes).expect("write a seed");
        println!("{name}: {} bytes", bytes.len());
    }
    Ok(())
}
