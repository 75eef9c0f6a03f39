//! File rights, attacked: a client confined to `/www` read-only and one
//! confined to `/box` read-write try every way out of their roots — `..`
//! at and below the root, absolute paths, symbolic links pointing up and
//! to `/` (made by mke2fs from a host folder; the server never follows
//! them), hard links and renames across the boundary, `chdir` then `..`,
//! `statat` relative to a directory handle — and every change a read-only
//! client could make, per call and inside compounds. Each gets its exact
//! result, and afterwards everything outside the roots is as mke2fs made
//! it (read by the host's debugfs) and e2fsck finds the image clean.

mod support;

use std::os::unix::fs::symlink;
use std::path::Path;

use conflux_fs_core::{Access, Grant};
use conflux_fs_protocol::ops::*;
use conflux_fs_protocol::record::{Dirent, Kind, Stat};
use conflux_fs_protocol::FsError;
use cosy_abi::{Builder, CallError, Fault, Outcome};
use support::common::{scratch, Image, Mkfs};
use support::{fail, path, setup_with, Client, Server, O};

const SECRET: &[u8] = b"outside the roots: no confined client may see or change this\n";
const INDEX: &[u8] = b"<h1>inside /www</h1>\n";

/// The host folder the image is made from.
fn tree(test: &str) -> std::path::PathBuf {
    // Not the image's own scratch directory, which `Image::new` empties.
    let dir = scratch(&format!("{test}-tree"));
    let write = |p: &str, data: &[u8]| {
        let at = dir.join(p);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, data).unwrap();
    };
    write("secret.txt", SECRET);
    write("www/index.html", INDEX);
    write("www/sub/page.txt", b"a page\n");
    write("box/seed.txt", b"seed\n");
    let link = |target: &str, at: &str| symlink(target, dir.join(at)).unwrap();
    link("..", "www/up");
    link("/", "www/abs");
    link("../secret.txt", "www/leak");
    link("../..", "box/up");
    dir
}

fn server(test: &str) -> (Image, Server) {
    let folder = tree(test);
    setup_with(
        test,
        Mkfs {
            folder: Some(Path::new(&folder)),
            ..Mkfs::default()
        },
    )
}

fn reader() -> Client {
    Client::with(Grant::new("/www", Access::ReadOnly).unwrap())
}

fn writer() -> Client {
    Client::with(Grant::new("/box", Access::ReadWrite).unwrap())
}

/// `stat(p)`: the kind, or the error code.
fn stat(s: &mut Server, c: &mut Client, p: &str) -> Result<Kind, u16> {
    let at = path(c, 0, p);
    s.call(c, STAT, &[at, O::B(8192, Stat::SIZE)])?;
    Ok(Stat::decode(&c.region[8192..]).unwrap().kind)
}

fn open(s: &mut Server, c: &mut Client, p: &str, flags: u64) -> Result<u64, u16> {
    let at = path(c, 0, p);
    s.call(c, OPEN, &[at, O::V(flags), O::V(0o644)])
}

fn getcwd(s: &mut Server, c: &mut Client) -> String {
    let n = s.call(c, GETCWD, &[O::B(8192, 4096)]).unwrap() as usize;
    String::from_utf8(c.region[8192..8192 + n].to_vec()).unwrap()
}

fn chdir(s: &mut Server, c: &mut Client, p: &str) -> Result<u64, u16> {
    let at = path(c, 0, p);
    s.call(c, CHDIR, &[at])
}

/// The names `readdir` gives for handle `fd`, sorted.
fn names(s: &mut Server, c: &mut Client, fd: u64) -> Vec<String> {
    let n = s
        .call(
            c,
            READDIR,
            &[
                O::V(fd),
                O::B(16384, 64 * Dirent::SIZE),
                O::V(64 * Dirent::SIZE as u64),
            ],
        )
        .unwrap() as usize;
    let mut out: Vec<String> = (0..n)
        .map(|i| {
            let d = Dirent::decode(&c.region[16384 + i * Dirent::SIZE..]).unwrap();
            String::from_utf8(d.name().to_vec()).unwrap()
        })
        .collect();
    out.sort();
    out
}

