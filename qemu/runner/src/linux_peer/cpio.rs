//! The initramfs archive: the "newc" cpio format Linux unpacks at boot
//! (`Documentation/driver-api/early-userspace/buffer-format.rst`). Written
//! here, not taken from a crate: the format is a 110-byte ASCII header of
//! thirteen hex fields before each name and body, padded to 4 bytes, and
//! the peer needs only directories, files, symbolic links and one device
//! node (`/dev/console`, which the kernel opens for `/init`'s output
//! before anything can create it), all written without root privileges.

/// What one archive entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind<'a> {
    Dir,
    /// A regular file with these bytes; `exec` makes it executable.
    File {
        data: &'a [u8],
        exec: bool,
    },
    /// A symbolic link to this target.
    Symlink(&'a str),
    /// A character device `major:minor`.
    CharDev(u32, u32),
}

/// A newc archive being written.
#[derive(Default)]
pub struct Archive {
    bytes: Vec<u8>,
    next_ino: u32,
}

impl Archive {
    /// Adds `path` (without a leading `/`) as `kind`.
    pub fn add(&mut self, path: &str, kind: Kind<'_>) {
        let (mode, body, rdev): (u32, &[u8], (u32, u32)) = match kind {
            Kind::Dir => (0o040_755, &[], (0, 0)),
            Kind::File { data, exec } => (if exec { 0o100_755 } else { 0o100_644 }, data, (0, 0)),
            Kind::Symlink(target) => (0o120_777, target.as_bytes(), (0, 0)),
            Kind::CharDev(major, minor) => (0o020_600, &[], (major, minor)),
        };
        self.next_ino += 1;
        let nlink = if kind == Kind::Dir { 2 } else { 1 };
        self.entry(self.next_ino, mode, nlink, path, body, rdev);
    }

    /// The archive with its trailer.
    pub fn finish(mut self) -> Vec<u8> {
        self.entry(0, 0, 1, "TRAILER!!!", &[], (0, 0));
        self.bytes
    }

    fn entry(
        &mut self,
        ino: u32,
        mode: u32,
        nlink: u32,
        name: &str,
        body: &[u8],
        rdev: (u32, u32),
    ) {
        let name_size = name.len() + 1;
        let fields = [
            ino,
            mode,
            0, // uid
            0, // gid
            nlink,
            0, // mtime: fixed, so the archive depends only on its contents
            u32::try_from(body.len()).expect("an initramfs file under 4 GiB"),
            0, // devmajor
            0, // devminor
            rdev.0,
            rdev.1,
            u32::try_from(name_size).expect("a short name"),
            0, // check (only for the "070702" format)
        ];
        self.bytes.extend_from_slice(b"070701");
        for f in fields {
            self.bytes.extend_from_slice(format!("{f:08x}").as_bytes());
        }
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.push(0);
        self.pad();
        self.bytes.extend_from_slice(body);
        self.pad();
    }

    fn pad(&mut self) {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the archive back: (name, mode, rdev major, body) per entry.
    fn read(mut bytes: &[u8]) -> Vec<(String, u32, u32, Vec<u8>)> {
        let mut out = Vec::new();
        let total = bytes.len();
        loop {
            assert_eq!(&bytes[..6], b"070701");
            let field = |i: usize| {
                let s = std::str::from_utf8(&bytes[6 + 8 * i..14 + 8 * i]).unwrap();
                u32::from_str_radix(s, 16).unwrap() as usize
            };
            let (mode, size, major, name_size) = (field(1), field(6), field(9), field(11));
            let name = std::str::from_utf8(&bytes[110..110 + name_size - 1])
                .unwrap()
                .to_owned();
            let body_at = (110 + name_size).next_multiple_of(4);
            let body = bytes[body_at..body_at + size].to_vec();
            bytes = &bytes[(body_at + size).next_multiple_of(4)..];
            assert_eq!((total - bytes.len()) % 4, 0, "every entry ends 4-aligned");
            if name == "TRAILER!!!" {
                assert!(bytes.is_empty());
                return out;
            }
            out.push((name, mode as u32, major as u32, body));
        }
    }

    #[test]
    fn entries_read_back_with_their_kind_and_bytes() {
        let mut a = Archive::default();
        a.add("bin", Kind::Dir);
        a.add(
            "bin/busybox",
            Kind::File {
                data: b"\x7fELF-ish",
                exec: true,
            },
        );
        a.add("bin/sh", Kind::Symlink("busybox"));
        a.add("dev/console", Kind::CharDev(5, 1));
        a.add(
            "plan",
            Kind::File {
                data: b"fs-ops 1 nop 1\n",
                exec: false,
            },
        );
        let got = read(&a.finish());
        let names: Vec<&str> = got.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(
            names,
            ["bin", "bin/busybox", "bin/sh", "dev/console", "plan"]
        );
        assert_eq!(got[0].1, 0o040_755);
        assert_eq!(
            (got[1].1, got[1].3.as_slice()),
            (0o100_755, &b"\x7fELF-ish"[..])
        );
        assert_eq!(
            (got[2].1, got[2].3.as_slice()),
            (0o120_777, &b"busybox"[..])
        );
        assert_eq!((got[3].1, got[3].2), (0o020_600, 5));
        assert_eq!(got[4].1, 0o100_644);
    }

    #[test]
    fn an_empty_archive_is_only_the_trailer() {
        let bytes = Archive::default().finish();
        assert_eq!(bytes.len(), (110 + 11usize).next_multiple_of(4));
        assert!(read(&bytes).is_empty());
    }
}
