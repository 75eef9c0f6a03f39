//! Directory round trips: mkdir and rmdir, rename of files and
//! directories (within and across directories, onto existing names) and
//! hard links, checked by e2fsck and read back after a remount.

mod common;

use common::{read_all, Image, Mkfs};
use conflux_ext4::{Error, FileType};

fn names(fs: &mut conflux_ext4::FileSystem<common::FileDisk>, dir: &str) -> Vec<String> {
    let ino = fs.lookup(dir).unwrap().ino;
    let mut names: Vec<String> = fs
        .read_dir_all(ino)
        .unwrap()
        .into_iter()
        .map(|e| String::from_utf8(e.name).unwrap())
        .collect();
    names.sort();
    names
}

fn write(fs: &mut conflux_ext4::FileSystem<common::FileDisk>, path: &str, data: &[u8]) {
    let f = fs.create(path, 0o644).unwrap();
    fs.write_at(f.ino, 0, data).unwrap();
}

#[test]
fn mkdir_and_rmdir_keep_link_counts() {
    let img = Image::new("mkdir_and_rmdir_keep_link_counts", Mkfs::default());
    let mut fs = img.mount();
    let root_links = fs.lookup("/").unwrap().links;
    let a = fs.mkdir("/a", 0o755).unwrap();
    assert_eq!((a.kind, a.perm, a.links), (FileType::Directory, 0o755, 2));
    fs.mkdir("/a/b", 0o700).unwrap();
    fs.mkdir("/a/c", 0o755).unwrap();
    fs.mkdir("/a/b/deep", 0o755).unwrap();
    assert_eq!(fs.lookup("/").unwrap().links, root_links + 1);
    assert_eq!(fs.lookup("/a").unwrap().links, 4);
    assert_eq!(
        fs.lookup("/a/b/../c/./").unwrap().ino,
        fs.lookup("/a/c").unwrap().ino
    );
    fs.rmdir("/a/c").unwrap();
    fs.rmdir("/a/b/deep").unwrap();
    assert_eq!(fs.lookup("/a").unwrap().links, 3);
    assert_eq!(names(&mut fs, "/a"), ["b"]);
    fs.unmount().unwrap();
    img.fsck();

    let mut fs = img.mount();
    assert_eq!(fs.lookup("/a/b").unwrap().perm, 0o700);
    assert_eq!(fs.lookup("/a/c"), Err(Error::NotFound));
    fs.rmdir("/a/b").unwrap();
    fs.rmdir("/a").unwrap();
    assert_eq!(fs.lookup("/").unwrap().links, root_links);
    fs.unmount().unwrap();
    img.fsck();
}

#[test]
fn renames_move_files_and_directories() {
    let img = Image::new("renames_move_files_and_directories", Mkfs::default());
    let mut fs = img.mount();
    fs.mkdir("/x", 0o755).unwrap();
    fs.mkdir("/y", 0o755).unwrap();
    write(&mut fs, "/x/one", b"one");
    write(&mut fs, "/x/two", b"two");
    write(&mut fs, "/y/old", b"old");
    fs.mkdir("/x/sub", 0o755).unwrap();
    write(&mut fs, "/x/sub/inner", b"inner");
    fs.mkdir("/y/empty", 0o755).unwrap();

    fs.rename("/x/one", "/x/uno").unwrap(); // same directory
    fs.rename("/x/two", "/y/two").unwrap(); // across directories
    fs.rename("/x/uno", "/y/old").unwrap(); // onto an existing file
    fs.rename("/x/sub", "/y/sub").unwrap(); // a directory across
    fs.rename("/y/sub", "/y/empty").unwrap(); // onto an empty directory
    assert_eq!(names(&mut fs, "/x"), Vec::<String>::new());
    assert_eq!(names(&mut fs, "/y"), ["empty", "old", "two"]);
    assert_eq!(fs.lookup("/x").unwrap().links, 2);
    assert_eq!(fs.lookup("/y").unwrap().links, 3);
    // `..` of the moved directory now leads to /y.
    assert_eq!(read_all(&mut fs, "/y/empty/inner"), b"inner");
    fs.unmount().unwrap();
    img.fsck();
    assert_eq!(img.debugfs_cat("/y/old"), b"one");
    assert_eq!(img.debugfs_cat("/y/two"), b"two");
    let dotdot = img.debugfs("ls -l /y/empty/..");
    assert!(String::from_utf8_lossy(&dotdot.stdout).contains("two"));

    let mut fs = img.mount();
    assert_eq!(read_all(&mut fs, "/y/old"), b"one");
    assert_eq!(fs.lookup("/x/sub"), Err(Error::NotFound));
    fs.unmount().unwrap();
    img.fsck();
}

