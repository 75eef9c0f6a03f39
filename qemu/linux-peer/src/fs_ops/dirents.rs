//! Listing a directory with `getdents64`, as `readdir(3)` does (glibc
//! reads 32 KiB at a time), without "." and "..".

use std::io;

/// Bytes one `getdents64` may fill.
pub const LIST_BUF: usize = 32 * 1024;

/// Lists directory `fd`: after each `getdents64`, calls `each_fill` with
/// the bytes filled and where in them each entry's NUL-terminated name
/// lies (`names`, reused); the number of entries.
pub fn list(
    fd: i32,
    buf: &mut [u8],
    names: &mut Vec<(usize, usize)>,
    mut each_fill: impl FnMut(&[u8], &[(usize, usize)]) -> io::Result<()>,
) -> io::Result<u64> {
    let mut count = 0;
    loop {
        // Safety: `buf` has room for `buf.len()` bytes the kernel fills.
        let n = unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n == 0 {
            return Ok(count);
        }
        let filled = &buf[..n as usize];
        names.clear();
        parse(filled, names)?;
        count += names.len() as u64;
        each_fill(filled, names)?;
    }
}

/// The name ranges (with their NUL) of the `struct linux_dirent64`
/// records in `filled` (ino u64, off i64, reclen u16, type u8, name),
/// leaving out "." and "..".
fn parse(filled: &[u8], names: &mut Vec<(usize, usize)>) -> io::Result<()> {
    let mut at = 0;
    while at < filled.len() {
        let reclen = match filled.get(at + 16..at + 18) {
            Some(b) => u16::from_ne_bytes([b[0], b[1]]) as usize,
            None => {
                return Err(io::Error::other(format!(
                    "getdents64 record cut at byte {at}"
                )))
            }
        };
        if reclen < 20 || at + reclen > filled.len() {
            return Err(io::Error::other(format!(
                "getdents64 gave a record of {reclen} bytes at byte {at}"
            )));
        }
        let name = &filled[at + 19..at + reclen];
        let Some(end) = name.iter().position(|&b| b == 0) else {
            return Err(io::Error::other(format!(
                "getdents64 name at byte {at} has no NUL"
            )));
        };
        if !matches!(&name[..end], b"." | b"..") {
            names.push((at + 19, at + 19 + end + 1));
        }
        at += reclen;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str) -> Vec<u8> {
        let reclen = (19 + name.len() + 1).div_ceil(8) * 8;
        let mut r = vec![0u8; reclen];
        r[16..18].copy_from_slice(&(reclen as u16).to_ne_bytes());
        r[19..19 + name.len()].copy_from_slice(name.as_bytes());
        r
    }

    #[test]
    fn names_are_found_and_the_dots_left_out() {
        let filled: Vec<u8> = [".", "..", "f00000", "a-longer-name"]
            .iter()
            .flat_map(|n| record(n))
            .collect();
        let mut names = Vec::new();
        parse(&filled, &mut names).unwrap();
        let got: Vec<&[u8]> = names.iter().map(|&(a, b)| &filled[a..b]).collect();
        assert_eq!(got, [&b"f00000\0"[..], &b"a-longer-name\0"[..]]);
    }

    #[test]
    fn a_cut_or_bad_record_is_an_error() {
        let mut r = record("x");
        assert!(parse(&r[..10], &mut Vec::new())
            .unwrap_err()
            .to_string()
            .contains("cut"));
        r[16] = 8;
        assert!(parse(&r, &mut Vec::new())
            .unwrap_err()
            .to_string()
            .contains("record of 8 bytes"));
    }
}
