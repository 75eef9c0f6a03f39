//! From inside `/box`, read-write: paths that would leave the root land
//! inside it; names outside cannot be reached to be moved, linked,
//! truncated or removed; the root itself cannot be removed, moved or
//! replaced; `chdir` then `..` stays inside; the link `up -> ../..` is
//! never followed; a compound's rename "out" lands inside too.

use alloc::format;

use conflux_fs_client::Fs;
use conflux_fs_protocol::ops::{O_CREAT, O_TRUNC, O_WRONLY, RENAME};
use conflux_fs_protocol::FsError;
use conflux_userlib::testing::Checks;
use cosy_abi::typed::RunOutcome;
use cosy_abi::Builder;

use crate::{listing, names, outcome, refused};

pub fn run(c: &mut Checks, fs: &mut Fs) {
    landing_inside(c, fs);
    out_of_reach(c, fs);
    the_root(c, fs);
    links(c, fs);
    compound(c, fs);
    c.eq(
        "ls / (/box): every change landed here",
        listing(fs, "/"),
        Ok(names(&[
            "deep",
            "escaped.txt",
            "linked",
            "made",
            "secret.txt",
            "up",
        ])),
    );
}

fn landing_inside(c: &mut Checks, fs: &mut Fs) {
    let wrote = fs
        .open("/../secret.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        .and_then(|fd| fs.write(fd, b"mine"));
    c.eq(
        "create and write /../secret.txt (lands in /box)",
        wrote,
        Ok(4),
    );
    c.eq(
        "rename /seed.txt ../../stolen.txt",
        fs.rename("/seed.txt", "../../stolen.txt"),
        Ok(()),
    );
    c.eq(
        "link /stolen.txt /../../../linked",
        fs.link("/stolen.txt", "/../../../linked"),
        Ok(()),
    );
    c.eq("mkdir ../made", fs.mkdir("../made", 0o755), Ok(()));
    c.eq("chdir /made", fs.chdir("/made"), Ok(()));
    c.eq(
        "mkdir ../../../../deep from /made",
        fs.mkdir("../../../../deep", 0o755),
        Ok(()),
    );
    c.eq(
        "getcwd: /made, from the root",
        fs.getcwd(),
        Ok("/made".into()),
    );
    c.eq("chdir /", fs.chdir("/"), Ok(()));
}

fn out_of_reach(c: &mut Checks, fs: &mut Fs) {
    let no = refused(FsError::NotFound);
    let cases = [
        (
            "rename /../www/index.html /got.html",
            fs.rename("/../www/index.html", "/got.html"),
        ),
        (
            "link ../../www/index.html /hard",
            fs.link("../../www/index.html", "/hard"),
        ),
        ("unlink /../www/leak", fs.unlink("/../www/leak")),
        ("rmdir ../www/sub", fs.rmdir("../www/sub")),
        (
            "truncate /../www/index.html",
            fs.truncate("/../www/index.html", 0),
        ),
    ];
    for (what, got) in cases {
        c.eq(what, got, no);
    }
}

fn the_root(c: &mut Checks, fs: &mut Fs) {
    let no = refused(FsError::Invalid);
    let cases = [
        ("rmdir /", fs.rmdir("/")),
        ("rmdir ..", fs.rmdir("..")),
        ("unlink /..", fs.unlink("/..")),
        ("mkdir /../..", fs.mkdir("/../..", 0o755)),
        ("rename / /made/root", fs.rename("/", "/made/root")),
        ("rename /made ..", fs.rename("/made", "..")),
        ("link /stolen.txt /", fs.link("/stolen.txt", "/")),
    ];
    for (what, got) in cases {
        c.eq(&format!("{what}: the root is no entry"), got, no);
    }
}

fn links(c: &mut Checks, fs: &mut Fs) {
    c.eq(
        "create /up/secret.txt through up -> ../..",
        outcome(fs.open("/up/secret.txt", O_WRONLY | O_CREAT, 0o644)),
        refused(FsError::NotADirectory),
    );
    c.eq(
        "open /up O_WRONLY|O_TRUNC",
        outcome(fs.open("/up", O_WRONLY | O_TRUNC, 0)),
        refused(FsError::Invalid),
    );
    c.eq(
        "truncate /up",
        fs.truncate("/up", 0),
        refused(FsError::Invalid),
    );
    c.eq(
        "mkdir /up/x",
        fs.mkdir("/up/x", 0o755),
        refused(FsError::NotADirectory),
    );
}

fn compound(c: &mut Checks, fs: &mut Fs) {
    let (from, to) = ("/stolen.txt\0", "/../../../escaped.txt\0");
    fs.control()[..from.len()].copy_from_slice(from.as_bytes());
    fs.control()[4096..4096 + to.len()].copy_from_slice(to.as_bytes());
    let mut b = Builder::new();
    b.fail_fast(true);
    let r = b.reg();
    let (a, z) = (
        b.buf(0, 0, from.len() as u32),
        b.buf(0, 4096, to.len() as u32),
    );
    b.call(r, RENAME, (a, z));
    let ran = match b.build() {
        Ok(bytes) => fs.run(&bytes, &[]).map(|r| r.outcome),
        Err(e) => return c.that("build a compound", false, e),
    };
    c.eq(
        "compound: rename /stolen.txt /../../../escaped.txt (lands in /box)",
        ran,
        Ok(RunOutcome::Clean),
    );
}
