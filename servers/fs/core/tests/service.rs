//! The file operations (`FileService`) on a real ext4 image made by the
//! host's mke2fs: every operation through the per-call path (`Args` built
//! as the server's IPC path builds them) and through a compound, checked
//! against debugfs and e2fsck afterwards; the specific error for each bad
//! request; and that clients cannot reach each other's handles.

mod support;

use conflux_fs_protocol::ops::*;
use conflux_fs_protocol::record::{DirentPlus, Kind, Stat};
use conflux_fs_protocol::FsError;
use cosy_abi::CallError;
use support::common::pattern;
use support::{fail, path, setup, Client, O, REGION};

#[test]
fn files_round_trip_through_the_per_call_path_and_are_e2fsck_clean() {
    let (image, mut s) = setup("svc-files");
    let mut c = Client::new();
    let p = path(&mut c, 0, "/notes.txt");
    let fd = s
        .call(&mut c, OPEN, &[p, O::V(O_RDWR | O_CREAT), O::V(0o640)])
        .unwrap();
    let data = pattern(3, 100_000);
    c.region[4096..4096 + data.len()].copy_from_slice(&data);
    assert_eq!(
        s.call(
            &mut c,
            WRITE,
            &[O::V(fd), O::B(4096, data.len()), O::V(data.len() as u64)]
        ),
        Ok(data.len() as u64)
    );
    // The position moved to the end; reading there gives 0.
    assert_eq!(
        s.call(&mut c, READ, &[O::V(fd), O::B(200_000, 100), O::V(100)]),
        Ok(0)
    );
    assert_eq!(
        s.call(&mut c, SEEK, &[O::V(fd), O::V(10), O::V(SEEK_SET)]),
        Ok(10)
    );
    assert_eq!(
        s.call(&mut c, READ, &[O::V(fd), O::B(200_000, 50), O::V(50)]),
        Ok(50)
    );
    assert_eq!(&c.region[200_000..200_050], &data[10..60]);
    assert_eq!(
        s.call(
            &mut c,
            SEEK,
            &[O::V(fd), O::V(-5i64 as u64), O::V(SEEK_END)]
        ),
        Ok(99_995)
    );
    // pwrite over the start; pread it back; the position stays.
    c.region[8..12].copy_from_slice(b"ABCD");
    assert_eq!(
        s.call(&mut c, PWRITE, &[O::V(fd), O::B(8, 4), O::V(4), O::V(0)]),
        Ok(4)
    );
    assert_eq!(
        s.call(&mut c, PREAD, &[O::V(fd), O::B(16, 8), O::V(8), O::V(0)]),
        Ok(8)
    );
    assert_eq!(
        &c.region[16..24],
        &[b'A', b'B', b'C', b'D', data[4], data[5], data[6], data[7]]
    );
    assert_eq!(
        s.call(&mut c, SEEK, &[O::V(fd), O::V(0), O::V(SEEK_CUR)]),
        Ok(99_995)
    );
    assert_eq!(s.call(&mut c, FSTAT, &[O::V(fd), O::B(1024, 64)]), Ok(0));
    let st = Stat::decode(&c.region[1024..]).unwrap();
    assert_eq!((st.size, st.perm, st.links), (100_000, 0o640, 1));
    // Append mode writes at the end whatever the position.
    let p = path(&mut c, 0, "/notes.txt");
    let app = s
        .call(&mut c, OPEN, &[p, O::V(O_WRONLY | O_APPEND), O::V(0)])
        .unwrap();
    c.region[8..11].copy_from_slice(b"END");
    assert_eq!(
        s.call(&mut c, WRITE, &[O::V(app), O::B(8, 3), O::V(3)]),
        Ok(3)
    );
    assert_eq!(s.call(&mut c, FSYNC, &[O::V(app)]), Ok(0));
    assert_eq!(s.call(&mut c, CLOSE, &[O::V(fd)]), Ok(0));
    assert_eq!(s.call(&mut c, CLOSE, &[O::V(app)]), Ok(0));
    s.fs.unmount().unwrap();
    image.fsck();
    let mut want = data.clone();
    want[..4].copy_from_slice(b"ABCD");
    want.extend_from_slice(b"END");
    assert_eq!(image.debugfs_cat("/notes.txt"), want);
}

