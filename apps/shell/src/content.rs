//! Commands on file contents: cat, cp, write, echo (with `>` and `>>`),
//! grep, hexdump. Each reads and writes 4 KiB at a time through the
//! per-call path, so a file of any size passes through a fixed buffer.

use alloc::string::String;
use alloc::vec::Vec;
use conflux_fs_client::{Error, Fd, Fs};
use conflux_fs_protocol::ops;
use conflux_userlib::{print, println};

use crate::files::{each, into_directory};
use crate::words::Redirect;
use crate::Failed;

const CHUNK: usize = 4096;
/// A grep line longer than this is matched in pieces of this size.
const GREP_LINE_MAX: usize = 64 * 1024;

/// Opens `path`, runs `body` on it and closes it, whatever `body` returns.
fn with_file<T>(
    fs: &mut Fs,
    path: &str,
    flags: u64,
    body: impl FnOnce(&mut Fs, Fd) -> Result<T, Error>,
) -> Result<T, Error> {
    let fd = fs.open(path, flags, 0o644)?;
    let result = body(fs, fd);
    let closed = fs.close(fd);
    let value = result?;
    closed.map(|()| value)
}

/// Calls `sink` with each chunk of the file at `fd` until its end.
fn chunks(fs: &mut Fs, fd: Fd, mut sink: impl FnMut(&[u8])) -> Result<(), Error> {
    let mut buf = [0u8; CHUNK];
    loop {
        let n = fs.read(fd, &mut buf)?;
        if n == 0 {
            return Ok(());
        }
        sink(&buf[..n]);
    }
}

/// `cat FILE…`.
pub fn cat(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    each("cat", args, "cat FILE…", |path| {
        let mut ends_with_newline = true;
        with_file(fs, path, ops::O_RDONLY, |fs, fd| {
            chunks(fs, fd, |b| {
                print!("{}", String::from_utf8_lossy(b));
                ends_with_newline = b.ends_with(b"\n");
            })
        })?;
        if !ends_with_newline {
            println!();
        }
        Ok(())
    })
}

/// `cp FROM TO`: into TO if it is a directory.
pub fn cp(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    let [from, to] = args else {
        return Err(Failed::usage("cp FROM TO"));
    };
    let to = into_directory(fs, from, to);
    let copy = |fs: &mut Fs| {
        with_file(fs, from, ops::O_RDONLY, |fs, src| {
            let flags = ops::O_WRONLY | ops::O_CREAT | ops::O_TRUNC;
            with_file(fs, &to, flags, |fs, dst| {
                let mut buf = [0u8; CHUNK];
                loop {
                    let n = fs.read(src, &mut buf)?;
                    if n == 0 {
                        return Ok(());
                    }
                    write_all(fs, dst, &buf[..n])?;
                }
            })
        })
    };
    copy(fs).map_err(|e| Failed::on(&alloc::format!("{from} -> {to}"), e))
}

fn write_all(fs: &mut Fs, fd: Fd, mut bytes: &[u8]) -> Result<(), Error> {
    while !bytes.is_empty() {
        let n = fs.write(fd, &bytes[..bytes.len().min(CHUNK)])?;
        if n == 0 {
            return Err(Error::Fs(conflux_fs_protocol::FsError::NoSpace));
        }
        bytes = &bytes[n..];
    }
    Ok(())
}

/// Writes `text` to `path`, emptying it first or appending.
fn put(fs: &mut Fs, path: &str, text: &str, append: bool) -> Result<(), Failed> {
    let mode = if append { ops::O_APPEND } else { ops::O_TRUNC };
    let flags = ops::O_WRONLY | ops::O_CREAT | mode;
    with_file(fs, path, flags, |fs, fd| write_all(fs, fd, text.as_bytes()))
        .map_err(|e| Failed::on(path, e))
}

/// `write FILE TEXT…`: the file holds TEXT and a newline.
pub fn write(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    let Some((file, words)) = args.split_first() else {
        return Err(Failed::usage("write FILE TEXT…"));
    };
    put(fs, file, &(words.join(" ") + "\n"), false)
}

/// `echo TEXT… [> FILE | >> FILE]`.
pub fn echo(fs: &mut Fs, args: &[String], redirect: &Redirect) -> Result<(), Failed> {
    let text = args.join(" ") + "\n";
    match redirect {
        Redirect::None => {
            print!("{text}");
            Ok(())
        }
        Redirect::Truncate(file) => put(fs, file, &text, false),
        Redirect::Append(file) => put(fs, file, &text, true),
    }
}

/// `grep PATTERN FILE…`: the lines holding PATTERN (a fixed string).
pub fn grep(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    let Some((pattern, files)) = args.split_first() else {
        return Err(Failed::usage("grep PATTERN FILE…"));
    };
    if pattern.is_empty() {
        return Err(Failed::usage(
            "grep PATTERN FILE… (an empty pattern matches every line: use cat)",
        ));
    }
    let many = files.len() > 1;
    let mut found = false;
    each("grep", files, "grep PATTERN FILE…", |path| {
        let mut line = Vec::new();
        let mut show = |line: &[u8]| {
            if contains(line, pattern.as_bytes()) {
                found = true;
                let text = String::from_utf8_lossy(line);
                if many {
                    println!("{path}:{text}");
                } else {
                    println!("{text}");
                }
            }
        };
        with_file(fs, path, ops::O_RDONLY, |fs, fd| {
            chunks(fs, fd, |b| {
                for &byte in b {
                    if byte == b'\n' || line.len() == GREP_LINE_MAX {
                        show(&line);
                        line.clear();
                    }
                    if byte != b'\n' {
                        line.push(byte);
                    }
                }
            })
        })?;
        if !line.is_empty() {
            show(&line);
        }
        Ok(())
    })?;
    if found {
        Ok(())
    } else {
        Err(Failed::Quiet)
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `hexdump FILE`: offset, 16 bytes in hex, and the printable ones.
pub fn hexdump(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    let [path] = args else {
        return Err(Failed::usage("hexdump FILE"));
    };
    let mut offset = 0u64;
    let mut row = Vec::with_capacity(16);
    let dump = with_file(fs, path, ops::O_RDONLY, |fs, fd| {
        chunks(fs, fd, |b| {
            for &byte in b {
                row.push(byte);
                if row.len() == 16 {
                    hex_row(offset, &row);
                    offset += 16;
                    row.clear();
                }
            }
        })
    });
    dump.map_err(|e| Failed::on(path, e))?;
    if !row.is_empty() {
        hex_row(offset, &row);
    }
    println!("{:08x}", offset + row.len() as u64);
    Ok(())
}

fn hex_row(offset: u64, row: &[u8]) {
    let mut hex = String::new();
    for (i, b) in row.iter().enumerate() {
        if i == 8 {
            hex.push(' ');
        }
        hex.push_str(&alloc::format!("{b:02x} "));
    }
    let text: String = row
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            }
        })
        .collect();
    println!("{offset:08x}  {hex:<49} |{text}|");
}
