//! Commands on names and directories: ls, stat, mkdir, rmdir, rm, mv, cd,
//! pwd, df, sync. `ls -l` uses `readdirplus`: each batch of up to 64
//! entries comes back with every entry's status in one IPC.

use alloc::string::String;
use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops;
use conflux_fs_protocol::record::{Kind, Stat};
use conflux_userlib::println;

use crate::Failed;

/// `ls [-l] [PATH…]`.
pub fn ls(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    let long = args.first().is_some_and(|a| a == "-l");
    let paths = if long { &args[1..] } else { args };
    if let Some(bad) = paths.iter().find(|p| p.starts_with('-')) {
        return Err(Failed::usage(&alloc::format!(
            "unknown option `{bad}`: ls knows only -l"
        )));
    }
    let here = [String::from(".")];
    let paths = if paths.is_empty() { &here[..] } else { paths };
    let mut failed = None;
    for path in paths {
        if paths.len() > 1 {
            println!("{path}:");
        }
        if let Err(e) = ls_one(fs, path, long) {
            println!("ls: {path}: {e}");
            failed = Some(Failed::Reported);
        }
    }
    failed.map_or(Ok(()), Err)
}

fn ls_one(fs: &mut Fs, path: &str, long: bool) -> Result<(), Error> {
    let st = fs.stat(path)?;
    if st.kind != Kind::Directory {
        if long {
            println!("{}", long_line(&st, path));
        } else {
            println!("{path}");
        }
        return Ok(());
    }
    let fd = fs.open(path, ops::O_RDONLY | ops::O_DIRECTORY, 0)?;
    // `ls -l`: each batch of entries comes with their status
    // (`readdirplus`), however large the directory.
    let result = (|| loop {
        if long {
            let batch = fs.readdir_plus(fd)?;
            if batch.is_empty() {
                return Ok(());
            }
            for e in batch {
                println!("{}", long_line(&e.stat, &name(e.dirent.name())));
            }
            continue;
        }
        let batch = fs.readdir(fd)?;
        if batch.is_empty() {
            return Ok(());
        }
        for d in batch {
            let slash = if d.kind == Kind::Directory { "/" } else { "" };
            println!("{}{slash}", name(d.name()));
        }
    })();
    let closed = fs.close(fd);
    result.and(closed)
}

/// `drwxr-xr-x  2      4096 1732500000 name`.
fn long_line(st: &Stat, name: &str) -> String {
    let kind = match st.kind {
        Kind::Directory => 'd',
        Kind::Symlink => 'l',
        _ => '-',
    };
    let mut perm = String::new();
    for (i, c) in "rwxrwxrwx".chars().enumerate() {
        perm.push(if st.perm & (0o400 >> i) != 0 { c } else { '-' });
    }
    alloc::format!(
        "{kind}{perm} {:>3} {:>10} {:>10} {name}",
        st.links,
        st.size,
        st.mtime
    )
}

pub fn name(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `stat PATH…`.
pub fn stat(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    each("stat", args, "stat PATH…", |path| {
        let st = fs.stat(path)?;
        println!(
            "{path}: {:?}, {} bytes, {} blocks of 512, inode {}, links {}, mode {:o}, uid {} gid {}, mtime {}",
            st.kind, st.size, st.blocks, st.ino, st.links, st.perm, st.uid, st.gid, st.mtime
        );
        Ok(())
    })
}

/// `mkdir DIR…`.
pub fn mkdir(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    each("mkdir", args, "mkdir DIR…", |p| fs.mkdir(p, 0o755))
}

/// `rmdir DIR…`.
pub fn rmdir(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    each("rmdir", args, "rmdir DIR…", |p| fs.rmdir(p))
}

/// `rm FILE…`.
pub fn rm(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    each("rm", args, "rm FILE…", |p| fs.unlink(p))
}

/// `mv FROM TO`: into TO if it is a directory.
pub fn mv(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    let [from, to] = args else {
        return Err(Failed::usage("mv FROM TO"));
    };
    let to = into_directory(fs, from, to);
    fs.rename(from, &to).map_err(|e| Failed::on(from, e))
}

/// `to`, or `to/basename(from)` when `to` is a directory.
pub fn into_directory(fs: &mut Fs, from: &str, to: &str) -> String {
    match fs.stat(to) {
        Ok(st) if st.kind == Kind::Directory => {
            let base = from
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(from);
            alloc::format!("{}/{base}", to.trim_end_matches('/'))
        }
        _ => String::from(to),
    }
}

/// `cd [DIR]` (to `/` without one).
pub fn cd(fs: &mut Fs, args: &[String]) -> Result<(), Failed> {
    let dir = match args {
        [] => "/",
        [dir] => dir.as_str(),
        _ => return Err(Failed::usage("cd [DIR]")),
    };
    fs.chdir(dir).map_err(|e| Failed::on(dir, e))
}

/// `pwd`.
pub fn pwd(fs: &mut Fs) -> Result<(), Failed> {
    let cwd = fs.getcwd().map_err(|e| Failed::on(".", e))?;
    println!("{cwd}");
    Ok(())
}

/// `df`: the file system's size and what is free.
pub fn df(fs: &mut Fs) -> Result<(), Failed> {
    let t = fs.statfs().map_err(|e| Failed::on("/", e))?;
    let kib = |blocks: u64| blocks * t.block_size / 1024;
    println!("      KiB-total    KiB-used    KiB-free  inodes-used  inodes-free");
    println!(
        "{:>15} {:>11} {:>11} {:>12} {:>12}",
        kib(t.blocks),
        kib(t.blocks - t.free_blocks.min(t.blocks)),
        kib(t.free_blocks),
        t.inodes - t.free_inodes.min(t.inodes),
        t.free_inodes
    );
    Ok(())
}

/// `sync`: write every cached block to the disk.
pub fn sync(fs: &mut Fs) -> Result<(), Failed> {
    fs.sync().map_err(|e| Failed::on("/", e))
}

/// Runs `op` on every argument (at least one), reporting each failure as
/// `CMD: ARG: why` and going on with the rest.
pub fn each(
    cmd: &str,
    args: &[String],
    usage: &str,
    mut op: impl FnMut(&str) -> Result<(), Error>,
) -> Result<(), Failed> {
    if args.is_empty() {
        return Err(Failed::usage(usage));
    }
    let mut result = Ok(());
    for a in args {
        if let Err(e) = op(a) {
            println!("{cmd}: {a}: {e}");
            result = Err(Failed::Reported);
        }
    }
    result
}