/// `op(a, b)` on two paths.
fn two(s: &mut Server, c: &mut Client, op: u16, a: &str, b: &str) -> Result<u64, u16> {
    let (a, b) = (path(c, 0, a), path(c, 4096, b));
    s.call(c, op, &[a, b])
}

/// `op(p, value)` or `op(p)`.
fn one(s: &mut Server, c: &mut Client, op: u16, p: &str, value: Option<u64>) -> Result<u64, u16> {
    let p = path(c, 0, p);
    match value {
        Some(v) => s.call(c, op, &[p, O::V(v)]),
        None => s.call(c, op, &[p]),
    }
}

/// Everything outside the roots is as mke2fs made it, and the image is
/// clean.
fn outside_untouched(image: &Image, s: Server) {
    s.fs.unmount().unwrap();
    assert_eq!(image.debugfs_cat("/secret.txt"), SECRET);
    assert_eq!(image.debugfs_cat("/www/index.html"), INDEX);
    let listing = image.debugfs("ls -l /");
    let text = String::from_utf8_lossy(&listing.stdout);
    for name in ["secret.txt", "www", "box", "lost+found"] {
        assert!(text.contains(name), "{name} is gone from /:\n{text}");
    }
    let links = image.debugfs("stat /secret.txt");
    assert!(
        String::from_utf8_lossy(&links.stdout).contains("Links: 1"),
        "a hard link to /secret.txt was made"
    );
    image.fsck();
}

#[test]
fn no_path_leads_a_client_out_of_its_root() {
    let (image, mut s) = server("rights-paths");
    let mut c = reader();
    assert_eq!(stat(&mut s, &mut c, "/index.html"), Ok(Kind::File));
    assert_eq!(stat(&mut s, &mut c, "sub/page.txt"), Ok(Kind::File));
    let not_found = fail(FsError::NotFound).map(|_| Kind::File);
    for escape in [
        "/secret.txt",
        "../secret.txt",
        "../../../secret.txt",
        "/../secret.txt",
        "sub/../../secret.txt",
        "/./.././secret.txt",
        "/www/index.html",
        "/box/seed.txt",
        "../box/seed.txt",
    ] {
        assert_eq!(stat(&mut s, &mut c, escape), not_found, "stat {escape}");
        let opened = open(&mut s, &mut c, escape, O_RDONLY);
        assert_eq!(opened, fail(FsError::NotFound), "open {escape}");
    }
    // `..` at the root is the root, as in a chroot.
    assert_eq!(stat(&mut s, &mut c, ".."), Ok(Kind::Directory));
    assert_eq!(stat(&mut s, &mut c, "../index.html"), Ok(Kind::File));
    let fd = open(&mut s, &mut c, "/..", O_RDONLY | O_DIRECTORY).unwrap();
    assert_eq!(
        names(&mut s, &mut c, fd),
        ["abs", "index.html", "leak", "sub", "up"]
    );
    image.fsck();
}

#[test]
fn the_current_directory_never_leaves_the_root_nor_shows_it() {
    let (image, mut s) = server("rights-cwd");
    let mut c = reader();
    assert_eq!(getcwd(&mut s, &mut c), "/");
    assert_eq!(chdir(&mut s, &mut c, ".."), Ok(0));
    assert_eq!(getcwd(&mut s, &mut c), "/", "not /www's parent");
    assert_eq!(
        stat(&mut s, &mut c, "secret.txt"),
        fail(FsError::NotFound).map(|_| Kind::File)
    );
    assert_eq!(chdir(&mut s, &mut c, "sub"), Ok(0));
    assert_eq!(
        getcwd(&mut s, &mut c),
        "/sub",
        "the path from the root, not /www/sub"
    );
    assert_eq!(chdir(&mut s, &mut c, "../../.."), Ok(0));
    assert_eq!(getcwd(&mut s, &mut c), "/");
    assert_eq!(stat(&mut s, &mut c, "index.html"), Ok(Kind::File));
    assert_eq!(chdir(&mut s, &mut c, "/up"), fail(FsError::NotADirectory));
    image.fsck();
}

