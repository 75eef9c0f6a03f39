//! A client's path, as bytes from its buffer, made into the path the file
//! system takes, inside the client's root (as `chroot` confines a
//! process).
//!
//! The bytes end at the first NUL (or the buffer's end) and must be
//! UTF-8. A relative path is joined to the client's current directory;
//! then `.`, `..` and empty components are resolved lexically, with `..`
//! at the root staying at the root, *before* the root is put in front.
//! So what reaches the file system never holds a `..` and always lies
//! under the root: no spelling of a path names anything outside it. That
//! is exact only because `conflux-ext4` never follows symbolic links (a
//! link met along a path is not a directory); the server must never start
//! following them without resolving them here, inside the root.

use alloc::string::String;

use conflux_ext4::MAX_PATH;
use conflux_fs_protocol::FsError;

/// The bytes of a path operand: up to the first NUL.
pub fn operand(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// A client's path, resolved inside its root: one string, the path the
/// file system takes, of which the client's own view is the part after
/// the root (a path is resolved for every operation that names one, so it
/// costs one allocation and one pass).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientPath {
    /// As the file system sees it: the root (unless it is `/`), then the
    /// path as the client sees it.
    real: String,
    /// Bytes of `real` that are the root: 0 for the root `/`.
    root_len: usize,
}

impl ClientPath {
    /// Resolves `raw` from the current directory `cwd` (as the client sees
    /// it: absolute, normalised) of a client whose root is `root`
    /// (absolute, normalised).
    pub fn resolve(root: &str, cwd: &str, raw: &[u8]) -> Result<ClientPath, FsError> {
        let raw = operand(raw);
        if raw.is_empty() {
            // POSIX: the empty path names nothing.
            return Err(FsError::NotFound);
        }
        let text = core::str::from_utf8(raw).map_err(|_| FsError::Invalid)?;
        if text.len() > MAX_PATH {
            return Err(FsError::NameTooLong);
        }
        let root = if root == "/" { "" } else { root };
        let relative = !text.starts_with('/');
        let mut real = String::new();
        let most = root.len() + text.len() + if relative { cwd.len() + 1 } else { 1 };
        real.try_reserve(most).map_err(|_| FsError::NoMemory)?;
        real.push_str(root);
        let base = real.len();
        let parts: [&str; 2] = if relative { [cwd, text] } else { ["", text] };
        // `.`, `..` and empty names resolved lexically as they come, `..`
        // never cutting into the root. (A byte loop: `/` is ASCII, so each
        // name is a `str` slice; `split` costs twice as much per name.)
        for part in parts {
            let bytes = part.as_bytes();
            let mut start = 0;
            while start <= bytes.len() {
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b'/')
                    .map_or(bytes.len(), |at| start + at);
                match &part[start..end] {
                    "" | "." => {}
                    ".." => {
                        let cut = real[base..].rfind('/').map_or(base, |at| base + at);
                        real.truncate(cut);
                    }
                    name => {
                        real.push('/');
                        real.push_str(name);
                    }
                }
                start = end + 1;
            }
        }
        if real.is_empty() {
            real.push('/');
        }
        Ok(ClientPath {
            real,
            root_len: base,
        })
    }

    /// The path as the client sees it.
    pub fn seen(&self) -> &str {
        match &self.real[self.root_len..] {
            "" => "/",
            seen => seen,
        }
    }

    /// The path to give the file system.
    pub fn real(&self) -> &str {
        &self.real
    }

    /// The path of an entry to make, remove or move: never the client's
    /// root, which is not an entry of any directory it can reach
    /// (`Invalid`, as for `/` itself).
    pub fn entry(&self) -> Result<&str, FsError> {
        if self.seen() == "/" {
            return Err(FsError::Invalid);
        }
        Ok(&self.real)
    }
}

/// `seen` (absolute, normalised) below `root` (the same): the path the
/// file system takes.
pub fn under(root: &str, seen: &str) -> Result<String, FsError> {
    let mut real = String::new();
    real.try_reserve(root.len() + seen.len())
        .map_err(|_| FsError::NoMemory)?;
    match (root, seen) {
        ("/", _) => real.push_str(seen),
        (_, "/") => real.push_str(root),
        _ => {
            real.push_str(root);
            real.push_str(seen);
        }
    }
    Ok(real)
}

