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