#[test]
fn names_directories_and_the_current_directory() {
    let (image, mut s) = setup("svc-names");
    let mut c = Client::new();
    let p = path(&mut c, 0, "/d");
    assert_eq!(s.call(&mut c, MKDIR, &[p, O::V(0o755)]), Ok(0));
    let p = path(&mut c, 0, "/d");
    assert_eq!(s.call(&mut c, CHDIR, &[p]), Ok(0));
    // Relative names now land in /d.
    let p = path(&mut c, 0, "a");
    let fd = s
        .call(&mut c, OPEN, &[p, O::V(O_WRONLY | O_CREAT), O::V(0o644)])
        .unwrap();
    s.call(&mut c, CLOSE, &[O::V(fd)]).unwrap();
    let (from, to) = (path(&mut c, 0, "a"), path(&mut c, 100, "../b"));
    assert_eq!(s.call(&mut c, RENAME, &[from, to]), Ok(0));
    let (old, new) = (path(&mut c, 0, "/b"), path(&mut c, 100, "/d/hard"));
    assert_eq!(s.call(&mut c, LINK, &[old, new]), Ok(0));
    let p = path(&mut c, 0, "/b");
    assert_eq!(s.call(&mut c, STAT, &[p, O::B(512, 64)]), Ok(0));
    assert_eq!(Stat::decode(&c.region[512..]).unwrap().links, 2);
    let p = path(&mut c, 0, "/b");
    assert_eq!(s.call(&mut c, TRUNCATE, &[p, O::V(5000)]), Ok(0));
    assert_eq!(s.call(&mut c, GETCWD, &[O::B(600, 100)]), Ok(2));
    assert_eq!(&c.region[600..602], b"/d");
    let p = path(&mut c, 0, "/");
    assert_eq!(s.call(&mut c, CHDIR, &[p]), Ok(0));
    let p = path(&mut c, 0, "d/hard");
    assert_eq!(s.call(&mut c, UNLINK, &[p]), Ok(0));
    let p = path(&mut c, 0, "d");
    assert_eq!(s.call(&mut c, RMDIR, &[p]), Ok(0));
    assert_eq!(s.call(&mut c, STATFS, &[O::B(700, 40)]), Ok(0));
    s.fs.unmount().unwrap();
    image.fsck();
    assert_eq!(image.debugfs_cat("/b"), vec![0u8; 5000]);
}

