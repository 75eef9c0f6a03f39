//! The inode, name and listing caches (`meta_cache`) never answer with
//! what an operation changed: each test first makes the cache hold an
//! answer (a `stat`, a lookup, a listing), then changes it through the
//! crate, then asks again and compares with the change — and, where the
//! answer could come from the disk instead, with a fresh mount. Each
//! fails if the operation's invalidation is taken out.

mod common;

use common::{Image, Mkfs};
use conflux_ext4::{Error, FileSystem, Ino};

type Fs = FileSystem<common::FileDisk>;

fn setup(test: &str) -> (Image, Fs) {
    let img = Image::new(test, Mkfs::default());
    let fs = img.mount();
    (img, fs)
}

fn listing(fs: &mut Fs, dir: Ino) -> Vec<String> {
    let mut names: Vec<String> = fs
        .read_dir_all(dir)
        .unwrap()
        .into_iter()
        .map(|e| String::from_utf8(e.name).unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn stat_follows_writes_and_truncation() {
    let (img, mut fs) = setup("cache_stat_write");
    let f = fs.create("/f", 0o644).unwrap();
    assert_eq!(fs.stat(f.ino).unwrap().size, 0);
    assert_eq!(fs.lookup("/f").unwrap().size, 0);
    fs.write_at(f.ino, 0, &[7; 5000]).unwrap();
    assert_eq!(fs.stat(f.ino).unwrap().size, 5000);
    assert_eq!(fs.lookup_at(fs.root(), b"f").unwrap().size, 5000);
    assert!(fs.stat(f.ino).unwrap().blocks > 0);
    fs.set_len(f.ino, 10).unwrap();
    assert_eq!(fs.lookup("/f").unwrap().size, 10);
    fs.set_len(f.ino, 70_000).unwrap();
    assert_eq!(fs.stat(f.ino).unwrap().size, 70_000);
    let cached = fs.stat(f.ino).unwrap();
    fs.unmount().unwrap();
    img.fsck();
    let mut fs = img.mount();
    assert_eq!(fs.stat(f.ino).unwrap(), cached);
    fs.unmount().unwrap();
}

#[test]
fn an_unlinked_name_is_gone_and_its_number_may_name_a_new_file() {
    let (img, mut fs) = setup("cache_unlink");
    let root = fs.root();
    let a = fs.create("/a", 0o644).unwrap();
    fs.write_at(a.ino, 0, b"old contents").unwrap();
    assert_eq!(fs.lookup_at(root, b"a").unwrap().size, 12);
    let root_before = fs.stat(root).unwrap();
    fs.unlink("/a").unwrap();
    assert_eq!(fs.lookup_at(root, b"a"), Err(Error::NotFound));
    assert_eq!(fs.lookup("/a"), Err(Error::NotFound));
    assert_eq!(fs.stat(a.ino), Err(Error::NotFound));
    // ext4 hands the freed number out again: the new file's attributes,
    // not the old one's.
    let b = fs.create("/b", 0o600).unwrap();
    assert_eq!(b.ino, a.ino, "the test needs the number reused");
    let s = fs.stat(b.ino).unwrap();
    assert_eq!((s.size, s.perm), (0, 0o600));
    assert_eq!(fs.lookup_at(root, b"a"), Err(Error::NotFound));
    assert_eq!(fs.stat(root).unwrap().links, root_before.links);
    fs.unmount().unwrap();
    img.fsck();
}

#[test]
fn rename_moves_and_replaces_names() {
    let (img, mut fs) = setup("cache_rename");
    let root = fs.root();
    let x = fs.create("/x", 0o644).unwrap();
    fs.write_at(x.ino, 0, &[1; 100]).unwrap();
    let y = fs.create("/y", 0o644).unwrap();
    assert_eq!(fs.lookup_at(root, b"x").unwrap().ino, x.ino);
    assert_eq!(fs.lookup_at(root, b"y").unwrap().ino, y.ino);
    fs.rename("/x", "/y").unwrap();
    assert_eq!(fs.lookup_at(root, b"x"), Err(Error::NotFound));
    let now = fs.lookup_at(root, b"y").unwrap();
    assert_eq!((now.ino, now.size), (x.ino, 100));
    assert_eq!(fs.stat(y.ino), Err(Error::NotFound));
    // A renamed directory keeps its names under the new path.
    fs.mkdir("/p", 0o755).unwrap();
    let q = fs.mkdir("/p/q", 0o755).unwrap();
    let f = fs.create("/p/q/f", 0o644).unwrap();
    assert_eq!(fs.lookup("/p/q/f").unwrap().ino, f.ino);
    assert_eq!(fs.lookup("/p").unwrap().links, 3);
    fs.rename("/p/q", "/r").unwrap();
    assert_eq!(fs.lookup("/p/q/f"), Err(Error::NotFound));
    assert_eq!(fs.lookup("/p/q"), Err(Error::NotFound));
    assert_eq!(fs.lookup("/r/f").unwrap().ino, f.ino);
    assert_eq!(fs.lookup("/r").unwrap().ino, q.ino);
    assert_eq!(fs.lookup("/p").unwrap().links, 2);
    // A directory replacing an empty one: the replaced one's number
    // must not keep the names of the one before.
    fs.mkdir("/empty", 0o755).unwrap();
    let gone = fs.lookup("/empty").unwrap();
    fs.rename("/r", "/empty").unwrap();
    assert_eq!(fs.stat(gone.ino), Err(Error::NotFound));
    assert_eq!(fs.lookup("/empty/f").unwrap().ino, f.ino);
    fs.unmount().unwrap();
    img.fsck();
}

#[test]
fn links_and_new_entries_change_counts() {
    let (img, mut fs) = setup("cache_links");
    let root = fs.root();
    let f = fs.create("/f", 0o644).unwrap();
    assert_eq!(fs.stat(f.ino).unwrap().links, 1);
    let root_links = fs.stat(root).unwrap().links;
    fs.link("/f", "/g").unwrap();
    assert_eq!(fs.stat(f.ino).unwrap().links, 2);
    assert_eq!(fs.lookup("/g").unwrap().links, 2);
    fs.unlink("/g").unwrap();
    assert_eq!(fs.lookup("/f").unwrap().links, 1);
    let d = fs.mkdir("/d", 0o755).unwrap();
    assert_eq!(fs.stat(root).unwrap().links, root_links + 1);
    assert_eq!(fs.stat(d.ino).unwrap().links, 2);
    fs.mkdir("/d/e", 0o755).unwrap();
    assert_eq!(fs.stat(d.ino).unwrap().links, 3);
    fs.rmdir("/d/e").unwrap();
    assert_eq!(fs.stat(d.ino).unwrap().links, 2);
    fs.unmount().unwrap();
    img.fsck();
}

#[test]
fn a_removed_directory_takes_its_names_with_it() {
    let (img, mut fs) = setup("cache_rmdir");
    let d = fs.mkdir("/d", 0o755).unwrap();
    let x = fs.create("/d/x", 0o644).unwrap();
    assert_eq!(fs.lookup_at(d.ino, b"x").unwrap().ino, x.ino);
    fs.unlink("/d/x").unwrap();
    fs.rmdir("/d").unwrap();
    assert_eq!(fs.lookup_at(d.ino, b"x"), Err(Error::NotFound));
    let d2 = fs.mkdir("/d2", 0o755).unwrap();
    assert_eq!(d2.ino, d.ino, "the test needs the number reused");
    assert_eq!(fs.lookup_at(d2.ino, b"x"), Err(Error::NotFound));
    assert_eq!(listing(&mut fs, d2.ino), Vec::<String>::new());
    fs.unmount().unwrap();
    img.fsck();
}

#[test]
fn listings_follow_every_change_to_the_directory() {
    let (img, mut fs) = setup("cache_listing");
    let d = fs.mkdir("/d", 0o755).unwrap();
    for n in 0..300 {
        fs.create(&format!("/d/f{n:03}"), 0o644).unwrap();
    }
    let mut want: Vec<String> = (0..300).map(|n| format!("f{n:03}")).collect();
    assert_eq!(listing(&mut fs, d.ino), want);
    // Listed names are found without a lookup; a removed one is not.
    fs.unlink("/d/f007").unwrap();
    assert_eq!(fs.lookup_at(d.ino, b"f007"), Err(Error::NotFound));
    want.retain(|n| n != "f007");
    assert_eq!(listing(&mut fs, d.ino), want);
    fs.create("/d/new", 0o644).unwrap();
    want.push("new".into());
    assert_eq!(listing(&mut fs, d.ino), want);
    fs.rename("/d/f000", "/moved").unwrap();
    want.retain(|n| n != "f000");
    assert_eq!(listing(&mut fs, d.ino), want);
    fs.link("/moved", "/d/again").unwrap();
    want.insert(0, "again".into());
    assert_eq!(listing(&mut fs, d.ino), want);
    fs.mkdir("/d/sub", 0o755).unwrap();
    want.push("sub".into());
    assert_eq!(listing(&mut fs, d.ino), want);
    fs.rmdir("/d/sub").unwrap();
    want.pop();
    assert_eq!(listing(&mut fs, d.ino), want);
    fs.unmount().unwrap();
    img.fsck();
    let mut fs = img.mount();
    assert_eq!(listing(&mut fs, d.ino), want);
    fs.unmount().unwrap();
}