#[test]
fn statat_takes_one_name_never_a_way_up() {
    let (image, mut s) = server("rights-statat");
    let mut c = reader();
    let root = open(&mut s, &mut c, "/", O_RDONLY | O_DIRECTORY).unwrap();
    let mut statat = |c: &mut Client, dirfd: u64, name: &str| {
        let at = path(c, 0, name);
        s.call(c, STATAT, &[O::V(dirfd), at, O::B(8192, Stat::SIZE)])
    };
    assert_eq!(statat(&mut c, root, "index.html"), Ok(0));
    for up in ["..", "../secret.txt", "/secret.txt", "sub/../.."] {
        assert_eq!(statat(&mut c, root, up), fail(FsError::Invalid), "{up}");
        assert_eq!(statat(&mut c, AT_CWD, up), fail(FsError::Invalid), "{up}");
    }
    assert_eq!(statat(&mut c, root, "secret.txt"), fail(FsError::NotFound));
    image.fsck();
}

#[test]
fn symbolic_links_are_never_followed() {
    let (image, mut s) = server("rights-symlinks");
    let mut c = reader();
    for (link, through) in [("/up", "/up/secret.txt"), ("/abs", "/abs/secret.txt")] {
        assert_eq!(stat(&mut s, &mut c, link), Ok(Kind::Symlink), "{link}");
        let e = fail(FsError::NotADirectory);
        assert_eq!(
            stat(&mut s, &mut c, through),
            e.map(|_| Kind::File),
            "{through}"
        );
        assert_eq!(chdir(&mut s, &mut c, link), e, "chdir {link}");
        let dir = open(&mut s, &mut c, link, O_RDONLY | O_DIRECTORY);
        assert_eq!(dir, e, "open {link} as a directory");
    }
    // The link itself opens, but is no file to read: its target's bytes
    // never come back.
    let fd = open(&mut s, &mut c, "/leak", O_RDONLY).unwrap();
    assert_eq!(
        s.call(&mut c, READ, &[O::V(fd), O::B(8192, 4096), O::V(4096)]),
        fail(FsError::Invalid)
    );
    // Nor does a read-write client write through one.
    let mut w = writer();
    assert_eq!(
        open(&mut s, &mut w, "/up/secret.txt", O_WRONLY | O_CREAT),
        fail(FsError::NotADirectory)
    );
    assert_eq!(
        open(&mut s, &mut w, "/up", O_WRONLY | O_TRUNC),
        fail(FsError::Invalid)
    );
    assert_eq!(
        one(&mut s, &mut w, TRUNCATE, "/up", Some(0)),
        fail(FsError::Invalid)
    );
    let fd = open(&mut s, &mut w, "/up", O_WRONLY).unwrap();
    w.region[8192..8200].copy_from_slice(b"mischief");
    assert_eq!(
        s.call(&mut w, WRITE, &[O::V(fd), O::B(8192, 8), O::V(8)]),
        fail(FsError::Invalid)
    );
    assert_eq!(
        one(&mut s, &mut w, MKDIR, "/up/x", Some(0o755)),
        fail(FsError::NotADirectory)
    );
    outside_untouched(&image, s);
}