/// An operand of a table-driven case: a path is placed when it is sent.
enum A {
    P(&'static str),
    Long(usize),
    V(u64),
    B(usize, usize),
}

#[test]
fn every_bad_request_gets_its_own_code() {
    let (image, mut s) = setup("svc-errors");
    let mut c = Client::new();
    let p = path(&mut c, 0, "/f");
    let fd = s
        .call(&mut c, OPEN, &[p, O::V(O_RDONLY | O_CREAT), O::V(0o644)])
        .unwrap();
    c.region[4000..4002].copy_from_slice(&[0xff, 0xfe]);
    s.fs.mkdir("/full", 0o755).unwrap();
    s.fs.create("/full/x", 0o644).unwrap();
    let p = path(&mut c, 0, "/full");
    let dir = s
        .call(&mut c, OPEN, &[p, O::V(O_RDONLY | O_DIRECTORY), O::V(0)])
        .unwrap();
    use A::*;
    let cases: Vec<(&str, u16, Vec<A>, FsError)> = vec![
        (
            "missing file",
            OPEN,
            vec![P("/nope"), V(0), V(0)],
            FsError::NotFound,
        ),
        (
            "exclusive create",
            OPEN,
            vec![P("/f"), V(O_CREAT | O_EXCL | O_WRONLY), V(0)],
            FsError::Exists,
        ),
        (
            "unknown flag",
            OPEN,
            vec![P("/f"), V(1 << 40), V(0)],
            FsError::Invalid,
        ),
        (
            "access mode 3",
            OPEN,
            vec![P("/f"), V(3), V(0)],
            FsError::Invalid,
        ),
        (
            "truncate read-only",
            OPEN,
            vec![P("/f"), V(O_TRUNC), V(0)],
            FsError::Invalid,
        ),
        (
            "directory for writing",
            OPEN,
            vec![P("/"), V(O_WRONLY), V(0)],
            FsError::IsADirectory,
        ),
        (
            "O_DIRECTORY on a file",
            OPEN,
            vec![P("/f"), V(O_DIRECTORY), V(0)],
            FsError::NotADirectory,
        ),
        (
            "through a file",
            STAT,
            vec![P("/f/x"), B(2048, 64)],
            FsError::NotADirectory,
        ),
        (
            "empty path",
            STAT,
            vec![B(100, 0), B(2048, 64)],
            FsError::NotFound,
        ),
        (
            "stat buffer too small",
            STAT,
            vec![P("/f"), B(2048, 63)],
            FsError::BadBuffer,
        ),
        (
            "bad handle",
            READ,
            vec![V(99), B(2048, 8), V(8)],
            FsError::BadHandle,
        ),
        ("huge handle", CLOSE, vec![V(u64::MAX)], FsError::BadHandle),
        (
            "length past the buffer",
            READ,
            vec![V(fd), B(2048, 8), V(9)],
            FsError::BadBuffer,
        ),
        (
            "write on a read-only handle",
            WRITE,
            vec![V(fd), B(2048, 8), V(8)],
            FsError::BadHandle,
        ),
        (
            "seek before the start",
            SEEK,
            vec![V(fd), V(-1i64 as u64), V(SEEK_SET)],
            FsError::Invalid,
        ),
        (
            "bad whence",
            SEEK,
            vec![V(fd), V(0), V(7)],
            FsError::Invalid,
        ),
        (
            "mkdir existing",
            MKDIR,
            vec![P("/f"), V(0o755)],
            FsError::Exists,
        ),
        ("rmdir a file", RMDIR, vec![P("/f")], FsError::NotADirectory),
        ("rmdir the root", RMDIR, vec![P("/")], FsError::Invalid),
        (
            "unlink missing",
            UNLINK,
            vec![P("/nope")],
            FsError::NotFound,
        ),
        (
            "unlink a directory",
            UNLINK,
            vec![P("/full")],
            FsError::IsADirectory,
        ),
        (
            "rmdir not empty",
            RMDIR,
            vec![P("/full")],
            FsError::NotEmpty,
        ),
        (
            "name too long",
            MKDIR,
            vec![Long(256), V(0o755)],
            FsError::NameTooLong,
        ),
        (
            "path too long",
            STAT,
            vec![Long(5000), B(2048, 64)],
            FsError::NameTooLong,
        ),
        (
            "not UTF-8",
            MKDIR,
            vec![B(4000, 2), V(0o755)],
            FsError::Invalid,
        ),
        (
            "readdir on a file",
            READDIR,
            vec![V(fd), B(2048, 1024), V(1024)],
            FsError::NotADirectory,
        ),
        (
            "readdirplus on a file",
            READDIRPLUS,
            vec![V(fd), B(2048, 1024), V(1024)],
            FsError::NotADirectory,
        ),
        (
            "readdirplus buffer smaller than one entry",
            READDIRPLUS,
            vec![V(dir), B(2048, 327), V(327)],
            FsError::BadBuffer,
        ),
        (
            "chdir to a file",
            CHDIR,
            vec![P("/f")],
            FsError::NotADirectory,
        ),
        (
            "getcwd buffer too small",
            GETCWD,
            vec![B(2048, 0)],
            FsError::BadBuffer,
        ),
        (
            "statfs buffer too small",
            STATFS,
            vec![B(2048, 39)],
            FsError::BadBuffer,
        ),
        (
            "ftruncate read-only",
            FTRUNCATE,
            vec![V(fd), V(0)],
            FsError::BadHandle,
        ),
    ];
    for (what, op, operands, want) in cases {
        let mut at = 8192;
        let operands: Vec<O> = operands
            .iter()
            .map(|a| match *a {
                P(text) => {
                    let o = path(&mut c, at, text);
                    at += 8192;
                    o
                }
                Long(n) => {
                    let text = format!("/{}", "n".repeat(n));
                    c.region[at..at + text.len()].copy_from_slice(text.as_bytes());
                    let o = O::B(at, text.len());
                    at += 8192;
                    o
                }
                V(v) => O::V(v),
                B(off, len) => O::B(off, len),
            })
            .collect();
        assert_eq!(s.call(&mut c, op, &operands), fail(want), "{what}");
    }
    // An op number past the table is refused as such.
    assert_eq!(
        s.call(&mut c, 200, &[]),
        Err(CallError::UnknownOp { opcode: 200 }.code())
    );
    // A buffer operand outside the region never reaches the service.
    assert_eq!(
        s.call(&mut c, READ, &[O::V(fd), O::B(REGION - 4, 8), O::V(8)]),
        Err(CallError::OutOfBounds.code())
    );
    s.fs.unmount().unwrap();
    image.fsck();
}

#[test]
fn readdirplus_lists_each_entry_with_the_status_statat_gives() {
    let (image, mut s) = setup("svc-readdirplus");
    let mut c = Client::new();
    s.fs.mkdir("/d", 0o755).unwrap();
    for n in 0..40u32 {
        let st = s.fs.create(&format!("/d/file-{n:02}"), 0o640).unwrap();
        s.fs.write_at(st.ino, 0, &pattern(n, n as usize * 100))
            .unwrap();
    }
    s.fs.mkdir("/d/sub", 0o700).unwrap();
    let p = path(&mut c, 0, "/d");
    let dir = s
        .call(&mut c, OPEN, &[p, O::V(O_RDONLY | O_DIRECTORY), O::V(0)])
        .unwrap();
    // Room for 16 entries a call: three calls, then 0 at the end.
    let (out, len) = (8192, 16 * DirentPlus::SIZE);
    let mut seen = Vec::new();
    loop {
        let n = s
            .call(
                &mut c,
                READDIRPLUS,
                &[O::V(dir), O::B(out, len), O::V(len as u64)],
            )
            .unwrap() as usize;
        if n == 0 {
            break;
        }
        assert!(n <= 16);
        for i in 0..n {
            let at = out + i * DirentPlus::SIZE;
            let e = DirentPlus::decode(&c.region[at..at + DirentPlus::SIZE]).unwrap();
            seen.push(e);
        }
    }
    assert_eq!(seen.len(), 41, "every entry once, no `.` or `..`");
    for e in &seen {
        // The status is the one `statat` gives for the entry's name.
        let name = std::str::from_utf8(e.dirent.name()).unwrap().to_owned();
        let p = path(&mut c, 0, &name);
        let st = O::B(4096, Stat::SIZE);
        s.call(&mut c, STATAT, &[O::V(dir), p, st]).unwrap();
        let want = Stat::decode(&c.region[4096..4096 + Stat::SIZE]).unwrap();
        assert_eq!(e.stat, want, "{name}");
        assert_eq!(e.stat.ino, u64::from(e.dirent.ino));
    }
    let sub = seen.iter().find(|e| e.dirent.name() == b"sub").unwrap();
    assert_eq!((sub.stat.kind, sub.stat.perm), (Kind::Directory, 0o700));
    let f7 = seen.iter().find(|e| e.dirent.name() == b"file-07").unwrap();
    assert_eq!((f7.stat.size, f7.stat.perm), (700, 0o640));
    s.fs.unmount().unwrap();
    image.fsck();
}