/// True if `dir` is `path` or one of its ancestors (both absolute and
/// normalised).
pub fn is_at_or_above(dir: &str, path: &str) -> bool {
    dir == "/"
        || path == dir
        || path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference `resolve` is checked against: the obvious way,
    /// a vector of names, then joined.
    /// The parts joined with `/`, with `.`, `..` and empty components
    /// resolved lexically (`..` at the top stays at the top): an absolute path
    /// with no trailing `/`, `/` alone for the top.
    fn normalise(parts: &[&str]) -> Result<String, FsError> {
        let mut names: alloc::vec::Vec<&str> = alloc::vec::Vec::new();
        for name in parts.iter().flat_map(|p| p.split('/')) {
            match name {
                "" | "." => {}
                ".." => {
                    names.pop();
                }
                n => names
                    .try_reserve(1)
                    .map(|_| names.push(n))
                    .map_err(|_| FsError::NoMemory)?,
            }
        }
        let len = names.iter().map(|n| n.len() + 1).sum::<usize>().max(1);
        let mut out = String::new();
        out.try_reserve(len).map_err(|_| FsError::NoMemory)?;
        for n in &names {
            out.push('/');
            out.push_str(n);
        }
        if out.is_empty() {
            out.push('/');
        }
        Ok(out)
    }

    fn seen(cwd: &str, raw: &[u8]) -> String {
        ClientPath::resolve("/", cwd, raw)
            .unwrap()
            .seen()
            .to_owned()
    }

    fn real(root: &str, cwd: &str, raw: &str) -> String {
        ClientPath::resolve(root, cwd, raw.as_bytes()).unwrap().real
    }

    #[test]
    fn resolving_agrees_with_normalise_and_under() {
        let roots = ["/", "/www", "/a/b"];
        let cwds = ["/", "/x", "/x/y"];
        let raws = [
            "a",
            "/a",
            "..",
            "../..",
            "./a/../b",
            "/a//b/",
            "x/./../../y",
            "/..",
            ".",
            "a/b/c/..",
        ];
        for root in roots {
            for cwd in cwds {
                for raw in raws {
                    let p = ClientPath::resolve(root, cwd, raw.as_bytes()).unwrap();
                    let parts: &[&str] = if raw.starts_with('/') {
                        &[raw]
                    } else {
                        &[cwd, raw]
                    };
                    let seen = normalise(parts).unwrap();
                    assert_eq!(p.seen(), seen, "{root} {cwd} {raw}");
                    assert_eq!(p.real(), under(root, &seen).unwrap(), "{root} {cwd} {raw}");
                }
            }
        }
    }

    #[test]
    fn relative_paths_join_the_current_directory() {
        assert_eq!(seen("/", b"a"), "/a");
        assert_eq!(seen("/etc", b"x/y"), "/etc/x/y");
        assert_eq!(seen("/etc", b"/abs"), "/abs");
        assert_eq!(seen("/etc", b"../up"), "/up");
        assert_eq!(seen("/a/b", b"./c//d/"), "/a/b/c/d");
    }

    #[test]
    fn a_path_ends_at_its_first_nul() {
        assert_eq!(seen("/", b"/a\0garbage"), "/a");
        let e = ClientPath::resolve("/", "/", b"\0").unwrap_err();
        assert_eq!(e, FsError::NotFound);
    }

    #[test]
    fn bad_paths_get_specific_errors() {
        let bad = |raw: &[u8]| ClientPath::resolve("/", "/", raw).unwrap_err();
        assert_eq!(bad(b""), FsError::NotFound);
        assert_eq!(bad(&[0xff, 0xfe]), FsError::Invalid);
        assert_eq!(bad(&[b'a'; MAX_PATH + 1]), FsError::NameTooLong);
    }

    #[test]
    fn every_path_lands_under_the_root() {
        let root = "/www";
        for raw in ["..", "/..", "../../..", "/../../", "a/../../..", "/./../."] {
            let p = ClientPath::resolve(root, "/", raw.as_bytes()).unwrap();
            assert_eq!(p.real(), "/www", "{raw}");
            assert_eq!(p.seen(), "/", "{raw}");
        }
        assert_eq!(real(root, "/", "/etc/passwd"), "/www/etc/passwd");
        assert_eq!(real(root, "/sub", "../../../secret"), "/www/secret");
        assert_eq!(real(root, "/sub", "x"), "/www/sub/x");
        // A root that is a prefix of a sibling's name stays a directory.
        assert_eq!(real(root, "/", "/../www2/x"), "/www/www2/x");
        assert_eq!(real("/", "/", "/../a"), "/a");
    }

    #[test]
    fn the_root_is_no_entry() {
        let p = ClientPath::resolve("/box", "/", b"/a/..").unwrap();
        assert_eq!(p.entry(), Err(FsError::Invalid));
        let p = ClientPath::resolve("/box", "/", b"/a").unwrap();
        assert_eq!(p.entry(), Ok("/box/a"));
    }

    #[test]
    fn normalise_resolves_dots() {
        assert_eq!(normalise(&["/a/./b/../c//"]).unwrap(), "/a/c");
        assert_eq!(normalise(&["/../.."]).unwrap(), "/");
        assert_eq!(normalise(&["/a", "../../b"]).unwrap(), "/b");
    }

    #[test]
    fn at_or_above() {
        assert!(is_at_or_above("/a", "/a/b"));
        assert!(is_at_or_above("/a/b", "/a/b"));
        assert!(is_at_or_above("/", "/a"));
        assert!(!is_at_or_above("/a/b", "/a/bc"));
        assert!(!is_at_or_above("/a", "/"));
    }
}
