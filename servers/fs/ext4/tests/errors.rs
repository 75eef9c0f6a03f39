//! Every error a caller can cause, with its specific reason; none of the
//! failed operations may leave a mark on the image (e2fsck clean).

mod common;

use common::{Image, Mkfs};
use conflux_ext4::Error::*;

#[test]
fn each_mistake_gets_its_own_error() {
    let img = Image::new("each_mistake_gets_its_own_error", Mkfs::default());
    let mut fs = img.mount();
    let file = fs.create("/file", 0o644).unwrap();
    let dir = fs.mkdir("/dir", 0o755).unwrap();
    fs.create("/dir/inside", 0o644).unwrap();
    fs.mkdir("/empty", 0o755).unwrap();
    let long = format!("/{}", "n".repeat(256));
    let longest = format!("/{}", "n".repeat(255));

    // Not found: the entry, or a directory on the way.
    assert_eq!(fs.lookup("/nope"), Err(NotFound));
    assert_eq!(fs.create("/nope/f", 0o644), Err(NotFound));
    assert_eq!(fs.unlink("/nope"), Err(NotFound));
    assert_eq!(fs.rmdir("/nope"), Err(NotFound));
    assert_eq!(fs.rename("/nope", "/other"), Err(NotFound));
    assert_eq!(fs.rename("/file", "/nope/file"), Err(NotFound));
    assert_eq!(fs.link("/nope", "/other"), Err(NotFound));
    // Exists.
    assert_eq!(fs.create("/file", 0o644), Err(Exists));
    assert_eq!(fs.mkdir("/dir", 0o755), Err(Exists));
    assert_eq!(fs.link("/file", "/dir/inside"), Err(Exists));
    // Not empty.
    assert_eq!(fs.rmdir("/dir"), Err(NotEmpty));
    assert_eq!(fs.rename("/empty", "/dir"), Err(NotEmpty));
    // Name too long; the longest name is fine.
    assert_eq!(fs.create(&long, 0o644), Err(NameTooLong));
    assert_eq!(fs.lookup(&long), Err(NameTooLong));
    fs.create(&longest, 0o644).unwrap();
    fs.unlink(&longest).unwrap();
    // Not a directory.
    assert_eq!(fs.lookup("/file/x"), Err(NotADirectory));
    assert_eq!(fs.create("/file/x", 0o644), Err(NotADirectory));
    assert_eq!(fs.rmdir("/file"), Err(NotADirectory));
    assert_eq!(fs.rename("/empty", "/file"), Err(NotADirectory));
    assert_eq!(
        fs.read_dir(file.ino, conflux_ext4::DirCursor::START, 8)
            .map(|_| ()),
        Err(NotADirectory)
    );
    // Is a directory.
    assert_eq!(fs.unlink("/dir"), Err(IsADirectory));
    assert_eq!(fs.write_at(dir.ino, 0, b"x"), Err(IsADirectory));
    assert_eq!(fs.read_at(dir.ino, 0, &mut [0; 8]), Err(IsADirectory));
    assert_eq!(fs.set_len(dir.ino, 0), Err(IsADirectory));
    assert_eq!(fs.link("/dir", "/dir2"), Err(IsADirectory));
    assert_eq!(fs.rename("/file", "/empty"), Err(IsADirectory));
    // Paths that name no entry, or the wrong kind of thing.
    assert_eq!(fs.lookup("file"), Err(InvalidPath));
    assert_eq!(fs.lookup(""), Err(InvalidPath));
    assert_eq!(fs.create("/", 0o644), Err(InvalidPath));
    assert_eq!(fs.rmdir("/"), Err(InvalidPath));
    assert_eq!(fs.create("/a\0b", 0o644), Err(InvalidPath));
    assert_eq!(
        fs.rename("/dir", "/dir/inside/deeper"),
        Err(InvalidArgument)
    );
    assert_eq!(fs.create("/bad-mode", 0o10000), Err(InvalidArgument));
    fs.unmount().unwrap();
    img.fsck();

    // And nothing changed.
    let mut fs = img.mount();
    assert_eq!(fs.lookup("/dir/inside").unwrap().size, 0);
    assert_eq!(fs.lookup("/empty").unwrap().links, 2);
    fs.unmount().unwrap();
}

#[test]
fn a_full_disk_says_no_space() {
    let img = Image::new(
        "a_full_disk_says_no_space",
        Mkfs {
            size_mib: 8,
            ..Mkfs::default()
        },
    );
    let mut fs = img.mount();
    let f = fs.create("/big", 0o644).unwrap();
    let chunk = vec![0xa5; 1 << 20];
    let mut result = Ok(());
    for i in 0..16 {
        result = fs.write_at(f.ino, i << 20, &chunk);
        if result.is_err() {
            break;
        }
    }
    assert_eq!(result, Err(NoSpace));
    fs.unmount().unwrap();
    img.fsck();
}