#[test]
fn a_read_only_client_is_refused_every_change() {
    let (image, mut s) = server("rights-read-only");
    let mut c = reader();
    let refused = fail(FsError::ReadOnlyClient);
    for flags in [
        O_WRONLY,
        O_RDWR,
        O_RDONLY | O_CREAT,
        O_WRONLY | O_CREAT | O_EXCL,
        O_RDWR | O_TRUNC,
    ] {
        for p in ["/index.html", "/new.txt"] {
            assert_eq!(
                open(&mut s, &mut c, p, flags),
                refused,
                "open {p} {flags:#x}"
            );
        }
    }
    assert_eq!(one(&mut s, &mut c, MKDIR, "/d", Some(0o755)), refused);
    assert_eq!(one(&mut s, &mut c, RMDIR, "/sub", None), refused);
    assert_eq!(one(&mut s, &mut c, UNLINK, "/index.html", None), refused);
    assert_eq!(one(&mut s, &mut c, UNLINK, "/leak", None), refused);
    assert_eq!(
        one(&mut s, &mut c, TRUNCATE, "/index.html", Some(0)),
        refused
    );
    assert_eq!(
        two(&mut s, &mut c, RENAME, "/index.html", "/moved"),
        refused
    );
    assert_eq!(two(&mut s, &mut c, LINK, "/index.html", "/again"), refused);
    let fd = open(&mut s, &mut c, "/index.html", O_RDONLY).unwrap();
    c.region[8192..8196].copy_from_slice(b"evil");
    assert_eq!(
        s.call(&mut c, WRITE, &[O::V(fd), O::B(8192, 4), O::V(4)]),
        refused
    );
    assert_eq!(
        s.call(&mut c, PWRITE, &[O::V(fd), O::B(8192, 4), O::V(4), O::V(0)]),
        refused
    );
    assert_eq!(s.call(&mut c, FTRUNCATE, &[O::V(fd), O::V(0)]), refused);
    // Reading, and writing back what others changed, stay open to it.
    let n = s.call(&mut c, READ, &[O::V(fd), O::B(8192, 4096), O::V(4096)]);
    assert_eq!(n, Ok(INDEX.len() as u64));
    assert_eq!(s.call(&mut c, FSYNC, &[O::V(fd)]), Ok(0));
    assert_eq!(s.call(&mut c, SYNC, &[]), Ok(0));
    assert_eq!(s.call(&mut c, STATFS, &[O::B(8192, 4096)]), Ok(0));
    let www = image.debugfs("ls /www");
    outside_untouched(&image, s);
    let after = String::from_utf8_lossy(&www.stdout).into_owned();
    for gone in ["new.txt", "moved", "again", " d "] {
        assert!(!after.contains(gone), "{gone} was made in /www:\n{after}");
    }
    assert_eq!(image.debugfs_cat("/www/index.html"), INDEX);
}

#[test]
fn a_read_write_client_changes_only_what_is_under_its_root() {
    let (image, mut s) = server("rights-read-write");
    let mut c = writer();
    // Paths that would leave the root land inside it.
    let fd = open(
        &mut s,
        &mut c,
        "/../secret.txt",
        O_WRONLY | O_CREAT | O_TRUNC,
    )
    .unwrap();
    c.region[8192..8196].copy_from_slice(b"mine");
    assert_eq!(
        s.call(&mut c, WRITE, &[O::V(fd), O::B(8192, 4), O::V(4)]),
        Ok(4)
    );
    assert_eq!(
        two(&mut s, &mut c, RENAME, "/seed.txt", "../../stolen.txt"),
        Ok(0)
    );
    assert_eq!(
        two(&mut s, &mut c, LINK, "/stolen.txt", "/../../../linked"),
        Ok(0)
    );
    assert_eq!(one(&mut s, &mut c, MKDIR, "../made", Some(0o755)), Ok(0));
    // Names outside cannot be reached to be moved, linked or removed.
    let missing = fail(FsError::NotFound);
    assert_eq!(
        two(&mut s, &mut c, RENAME, "/../www/index.html", "/got.html"),
        missing
    );
    assert_eq!(
        two(&mut s, &mut c, LINK, "../../www/index.html", "/hard"),
        missing
    );
    assert_eq!(one(&mut s, &mut c, UNLINK, "/../www/leak", None), missing);
    assert_eq!(one(&mut s, &mut c, RMDIR, "../www/sub", None), missing);
    assert_eq!(
        one(&mut s, &mut c, TRUNCATE, "/../www/index.html", Some(0)),
        missing
    );
    // The root itself is no entry: it cannot be removed, moved or replaced.
    let invalid = fail(FsError::Invalid);
    assert_eq!(one(&mut s, &mut c, RMDIR, "/", None), invalid);
    assert_eq!(one(&mut s, &mut c, RMDIR, "..", None), invalid);
    assert_eq!(one(&mut s, &mut c, UNLINK, "/..", None), invalid);
    assert_eq!(one(&mut s, &mut c, MKDIR, "/../..", Some(0o755)), invalid);
    assert_eq!(two(&mut s, &mut c, RENAME, "/", "/made/root"), invalid);
    assert_eq!(two(&mut s, &mut c, RENAME, "/made", ".."), invalid);
    assert_eq!(two(&mut s, &mut c, LINK, "/stolen.txt", "/"), invalid);
    // chdir, then `..` past the root: still inside.
    assert_eq!(chdir(&mut s, &mut c, "/made"), Ok(0));
    assert_eq!(
        one(&mut s, &mut c, MKDIR, "../../../../deep", Some(0o755)),
        Ok(0)
    );
    assert_eq!(getcwd(&mut s, &mut c), "/made");
    let fd = open(&mut s, &mut c, "/", O_RDONLY | O_DIRECTORY).unwrap();
    assert_eq!(
        names(&mut s, &mut c, fd),
        ["deep", "linked", "made", "secret.txt", "stolen.txt", "up"]
    );
    outside_untouched(&image, s);
    assert_eq!(image.debugfs_cat("/box/secret.txt"), b"mine");
    assert_eq!(image.debugfs_cat("/box/linked"), b"seed\n");
}

