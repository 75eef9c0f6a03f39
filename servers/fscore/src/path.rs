//! A client's path, as bytes from its buffer, made into the absolute path
//! the file system takes: it ends at the first NUL (or the buffer's end),
//! must be UTF-8, and a relative path is joined to the client's current
//! directory. `.` and `..` are left for `conflux-ext4`, which resolves
//! them lexically and checks every name.

use alloc::string::String;

use conflux_ext4::MAX_PATH;
use conflux_fs_protocol::FsError;

/// The bytes of a path operand: up to the first NUL.
pub fn operand(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// The absolute path `raw` names from directory `cwd` (itself absolute).
pub fn resolve(cwd: &str, raw: &[u8]) -> Result<String, FsError> {
    let raw = operand(raw);
    if raw.is_empty() {
        // POSIX: the empty path names nothing.
        return Err(FsError::NotFound);
    }
    let text = core::str::from_utf8(raw).map_err(|_| FsError::Invalid)?;
    let mut path = String::new();
    if !text.starts_with('/') {
        path.try_reserve(cwd.len() + 1 + text.len())
            .map_err(|_| FsError::NoMemory)?;
        path.push_str(cwd);
        if !cwd.ends_with('/') {
            path.push('/');
        }
    }
    path.push_str(text);
    if path.len() > MAX_PATH {
        return Err(FsError::NameTooLong);
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_current_directory() {
        assert_eq!(resolve("/", b"a").unwrap(), "/a");
        assert_eq!(resolve("/etc", b"x/y").unwrap(), "/etc/x/y");
        assert_eq!(resolve("/etc", b"/abs").unwrap(), "/abs");
        assert_eq!(resolve("/etc", b"../up").unwrap(), "/etc/../up");
    }

    #[test]
    fn a_path_ends_at_its_first_nul() {
        assert_eq!(resolve("/", b"/a\0garbage").unwrap(), "/a");
        assert_eq!(resolve("/", b"\0").unwrap_err(), FsError::NotFound);
    }

    #[test]
    fn bad_paths_get_specific_errors() {
        assert_eq!(resolve("/", b"").unwrap_err(), FsError::NotFound);
        assert_eq!(resolve("/", &[0xff, 0xfe]).unwrap_err(), FsError::Invalid);
        let long = [b'a'; MAX_PATH + 1];
        assert_eq!(resolve("/", &long).unwrap_err(), FsError::NameTooLong);
    }
}
