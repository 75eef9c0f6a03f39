//! Paths and names, checked before anything reaches the file system.
//!
//! A path is absolute (`/a/b`), at most [`MAX_PATH`] bytes, without NUL
//! bytes; empty components (`//`) and `.` are skipped and `..` goes up
//! lexically (never above the root). That is exact here because this
//! layer never follows symbolic links: a symlink met along the way is
//! not a directory. Each name is 1..=[`MAX_NAME`] bytes.

use alloc::vec::Vec;

use crate::error::{Error, Result};

/// The longest name of one directory entry, in bytes (ext4's limit).
pub const MAX_NAME: usize = 255;
/// The longest path accepted, in bytes (POSIX's usual `PATH_MAX`).
pub const MAX_PATH: usize = 4096;

/// Checks one entry name: not empty, no `/` or NUL, not `.` or `..`
/// (`InvalidPath`), at most [`MAX_NAME`] bytes (`NameTooLong`).
pub fn check_name(name: &[u8]) -> Result<()> {
    if name.is_empty() || name == b"." || name == b".." {
        return Err(Error::InvalidPath);
    }
    if name.contains(&b'/') || name.contains(&0) {
        return Err(Error::InvalidPath);
    }
    if name.len() > MAX_NAME {
        return Err(Error::NameTooLong);
    }
    Ok(())
}

/// The names of `path` if it is already in its plain form — absolute, no
/// NUL, no empty, `.` or `..` component (the file server resolves every
/// client path to this form) — so a walk can take them as they come,
/// without collecting them; `None` for any other path, which
/// [`components`] then resolves.
pub fn plain(path: &str) -> Option<impl Iterator<Item = &[u8]>> {
    let bytes = path.as_bytes();
    let rest = bytes.strip_prefix(b"/")?;
    if bytes.len() > MAX_PATH || rest.is_empty() {
        return None;
    }
    // One pass over the bytes: no NUL, and no name empty, `.` or `..`.
    let (mut len, mut dots) = (0, 0);
    for &b in rest.iter().chain([&b'/']) {
        match b {
            b'/' if len == 0 || dots == len => return None,
            b'/' => (len, dots) = (0, 0),
            0 => return None,
            b'.' if len < 2 => (len, dots) = (len + 1, dots + 1),
            _ => len += 1,
        }
    }
    Some(rest.split(|&b| b == b'/'))
}

/// The names from the root to the entry `path` names; empty for the root.
pub fn components(path: &str) -> Result<Vec<&[u8]>> {
    let bytes = path.as_bytes();
    if bytes.first() != Some(&b'/') || bytes.contains(&0) {
        return Err(Error::InvalidPath);
    }
    if bytes.len() > MAX_PATH {
        return Err(Error::NameTooLong);
    }
    let mut names: Vec<&[u8]> = Vec::new();
    for name in bytes.split(|&b| b == b'/') {
        match name {
            b"" | b"." => {}
            b".." => {
                names.pop();
            }
            name => {
                check_name(name)?;
                names.push(name);
            }
        }
    }
    Ok(names)
}

/// A path split into the names of its parent directory and its last name,
/// for operations that make or remove an entry. The root has no last
/// name (`InvalidPath`).
pub fn split_last(path: &str) -> Result<(Vec<&[u8]>, &[u8])> {
    let mut names = components(path)?;
    let last = names.pop().ok_or(Error::InvalidPath)?;
    Ok((names, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(components("/").unwrap(), Vec::<&[u8]>::new());
        assert_eq!(components("//a/./b//").unwrap(), [b"a" as &[u8], b"b"]);
        assert_eq!(components("/a/../../b").unwrap(), [b"b" as &[u8]]);
    }

    #[test]
    fn bad_paths_are_refused() {
        assert_eq!(components(""), Err(Error::InvalidPath));
        assert_eq!(components("a/b"), Err(Error::InvalidPath));
        assert_eq!(components("/a\0b"), Err(Error::InvalidPath));
        let long = alloc::format!("/{}", "x".repeat(256));
        assert_eq!(components(&long), Err(Error::NameTooLong));
        let deep = "/ab".repeat(MAX_PATH / 3 + 1);
        assert_eq!(components(&deep), Err(Error::NameTooLong));
        assert_eq!(split_last("/"), Err(Error::InvalidPath));
        assert_eq!(split_last("/a/.."), Err(Error::InvalidPath));
    }

    #[test]
    fn a_path_of_max_path_bytes_is_taken_and_one_byte_more_is_too_long() {
        let at = "/a".repeat(MAX_PATH / 2);
        assert_eq!(at.len(), MAX_PATH);
        assert_eq!(components(&at).map(|c| c.len()), Ok(MAX_PATH / 2));
        let past = alloc::format!("{at}b");
        assert_eq!(components(&past), Err(Error::NameTooLong));
        let name = alloc::format!("/{}", "n".repeat(MAX_NAME));
        assert_eq!(components(&name).map(|c| c.len()), Ok(1), "MAX_NAME");
    }

    #[test]
    fn plain_paths_are_walked_as_they_are() {
        fn names(p: &str) -> Option<Vec<&[u8]>> {
            plain(p).map(|n| n.collect())
        }
        assert_eq!(names("/a/bc"), Some(vec![b"a" as &[u8], b"bc"]));
        for other in ["/", "", "a/b", "/a//b", "/a/", "/./a", "/a/..", "/a\0b"] {
            assert_eq!(names(other), None, "{other}");
        }
        // Whatever `plain` takes, `components` reads the same way.
        assert_eq!(names("/x/y").unwrap(), components("/x/y").unwrap());
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name(&[b'n'; MAX_NAME]).is_ok());
        assert_eq!(check_name(&[b'n'; MAX_NAME + 1]), Err(Error::NameTooLong));
        for bad in [&b""[..], b".", b"..", b"a/b", b"a\0"] {
            assert_eq!(check_name(bad), Err(Error::InvalidPath), "{bad:?}");
        }
    }
}