/// Runs `b` (fail-fast) for `c`: how it stopped.
fn compound(s: &mut Server, c: &mut Client, b: &mut Builder) -> (Outcome, Option<Fault>) {
    b.fail_fast(true);
    let report = s.run(c, &b.build().unwrap());
    (report.outcome, report.stop)
}

fn stopped_at(op: u16, e: FsError) -> (Outcome, Option<Fault>) {
    let code = CallError::from(e).code();
    (Outcome::Stopped, Some(Fault { op: Some(op), code }))
}

#[test]
fn compounds_are_held_to_the_same_rights() {
    let (image, mut s) = server("rights-compounds");
    let mut c = reader();
    path(&mut c, 0, "../../secret.txt");
    path(&mut c, 4096, "/index.html");
    let (secret, index, out) = (0, 4096, 8192);
    let mut b = Builder::new();
    let r = b.reg();
    let (inside, outside, st) = (
        b.buf(0, index, 12),
        b.buf(0, secret, 17),
        b.buf(0, out, 128),
    );
    b.call(r, STAT, (inside, st));
    b.call(r, OPEN, (outside, O_RDONLY, 0u64));
    assert_eq!(
        compound(&mut s, &mut c, &mut b),
        stopped_at(1, FsError::NotFound)
    );
    let mut b = Builder::new();
    let (r, inside) = (b.reg(), b.buf(0, index, 12));
    b.call(r, UNLINK, (inside,));
    assert_eq!(
        compound(&mut s, &mut c, &mut b),
        stopped_at(0, FsError::ReadOnlyClient)
    );
    let mut b = Builder::new();
    let (r, inside) = (b.reg(), b.buf(0, index, 12));
    b.call(r, OPEN, (inside, O_RDWR, 0u64));
    assert_eq!(
        compound(&mut s, &mut c, &mut b),
        stopped_at(0, FsError::ReadOnlyClient)
    );
    let mut w = writer();
    path(&mut w, 0, "/seed.txt");
    path(&mut w, 4096, "/../../../escaped.txt");
    let mut b = Builder::new();
    let (r, from, to) = (b.reg(), b.buf(0, 0, 10), b.buf(0, 4096, 22));
    b.call(r, RENAME, (from, to));
    b.exit(r);
    let (outcome, stop) = compound(&mut s, &mut w, &mut b);
    assert_eq!((outcome, stop), (Outcome::Finished, None));
    outside_untouched(&image, s);
    assert_eq!(image.debugfs_cat("/box/escaped.txt"), b"seed\n");
}
