//! Random sequences of operations applied both to the crate and to a
//! plain in-memory model of a POSIX tree, compared result by result; then
//! the image is unmounted, must be e2fsck clean, and after a remount
//! every path of the (small) name space must look as the model says:
//! kind, contents, link count, directory listing.

mod common;

use std::collections::BTreeMap;

use common::{pattern, read_all, FileDisk, Image, Mkfs};
use conflux_ext4::{Error, FileSystem};
use proptest::prelude::*;

/// Every path an operation can name: three names, two levels.
const PATHS: [&str; 12] = [
    "/a", "/b", "/c", "/a/a", "/a/b", "/a/c", "/b/a", "/b/b", "/b/c", "/c/a", "/c/b", "/c/c",
];

#[derive(Debug, Clone)]
enum Op {
    Create(&'static str),
    Mkdir(&'static str),
    Write(&'static str, u64, usize, u32),
    Truncate(&'static str, u64),
    Unlink(&'static str),
    Rmdir(&'static str),
    Rename(&'static str, &'static str),
    Link(&'static str, &'static str),
}

fn op() -> impl Strategy<Value = Op> {
    let path = || prop::sample::select(&PATHS[..]);
    prop_oneof![
        path().prop_map(Op::Create),
        path().prop_map(Op::Mkdir),
        (path(), 0..20_000u64, 1..12_000usize, any::<u32>())
            .prop_map(|(p, at, len, seed)| Op::Write(p, at, len, seed)),
        (path(), 0..30_000u64).prop_map(|(p, len)| Op::Truncate(p, len)),
        path().prop_map(Op::Unlink),
        path().prop_map(Op::Rmdir),
        (path(), path()).prop_map(|(a, b)| Op::Rename(a, b)),
        (path(), path()).prop_map(|(a, b)| Op::Link(a, b)),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Node {
    File(u32),
    Dir,
}

/// The tree as paths, with file contents by file id (hard links share one).
#[derive(Default)]
struct Model {
    tree: BTreeMap<String, Node>,
    data: BTreeMap<u32, Vec<u8>>,
    next_id: u32,
}

type Res = Result<(), Error>;

fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) => "/",
        Some(at) => &path[..at],
        None => "/",
    }
}

impl Model {
    fn node(&self, path: &str) -> Result<Node, Error> {
        if path == "/" {
            return Ok(Node::Dir);
        }
        let at = self.node(parent(path))?;
        if at != Node::Dir {
            return Err(Error::NotADirectory);
        }
        self.tree.get(path).copied().ok_or(Error::NotFound)
    }

    /// The parent is a directory and `path` is free.
    fn free(&self, path: &str) -> Res {
        if self.node(parent(path))? != Node::Dir {
            return Err(Error::NotADirectory);
        }
        match self.tree.contains_key(path) {
            true => Err(Error::Exists),
            false => Ok(()),
        }
    }

    fn children(&self, dir: &str) -> Vec<String> {
        let prefix = if dir == "/" {
            "/".to_owned()
        } else {
            format!("{dir}/")
        };
        self.tree
            .keys()
            .filter(|k| k.starts_with(&prefix) && !k[prefix.len()..].contains('/'))
            .map(|k| k[prefix.len()..].to_owned())
            .collect()
    }

    fn links(&self, id: u32) -> usize {
        self.tree.values().filter(|n| **n == Node::File(id)).count()
    }

    fn remove(&mut self, path: &str) {
        if let Some(Node::File(id)) = self.tree.remove(path) {
            if self.links(id) == 0 {
                self.data.remove(&id);
            }
        }
    }

    fn file(&mut self, path: &str) -> Result<&mut Vec<u8>, Error> {
        match self.node(path)? {
            Node::Dir => Err(Error::IsADirectory),
            Node::File(id) => Ok(self.data.get_mut(&id).expect("file data")),
        }
    }

    fn apply(&mut self, op: &Op) -> Res {
        match *op {
            Op::Create(p) | Op::Mkdir(p) => {
                self.free(p)?;
                let node = if matches!(op, Op::Mkdir(_)) {
                    Node::Dir
                } else {
                    self.next_id += 1;
                    self.data.insert(self.next_id, Vec::new());
                    Node::File(self.next_id)
                };
                self.tree.insert(p.to_owned(), node);
            }
            Op::Write(p, at, len, seed) => {
                let data = self.file(p)?;
                let end = at as usize + len;
                if data.len() < end {
                    data.resize(end, 0);
                }
                data[at as usize..end].copy_from_slice(&pattern(seed, len));
            }
            Op::Truncate(p, len) => self.file(p)?.resize(len as usize, 0),
            Op::Unlink(p) => {
                if self.node(p)? == Node::Dir {
                    return Err(Error::IsADirectory);
                }
                self.remove(p);
            }
            Op::Rmdir(p) => {
                if self.node(p)? != Node::Dir {
                    return Err(Error::NotADirectory);
                }
                if !self.children(p).is_empty() {
                    return Err(Error::NotEmpty);
                }
                self.remove(p);
            }
            Op::Rename(from, to) => self.rename(from, to)?,
            Op::Link(from, to) => {
                let Node::File(id) = self.node(from)? else {
                    return Err(Error::IsADirectory);
                };
                self.free(to)?;
                self.tree.insert(to.to_owned(), Node::File(id));
            }
        }
        Ok(())
    }

    /// In the order the crate checks: source, destination's parent, same
    /// name, into itself, destination's kind, emptiness.
    fn rename(&mut self, from: &str, to: &str) -> Res {
        let source = self.node(from)?;
        let to_parent = parent(to);
        let parent_node = self.node(to_parent)?;
        if from == to {
            return Ok(());
        }
        if source == Node::Dir && (to_parent == from || to_parent.starts_with(&format!("{from}/")))
        {
            return Err(Error::InvalidArgument);
        }
        if parent_node != Node::Dir {
            return Err(Error::NotADirectory);
        }
        if let Some(&target) = self.tree.get(to) {
            match (source, target) {
                (Node::File(a), Node::File(b)) if a == b => return Ok(()),
                (Node::Dir, Node::File(_)) => return Err(Error::NotADirectory),
                (Node::File(_), Node::Dir) => return Err(Error::IsADirectory),
                (Node::Dir, Node::Dir) if !self.children(to).is_empty() => {
                    return Err(Error::NotEmpty)
                }
                _ => self.remove(to),
            }
        }
        let moved: Vec<(String, Node)> = self
            .tree
            .iter()
            .filter(|(k, _)| *k == from || k.starts_with(&format!("{from}/")))
            .map(|(k, n)| (format!("{to}{}", &k[from.len()..]), *n))
            .collect();
        self.tree
            .retain(|k, _| k != from && !k.starts_with(&format!("{from}/")));
        self.tree.extend(moved);
        Ok(())
    }
}

fn apply(fs: &mut FileSystem<FileDisk>, op: &Op) -> Res {
    match *op {
        Op::Create(p) => fs.create(p, 0o644).map(|_| ()),
        Op::Mkdir(p) => fs.mkdir(p, 0o755).map(|_| ()),
        Op::Write(p, at, len, seed) => {
            let ino = fs.lookup(p)?.ino;
            fs.write_at(ino, at, &pattern(seed, len))
        }
        Op::Truncate(p, len) => {
            let ino = fs.lookup(p)?.ino;
            fs.set_len(ino, len)
        }
        Op::Unlink(p) => fs.unlink(p),
        Op::Rmdir(p) => fs.rmdir(p),
        Op::Rename(a, b) => fs.rename(a, b),
        Op::Link(a, b) => fs.link(a, b).map(|_| ()),
    }
}

/// Every path of the name space looks in `fs` as in `model`.
fn compare(fs: &mut FileSystem<FileDisk>, model: &Model) {
    let mut root = model.children("/");
    root.push("lost+found".into());
    root.sort();
    let listed = |fs: &mut FileSystem<FileDisk>, dir: &str| {
        let ino = fs.lookup(dir).unwrap().ino;
        let mut names: Vec<String> = fs
            .read_dir_all(ino)
            .unwrap()
            .into_iter()
            .map(|e| String::from_utf8(e.name).unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(listed(fs, "/"), root);
    for path in PATHS {
        let got = fs.lookup(path);
        match model.node(path) {
            Err(e) => assert_eq!(got.map(|_| ()), Err(e), "{path}"),
            Ok(Node::Dir) => {
                assert!(got.unwrap().is_dir(), "{path}");
                assert_eq!(listed(fs, path), model.children(path), "{path}");
            }
            Ok(Node::File(id)) => {
                let stat = got.unwrap();
                assert_eq!(stat.links as usize, model.links(id), "{path} links");
                assert!(read_all(fs, path) == model.data[&id], "{path} contents");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_crate_behaves_like_the_model(ops in prop::collection::vec(op(), 1..40)) {
        let img = Image::new("model", Mkfs::default());
        let mut fs = img.mount();
        let mut model = Model::default();
        for (i, op) in ops.iter().enumerate() {
            let want = model.apply(op);
            let got = apply(&mut fs, op);
            prop_assert_eq!(got, want, "step {} {:?}", i, op);
        }
        fs.unmount().unwrap();
        img.fsck();
        let mut fs = img.mount();
        compare(&mut fs, &model);
        fs.unmount().unwrap();
    }
}