#[test]
fn hard_links_share_one_inode() {
    let img = Image::new("hard_links_share_one_inode", Mkfs::default());
    let mut fs = img.mount();
    fs.mkdir("/d", 0o755).unwrap();
    write(&mut fs, "/a", b"shared");
    let b = fs.link("/a", "/d/b").unwrap();
    assert_eq!(b.ino, fs.lookup("/a").unwrap().ino);
    assert_eq!(b.links, 2);
    fs.write_at(b.ino, 6, b" data").unwrap();
    assert_eq!(read_all(&mut fs, "/a"), b"shared data");
    fs.rename("/a", "/d/b").unwrap(); // two names of one file: nothing happens
    assert_eq!(fs.lookup("/a").unwrap().links, 2);
    fs.unmount().unwrap();
    img.fsck();
    assert_eq!(img.debugfs_cat("/d/b"), b"shared data");

    let mut fs = img.mount();
    fs.unlink("/a").unwrap();
    assert_eq!(fs.lookup("/d/b").unwrap().links, 1);
    fs.unmount().unwrap();
    img.fsck();
    let mut fs = img.mount();
    assert_eq!(read_all(&mut fs, "/d/b"), b"shared data");
    fs.unlink("/d/b").unwrap();
    assert_eq!(fs.stat(b.ino), Err(Error::NotFound));
    fs.unmount().unwrap();
    img.fsck();
}

/// A directory whose blocks are interleaved with other allocations needs
/// an extent tree outside its inode. rsext4 0.9.2 leaves `i_blocks` short
/// by the tree's blocks (its HTree growth path sets the count it read
/// before inserting the extent); the crate's `dirblocks` repair must make
/// e2fsck find "i_blocks is X, should be Y" nowhere.
#[test]
fn fragmented_directory() {
    let img = Image::new("fragmented_directory", Mkfs::default());
    let mut fs = img.mount();
    fs.mkdir("/many", 0o755).unwrap();
    for i in 0..3000 {
        let path = format!("/many/entry-{i:05}-{}", "x".repeat(i % 40));
        let f = fs.create(&path, 0o644).unwrap();
        if i % 10 == 0 {
            fs.write_at(f.ino, 0, b"x").unwrap();
        }
    }
    fs.unmount().unwrap();
    img.fsck();
}

/// Several directories grown at once, hundreds of entries each, some of
/// them files with data written between the entries and some nested
/// directories that grow too: every directory's blocks end up interleaved
/// with the others' and with file data, so each needs an extent tree.
/// e2fsck must find the image clean, and every entry must read back.
#[test]
fn directories_grown_among_file_data() {
    const DIRS: usize = 4;
    const ENTRIES: usize = 600;
    let img = Image::new(
        "directories_grown_among_file_data",
        Mkfs {
            size_mib: 64,
            inodes: Some(8192),
            ..Mkfs::default()
        },
    );
    let dirs: Vec<String> = (0..DIRS)
        .flat_map(|d| [format!("/d{d}"), format!("/d{d}/nested")])
        .collect();
    let entry = |dir: &str, i: usize| format!("{dir}/entry-{i:04}-{}", "y".repeat(i % 50));
    let data = |dir: &str, i: usize| -> Vec<u8> {
        let seed = dir.bytes().map(u32::from).sum::<u32>() * 10_000 + i as u32;
        common::pattern(seed, 100 + (i % 7) * 1500)
    };
    let mut fs = img.mount();
    for dir in &dirs {
        fs.mkdir(dir, 0o755).unwrap();
    }
    for i in 0..ENTRIES {
        for dir in &dirs {
            let path = entry(dir, i);
            if i % 3 == 0 {
                write(&mut fs, &path, &data(dir, i));
            } else if i % 50 == 1 {
                fs.mkdir(&path, 0o755).unwrap();
            } else {
                fs.create(&path, 0o644).unwrap();
            }
        }
    }
    fs.unmount().unwrap();
    img.fsck();
    let extents = img.debugfs("ex /d0");
    assert!(
        String::from_utf8_lossy(&extents.stdout).contains(" 1/ 1 "),
        "/d0 has no extent tree below its inode, so this test does not test the repair"
    );

    let mut fs = img.mount();
    for dir in &dirs {
        let mut want: Vec<String> = (0..ENTRIES)
            .map(|i| entry(dir, i).rsplit('/').next().unwrap().to_string())
            .collect();
        if !dir.ends_with("nested") {
            want.push("nested".to_string());
        }
        want.sort();
        assert_eq!(names(&mut fs, dir), want, "entries of {dir}");
        for i in 0..ENTRIES {
            let path = entry(dir, i);
            let stat = fs.lookup(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            match i {
                _ if i % 3 == 0 => assert_eq!(read_all(&mut fs, &path), data(dir, i), "{path}"),
                _ if i % 50 == 1 => assert_eq!(stat.kind, FileType::Directory, "{path}"),
                _ => assert_eq!((stat.kind, stat.size), (FileType::File, 0), "{path}"),
            }
        }
    }
    // Growing them further after a remount starts from the repaired counts.
    for dir in &dirs {
        for i in ENTRIES..ENTRIES + 100 {
            write(&mut fs, &entry(dir, i), &data(dir, i));
        }
    }
    fs.unmount().unwrap();
    img.fsck();
}
