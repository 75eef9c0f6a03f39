//! The file service under compounds: `ls -l` of a directory as one
//! compound (the recipe clients use), checked entry by entry against the
//! file system; a listing larger than its layout says it was cut; and a
//! compound from one client cannot use another client's handles.

mod support;

use support::common;

use std::collections::BTreeMap;

use common::{Image, Mkfs};
use conflux_fs_core::{Grant, Inodes, Session};
use conflux_fs_protocol::ops::{CLOSE, OPEN, O_RDONLY, READ};
use conflux_fs_protocol::recipes::{list_long, ListLayout, LIST_TRUNCATED};
use conflux_fs_protocol::record::{Dirent, Kind, Stat};
use conflux_fs_protocol::FsError;
use cosy_abi::{code, Builder, Outcome, Report};

struct Run {
    report: Report,
}

/// Runs `compound` for `session` over `region` (the shared harness's).
fn run(
    fs: &mut conflux_fs_core::Files<common::FileDisk>,
    inodes: &mut Inodes,
    session: &mut Session,
    compound: &[u8],
    region: &mut [u8],
) -> Run {
    let report = support::run_compound(fs, inodes, session, compound, region);
    Run { report }
}

fn put_path(region: &mut [u8], at: usize, path: &str) {
    region[at..at + path.len()].copy_from_slice(path.as_bytes());
    region[at + path.len()] = 0;
}

#[test]
fn ls_l_of_a_directory_is_one_compound() {
    let image = Image::new("svc-ls", Mkfs::default());
    let mut fs = support::cached(image.mount());
    fs.mkdir("/many", 0o755).unwrap();
    let mut want = BTreeMap::new();
    for n in 0..300u32 {
        let name = format!("/many/file-{n:03}");
        let st = fs.create(&name, 0o600).unwrap();
        fs.write_at(st.ino, 0, &vec![1u8; n as usize]).unwrap();
        want.insert(format!("file-{n:03}"), u64::from(n));
    }
    fs.mkdir("/many/sub", 0o700).unwrap();
    let layout = ListLayout::packed(0, 0, 400);
    let compound = list_long(layout).unwrap();
    let mut region = vec![0u8; layout.len() as usize];
    put_path(&mut region, 0, "/many");
    let (mut inodes, mut session) = (Inodes::default(), Session::new(Grant::whole_tree()));
    let r = run(&mut fs, &mut inodes, &mut session, &compound, &mut region);
    assert!(r.report.is_clean(), "{:?}", r.report);
    assert_eq!(r.report.exit_value, 301);
    let mut got = BTreeMap::new();
    let mut dirs = 0;
    for i in 0..301usize {
        let e = layout.entries as usize + i * Dirent::SIZE;
        let s = layout.stats as usize + i * Stat::SIZE;
        let d = Dirent::decode(&region[e..]).unwrap();
        let st = Stat::decode(&region[s..]).unwrap();
        assert_eq!(st.ino, u64::from(d.ino), "entry {i}'s stat is its own");
        let name = String::from_utf8(d.name().to_vec()).unwrap();
        if st.kind == Kind::Directory {
            assert_eq!((name.as_str(), st.perm), ("sub", 0o700));
            dirs += 1;
        } else {
            assert_eq!(st.perm, 0o600);
            assert!(got.insert(name, st.size).is_none(), "listed twice");
        }
    }
    assert_eq!((got, dirs), (want, 1));
    assert_eq!(inodes.open_handles(), 0, "the compound closed its handle");
    fs.unmount().unwrap();
    image.fsck();
}

#[test]
fn a_listing_larger_than_its_layout_says_so() {
    let image = Image::new("svc-ls-cut", Mkfs::default());
    let mut fs = support::cached(image.mount());
    for n in 0..100 {
        fs.create(&format!("/f{n}"), 0o644).unwrap();
    }
    let layout = ListLayout::packed(0, 0, 64);
    let mut region = vec![0u8; layout.len() as usize];
    put_path(&mut region, 0, "/");
    let (mut inodes, mut session) = (Inodes::default(), Session::new(Grant::whole_tree()));
    let r = run(
        &mut fs,
        &mut inodes,
        &mut session,
        &list_long(layout).unwrap(),
        &mut region,
    );
    assert!(r.report.is_clean());
    assert_eq!(r.report.exit_value & LIST_TRUNCATED, LIST_TRUNCATED);
    assert_eq!(r.report.exit_value & !LIST_TRUNCATED, 64);
}

#[test]
fn a_missing_directory_stops_the_listing_with_its_code() {
    let image = Image::new("svc-ls-missing", Mkfs::default());
    let mut fs = support::cached(image.mount());
    let layout = ListLayout::packed(0, 0, 8);
    let mut region = vec![0u8; layout.len() as usize];
    put_path(&mut region, 0, "/nowhere");
    let (mut inodes, mut session) = (Inodes::default(), Session::new(Grant::whole_tree()));
    let r = run(
        &mut fs,
        &mut inodes,
        &mut session,
        &list_long(layout).unwrap(),
        &mut region,
    );
    assert_eq!(r.report.outcome, Outcome::Stopped);
    let stop = r.report.stop.unwrap();
    assert_eq!(
        (stop.op, stop.code),
        (Some(0), code::SERVICE | FsError::NotFound.code())
    );
}

#[test]
fn a_compound_cannot_use_another_clients_handles() {
    let image = Image::new("svc-isolation", Mkfs::default());
    let mut fs = support::cached(image.mount());
    let st = fs.create("/secret", 0o600).unwrap();
    fs.write_at(st.ino, 0, b"top secret").unwrap();
    let mut inodes = Inodes::default();
    let (mut owner, mut thief) = (
        Session::new(Grant::whole_tree()),
        Session::new(Grant::whole_tree()),
    );
    // The owner opens the file as a compound that leaves it open.
    let mut b = Builder::new();
    let fd = b.reg();
    let p = b.buf(0, 0, 16);
    b.call(fd, OPEN, (p, O_RDONLY, 0));
    b.exit(fd);
    let mut region = vec![0u8; 4096];
    put_path(&mut region, 0, "/secret");
    let r = run(
        &mut fs,
        &mut inodes,
        &mut owner,
        &b.build().unwrap(),
        &mut region,
    );
    let stolen_fd = r.report.exit_value;
    // The thief tries every handle number the owner might hold.
    let mut b = Builder::new();
    b.fail_fast(false);
    let (h, n) = (b.reg(), b.reg());
    let into = b.buf(0, 1024, 64);
    b.for_loop(h, 0, cosy_abi::Cmp::LtU, 64, 1, |b| {
        b.call(n, READ, (h, into, 64));
        b.call_void(CLOSE, (h,));
    });
    let mut loot = vec![0u8; 4096];
    let r = run(
        &mut fs,
        &mut inodes,
        &mut thief,
        &b.build().unwrap(),
        &mut loot,
    );
    assert_eq!(r.report.failures, 128, "every read and close failed");
    let first = r.report.first_failure.unwrap();
    assert_eq!(first.code, code::SERVICE | FsError::BadHandle.code());
    assert!(loot.iter().all(|b| *b == 0), "nothing was read");
    // The owner's handle still works.
    let mut b = Builder::new();
    let n = b.reg();
    let into = b.buf(0, 1024, 64);
    b.call(n, READ, (stolen_fd, into, 64));
    b.exit(n);
    let r = run(
        &mut fs,
        &mut inodes,
        &mut owner,
        &b.build().unwrap(),
        &mut region,
    );
    assert_eq!(r.report.exit_value, 10);
    assert_eq!(&region[1024..1034], b"top secret");
}
