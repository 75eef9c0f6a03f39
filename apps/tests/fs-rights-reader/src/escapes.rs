//! Every way out of `/www` a path could take: `..` at and below the root,
//! absolute paths, names of the disk's other directories, `chdir` then
//! `..`, `statat` from a directory handle, and symbolic links pointing up
//! (`up -> ..`), to the top (`abs -> /`) and at the file outside
//! (`leak -> ../secret.txt`), which the server never follows.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use conflux_fs_client::{Fd, Fs};
use conflux_fs_protocol::ops::{AT_CWD, O_DIRECTORY, O_RDONLY};
use conflux_fs_protocol::record::Kind;
use conflux_fs_protocol::FsError;
use conflux_userlib::testing::Checks;

use crate::{kind, outcome, refused};

/// Paths that would name `/secret.txt` or `/box` if they left the root.
const ESCAPES: [&str; 8] = [
    "/secret.txt",
    "../secret.txt",
    "../../../secret.txt",
    "/../secret.txt",
    "sub/../../secret.txt",
    "/./.././secret.txt",
    "/box/seed.txt",
    "../box/seed.txt",
];

pub fn run(c: &mut Checks, fs: &mut Fs) {
    c.eq("getcwd at the start: the root", fs.getcwd(), Ok("/".into()));
    c.eq(
        "stat /index.html (inside)",
        kind(fs, "/index.html"),
        Ok(Kind::File),
    );
    for p in ESCAPES {
        let not_found = refused(FsError::NotFound);
        c.eq(&format!("stat {p}"), outcome(fs.stat(p)), not_found);
        c.eq(
            &format!("open {p}"),
            outcome(fs.open(p, O_RDONLY, 0)),
            not_found,
        );
    }
    c.eq(
        "stat /www/index.html: /www is no name inside /www",
        outcome(fs.stat("/www/index.html")),
        refused(FsError::NotFound),
    );
    c.eq(
        "`..` at the root is the root",
        kind(fs, "../index.html"),
        Ok(Kind::File),
    );
    c.eq(
        "ls /.. lists the root",
        listing(fs, "/.."),
        Ok(names(&["abs", "index.html", "leak", "sub", "up"])),
    );
    directories(c, fs);
    statat(c, fs);
    links(c, fs);
}

fn directories(c: &mut Checks, fs: &mut Fs) {
    c.eq("chdir ..", fs.chdir(".."), Ok(()));
    c.eq(
        "getcwd after chdir ..: still the root",
        fs.getcwd(),
        Ok("/".into()),
    );
    c.eq(
        "stat secret.txt from there",
        outcome(fs.stat("secret.txt")),
        refused(FsError::NotFound),
    );
    c.eq("chdir sub", fs.chdir("sub"), Ok(()));
    c.eq(
        "getcwd in sub: from the root, not /www/sub",
        fs.getcwd(),
        Ok("/sub".into()),
    );
    c.eq("chdir ../../..", fs.chdir("../../.."), Ok(()));
    c.eq("getcwd after ../../..", fs.getcwd(), Ok("/".into()));
}

fn statat(c: &mut Checks, fs: &mut Fs) {
    let root = match fs.open("/", O_RDONLY | O_DIRECTORY, 0) {
        Ok(fd) => fd,
        Err(e) => return c.that("open / as a directory", false, e),
    };
    c.eq(
        "statat(/, index.html)",
        fs.statat(root, b"index.html").map(|s| s.kind),
        Ok(Kind::File),
    );
    for dir in [root, Fd(AT_CWD)] {
        for name in ["..", "../secret.txt", "sub/../.."] {
            let got = outcome(fs.statat(dir, name.as_bytes()));
            c.eq(
                &format!("statat({}, {name})", dir.0 as i64),
                got,
                refused(FsError::Invalid),
            );
        }
    }
    c.eq(
        "statat(/, secret.txt)",
        outcome(fs.statat(root, b"secret.txt")),
        refused(FsError::NotFound),
    );
    let _ = fs.close(root);
}

fn links(c: &mut Checks, fs: &mut Fs) {
    for link in ["/up", "/abs"] {
        c.eq(
            &format!("stat {link}: the link itself"),
            kind(fs, link),
            Ok(Kind::Symlink),
        );
        let through = format!("{link}/secret.txt");
        c.eq(
            &format!("stat {through}: never followed"),
            outcome(fs.stat(&through)),
            refused(FsError::NotADirectory),
        );
        c.eq(
            &format!("chdir {link}"),
            fs.chdir(link),
            refused(FsError::NotADirectory),
        );
    }
    let mut buf = [0u8; 256];
    let read = fs
        .open("/leak", O_RDONLY, 0)
        .and_then(|fd| fs.read(fd, &mut buf));
    c.eq(
        "read /leak: a link is no file, its target's bytes never come",
        outcome(read),
        refused(FsError::Invalid),
    );
}

/// The names of the directory `path`, sorted.
fn listing(fs: &mut Fs, path: &str) -> Result<Vec<String>, conflux_fs_client::Error> {
    let fd = fs.open(path, O_RDONLY | O_DIRECTORY, 0)?;
    let mut all = Vec::new();
    loop {
        let page = fs.readdir(fd)?;
        if page.is_empty() {
            break;
        }
        all.extend(
            page.iter()
                .map(|d| String::from_utf8_lossy(d.name()).into_owned()),
        );
    }
    fs.close(fd)?;
    all.sort();
    Ok(all)
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|n| String::from(*n)).collect()
}
