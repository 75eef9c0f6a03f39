//! The sizes the file server must handle: a directory of 50,000 entries
//! (an HTree index over some 700 blocks, inodes from several groups) and
//! a 64 MiB file, written through the crate, checked by e2fsck and read
//! back after a remount (the file also by the host's debugfs). Each
//! prints its time.
//!
//! The entries are empty files, so the directory's blocks stay
//! contiguous; directories interleaved with file data are tested in
//! `dirs.rs` (`fragmented_directory`, `directories_grown_among_file_data`).

mod common;

use std::time::Instant;

use common::{pattern, Image, Mkfs};

const ENTRIES: usize = 50_000;

fn name(i: usize) -> String {
    format!("entry-{i:05}-{}", "x".repeat(i % 40))
}

#[test]
fn a_directory_of_50000_entries() {
    let start = Instant::now();
    let img = Image::new(
        "a_directory_of_50000_entries",
        Mkfs {
            size_mib: 128,
            inodes: Some(ENTRIES as u32 + 1000),
            ..Mkfs::default()
        },
    );
    let mut fs = img.mount();
    fs.mkdir("/many", 0o755).unwrap();
    for i in 0..ENTRIES {
        let path = format!("/many/{}", name(i));
        fs.create(&path, 0o644)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    fs.unmount().unwrap();
    img.fsck();

    let mut fs = img.mount();
    let dir = fs.lookup("/many").unwrap();
    let mut listed: Vec<String> = fs
        .read_dir_all(dir.ino)
        .unwrap()
        .into_iter()
        .map(|e| String::from_utf8(e.name).unwrap())
        .collect();
    listed.sort();
    let mut want: Vec<String> = (0..ENTRIES).map(name).collect();
    want.sort();
    assert!(
        listed == want,
        "listed {} names, want {}",
        listed.len(),
        want.len()
    );
    // Removing a slice of them keeps the index consistent.
    for i in (0..ENTRIES).step_by(97) {
        let path = format!("/many/{}", name(i));
        fs.unlink(&path).unwrap();
    }
    assert!(fs.lookup(&format!("/many/{}", name(ENTRIES - 1))).is_ok());
    fs.unmount().unwrap();
    img.fsck();
    println!("50,000 entries: {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn a_file_of_64_mib() {
    const MIB: usize = 1 << 20;
    let start = Instant::now();
    let img = Image::new(
        "a_file_of_64_mib",
        Mkfs {
            size_mib: 128,
            ..Mkfs::default()
        },
    );
    let mut fs = img.mount();
    let f = fs.create("/big", 0o644).unwrap();
    let mut crc = crc32fast::Hasher::new();
    for i in 0..64 {
        let chunk = pattern(i, MIB);
        crc.update(&chunk);
        fs.write_at(f.ino, u64::from(i) * MIB as u64, &chunk)
            .unwrap();
    }
    let want = crc.finalize();
    fs.unmount().unwrap();
    img.fsck();

    let mut fs = img.mount();
    assert_eq!(fs.lookup("/big").unwrap().size, 64 * MIB as u64);
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0; MIB];
    for i in 0..64u64 {
        assert_eq!(fs.read_at(f.ino, i * MIB as u64, &mut buf).unwrap(), MIB);
        crc.update(&buf);
    }
    assert_eq!(crc.finalize(), want, "read back through the crate");
    fs.unmount().unwrap();
    assert_eq!(
        crc32fast::hash(&img.debugfs_cat("/big")),
        want,
        "read back by debugfs"
    );
    println!("64 MiB file: {:.1} s", start.elapsed().as_secs_f64());
}
