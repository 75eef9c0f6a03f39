//! File round trips: create, grow, truncate and delete files through the
//! crate, then let the host's e2fsck judge the image and its debugfs read
//! the contents back; and files the host put in with `mke2fs -d` read
//! back exactly through the crate.

mod common;

use common::{pattern, read_all, scratch, Image, Mkfs};
use conflux_ext4::{Error, FileType};

#[test]
fn files_grow_shrink_and_go() {
    let img = Image::new("files_grow_shrink_and_go", Mkfs::default());
    let mut fs = img.mount();
    let before = fs.stats().free_blocks;
    let f = fs.create("/f", 0o640).unwrap();
    assert_eq!(
        (f.kind, f.perm, f.size, f.links),
        (FileType::File, 0o640, 0, 1)
    );

    // Written in pieces, with a hole between the second and third.
    let mut want = pattern(1, 10_000);
    fs.write_at(f.ino, 0, &want[..3000]).unwrap();
    fs.write_at(f.ino, 3000, &want[3000..]).unwrap();
    let far = pattern(2, 5000);
    fs.write_at(f.ino, 100_000, &far).unwrap();
    want.resize(100_000, 0);
    want.extend_from_slice(&far);
    assert_eq!(fs.stat(f.ino).unwrap().size, 105_000);
    // Grown by set_len (reads as zeros), then cut back inside the data.
    fs.set_len(f.ino, 300_000).unwrap();
    want.resize(300_000, 0);
    assert_eq!(read_all(&mut fs, "/f"), want);
    fs.set_len(f.ino, 5000).unwrap();
    want.truncate(5000);
    assert_eq!(fs.stat(f.ino).unwrap().size, 5000);

    // A 1 MiB file that is deleted again.
    let g = fs.create("/g", 0o644).unwrap();
    fs.write_at(g.ino, 0, &pattern(3, 1 << 20)).unwrap();
    fs.unlink("/g").unwrap();
    assert_eq!(fs.lookup("/g"), Err(Error::NotFound));
    assert_eq!(fs.stat(g.ino), Err(Error::NotFound));
    fs.unmount().unwrap();
    img.fsck();
    assert_eq!(img.debugfs_cat("/f"), want);

    let mut fs = img.mount();
    assert_eq!(read_all(&mut fs, "/f"), want);
    assert_eq!(fs.lookup("/g"), Err(Error::NotFound));
    // The 1 MiB came back; /f keeps two blocks.
    let now = fs.stats().free_blocks;
    assert!(
        before - now <= 2,
        "{before} free blocks before, {now} after"
    );
    fs.unmount().unwrap();
    img.fsck();
}

#[test]
fn host_made_files_read_back_exactly() {
    let folder = scratch("host_made_files_read_back_exactly.folder");
    let sizes = [0, 1, 4095, 4096, 4097, 65_536, (1 << 20) + 3];
    std::fs::create_dir_all(folder.join("sub/deeper")).unwrap();
    for (i, size) in sizes.iter().enumerate() {
        std::fs::write(folder.join(format!("f{i}")), pattern(i as u32, *size)).unwrap();
    }
    std::fs::write(folder.join("sub/deeper/note"), b"from the host\n").unwrap();
    let img = Image::new(
        "host_made_files_read_back_exactly",
        Mkfs {
            folder: Some(&folder),
            ..Mkfs::default()
        },
    );
    let mut fs = img.mount();
    for (i, size) in sizes.iter().enumerate() {
        let path = format!("/f{i}");
        assert_eq!(fs.lookup(&path).unwrap().size, *size as u64, "{path}");
        assert_eq!(read_all(&mut fs, &path), pattern(i as u32, *size), "{path}");
    }
    assert_eq!(read_all(&mut fs, "/sub/deeper/note"), b"from the host\n");
    let mut names: Vec<_> = fs
        .read_dir_all(fs.root())
        .unwrap()
        .into_iter()
        .map(|e| (String::from_utf8(e.name).unwrap(), e.kind))
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want: Vec<(String, FileType)> = (0..sizes.len())
        .map(|i| (format!("f{i}"), FileType::File))
        .collect();
    want.push(("lost+found".into(), FileType::Directory));
    want.push(("sub".into(), FileType::Directory));
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(names, want);

    // Appending to a host-made file keeps the image clean.
    let note = fs.lookup("/sub/deeper/note").unwrap();
    fs.write_at(note.ino, note.size, b"and from the guest\n")
        .unwrap();
    fs.unmount().unwrap();
    img.fsck();
    assert_eq!(
        img.debugfs_cat("/sub/deeper/note"),
        b"from the host\nand from the guest\n"
    );
}

#[test]
fn four_kib_sectors_work_too() {
    let img = Image::new("four_kib_sectors_work_too", Mkfs::default());
    let mut fs = img.mount_with(4096);
    let f = fs.create("/f", 0o644).unwrap();
    fs.write_at(f.ino, 123, &pattern(9, 70_000)).unwrap();
    fs.unmount().unwrap();
    img.fsck();
    let mut want = vec![0; 123];
    want.extend(pattern(9, 70_000));
    assert_eq!(img.debugfs_cat("/f"), want);
}

/// Two files appended alternately, one block at a time, so neither has
/// two neighbouring blocks: each needs one extent per block, far more
/// than the four its inode holds, so both grow extent trees (index and
/// leaf blocks) while the other allocates in between. Their block counts
/// must include those tree blocks (e2fsck: "i_blocks is X, should be Y").
#[test]
fn interleaved_files_grow_extent_trees() {
    const BLOCKS: u32 = 900;
    let img = Image::new(
        "interleaved_files_grow_extent_trees",
        Mkfs {
            size_mib: 64,
            ..Mkfs::default()
        },
    );
    let mut fs = img.mount();
    let a = fs.create("/a", 0o644).unwrap();
    let b = fs.create("/b", 0o644).unwrap();
    for i in 0..BLOCKS {
        let at = u64::from(i) * 4096;
        fs.write_at(a.ino, at, &pattern(i, 4096)).unwrap();
        fs.write_at(b.ino, at, &pattern(i + BLOCKS, 4096)).unwrap();
    }
    let want =
        |seed: u32| -> Vec<u8> { (0..BLOCKS).flat_map(|i| pattern(i + seed, 4096)).collect() };
    // More than the data: the tree's blocks are counted too.
    let data_sectors = u64::from(BLOCKS) * 8;
    assert!(fs.stat(a.ino).unwrap().blocks > data_sectors);
    fs.unmount().unwrap();
    img.fsck();
    let extents = img.debugfs("ex /a");
    let levels = String::from_utf8_lossy(&extents.stdout);
    assert!(
        levels.contains(" 1/ 1 ") || levels.contains(" 1/ 2 "),
        "/a has no extent tree below its inode:\n{levels}"
    );
    assert_eq!(img.debugfs_cat("/a"), want(0));
    assert_eq!(img.debugfs_cat("/b"), want(BLOCKS));

    let mut fs = img.mount();
    assert_eq!(read_all(&mut fs, "/a"), want(0));
    assert_eq!(read_all(&mut fs, "/b"), want(BLOCKS));
    fs.unmount().unwrap();
    img.fsck();
}
