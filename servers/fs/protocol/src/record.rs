//! The fixed records the server writes into client buffers, little-endian
//! at fixed offsets so a compound can address a field with a buffer ref
//! (a record size times a loop counter, plus the field's offset).
//!
//! Each record has `SIZE`, `encode` (into a buffer at least `SIZE` long)
//! and `decode` (from one; `None` if it is too short or a field holds a
//! value no server writes).

/// What an inode is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A regular file.
    File = 1,
    /// A directory.
    Directory = 2,
    /// A symbolic link (the server does not follow them).
    Symlink = 3,
    /// A device node, FIFO or socket (made by host tools only).
    Special = 4,
    /// A directory entry that records no type.
    Unknown = 5,
}

impl Kind {
    fn from_u8(v: u8) -> Option<Kind> {
        Some(match v {
            1 => Kind::File,
            2 => Kind::Directory,
            3 => Kind::Symlink,
            4 => Kind::Special,
            5 => Kind::Unknown,
            _ => return None,
        })
    }

    /// The letter `ls -l` shows for it.
    pub fn letter(self) -> char {
        match self {
            Kind::File => '-',
            Kind::Directory => 'd',
            Kind::Symlink => 'l',
            Kind::Special => 'c',
            Kind::Unknown => '?',
        }
    }
}

fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(dst) = out.get_mut(at..at + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}

fn get<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut v = [0u8; N];
    if let Some(src) = bytes.get(at..at + N) {
        v.copy_from_slice(src);
    }
    v
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(get(b, at))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(get(b, at))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(get(b, at))
}

/// `stat`'s answer (64 bytes): inode 0, size 8, blocks 16, atime 24,
/// mtime 28, ctime 32, uid 36, gid 40, perm 44, links 46, kind 48, the
/// rest zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    /// Inode number.
    pub ino: u64,
    /// Bytes.
    pub size: u64,
    /// 512-byte units allocated.
    pub blocks: u64,
    /// Seconds since the Unix epoch.
    pub atime: u32,
    /// Seconds since the Unix epoch.
    pub mtime: u32,
    /// Seconds since the Unix epoch.
    pub ctime: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// Permission bits (`0o7777` at most).
    pub perm: u16,
    /// Hard links.
    pub links: u16,
    /// What it is.
    pub kind: Kind,
}

impl Stat {
    /// Bytes on the wire.
    pub const SIZE: usize = 64;
    /// Offset of `size`, for compounds that add sizes up.
    pub const SIZE_OFFSET: usize = 8;

    /// Writes the record into `out[..SIZE]`; false if `out` is shorter.
    pub fn encode(&self, out: &mut [u8]) -> bool {
        let Some(out) = out.get_mut(..Self::SIZE) else {
            return false;
        };
        out.fill(0);
        put(out, 0, &self.ino.to_le_bytes());
        put(out, 8, &self.size.to_le_bytes());
        put(out, 16, &self.blocks.to_le_bytes());
        put(out, 24, &self.atime.to_le_bytes());
        put(out, 28, &self.mtime.to_le_bytes());
        put(out, 32, &self.ctime.to_le_bytes());
        put(out, 36, &self.uid.to_le_bytes());
        put(out, 40, &self.gid.to_le_bytes());
        put(out, 44, &self.perm.to_le_bytes());
        put(out, 46, &self.links.to_le_bytes());
        put(out, 48, &[self.kind as u8]);
        true
    }

    /// Reads a record the server wrote.
    pub fn decode(b: &[u8]) -> Option<Stat> {
        let b = b.get(..Self::SIZE)?;
        Some(Stat {
            ino: u64_at(b, 0),
            size: u64_at(b, 8),
            blocks: u64_at(b, 16),
            atime: u32_at(b, 24),
            mtime: u32_at(b, 28),
            ctime: u32_at(b, 32),
            uid: u32_at(b, 36),
            gid: u32_at(b, 40),
            perm: u16_at(b, 44),
            links: u16_at(b, 46),
            kind: Kind::from_u8(b[48])?,
        })
    }
}

/// One directory entry (264 bytes): inode 0 (u32), kind 4, name length 5,
/// name from 8, NUL-padded to 256 bytes. `.` and `..` are never listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dirent {
    /// Inode number.
    pub ino: u32,
    /// What it is, as the directory records it.
    pub kind: Kind,
    name_len: u8,
    name: [u8; Dirent::NAME_MAX],
}

impl Dirent {
    /// Bytes on the wire.
    pub const SIZE: usize = 264;
    /// Offset of the name, for compounds that pass it on (`statat`).
    pub const NAME_OFFSET: usize = 8;
    /// The longest name (ext4's limit).
    pub const NAME_MAX: usize = 255;

    /// An entry; `None` if the name is empty or longer than `NAME_MAX`.
    pub fn new(ino: u32, kind: Kind, name: &[u8]) -> Option<Dirent> {
        let len = u8::try_from(name.len()).ok().filter(|l| *l > 0)?;
        let mut buf = [0u8; Dirent::NAME_MAX];
        buf.get_mut(..name.len())?.copy_from_slice(name);
        Some(Dirent {
            ino,
            kind,
            name_len: len,
            name: buf,
        })
    }

    /// The entry's name.
    pub fn name(&self) -> &[u8] {
        &self.name[..usize::from(self.name_len)]
    }

    /// Writes the record into `out[..SIZE]`; false if `out` is shorter.
    pub fn encode(&self, out: &mut [u8]) -> bool {
        let Some(out) = out.get_mut(..Self::SIZE) else {
            return false;
        };
        out.fill(0);
        put(out, 0, &self.ino.to_le_bytes());
        put(out, 4, &[self.kind as u8, self.name_len]);
        put(out, Self::NAME_OFFSET, self.name());
        true
    }

    /// Reads a record the server wrote.
    pub fn decode(b: &[u8]) -> Option<Dirent> {
        let b = b.get(..Self::SIZE)?;
        let kind = Kind::from_u8(b[4])?;
        let len = usize::from(b[5]);
        Dirent::new(u32_at(b, 0), kind, b.get(8..8 + len)?)
    }
}

/// One entry of `readdirplus` (328 bytes): the entry's [`Stat`] at 0, its
/// [`Dirent`] at [`DirentPlus::DIRENT_OFFSET`] — NFSv3's `READDIRPLUS`,
/// `ls -l`'s listing and status in one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirentPlus {
    pub stat: Stat,
    pub dirent: Dirent,
}

impl DirentPlus {
    /// Bytes on the wire.
    pub const SIZE: usize = Stat::SIZE + Dirent::SIZE;
    /// Offset of the [`Dirent`] (and of its name, plus
    /// [`Dirent::NAME_OFFSET`]).
    pub const DIRENT_OFFSET: usize = Stat::SIZE;

    /// Writes the record into `out[..SIZE]`; false if `out` is shorter.
    pub fn encode(&self, out: &mut [u8]) -> bool {
        out.len() >= Self::SIZE
            && self.stat.encode(out)
            && self.dirent.encode(&mut out[Self::DIRENT_OFFSET..])
    }

    /// Reads a record the server wrote.
    pub fn decode(b: &[u8]) -> Option<DirentPlus> {
        let b = b.get(..Self::SIZE)?;
        Some(DirentPlus {
            stat: Stat::decode(b)?,
            dirent: Dirent::decode(&b[Self::DIRENT_OFFSET..])?,
        })
    }
}

/// `statfs`'s answer (40 bytes): block size 0, blocks 8, free blocks 16,
/// inodes 24 (u32), free inodes 28 (u32), open handles 32 (u32), the rest
/// zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FsTotals {
    /// Bytes per block.
    pub block_size: u64,
    /// Blocks on the file system.
    pub blocks: u64,
    /// Blocks free.
    pub free_blocks: u64,
    /// Inodes on the file system.
    pub inodes: u32,
    /// Inodes free.
    pub free_inodes: u32,
    /// File handles open, over every client's session (what clients hold
    /// now, not the disk: a departed client's come back).
    pub open_handles: u32,
}

impl FsTotals {
    /// Bytes on the wire.
    pub const SIZE: usize = 40;

    /// Writes the record into `out[..SIZE]`; false if `out` is shorter.
    pub fn encode(&self, out: &mut [u8]) -> bool {
        let Some(out) = out.get_mut(..Self::SIZE) else {
            return false;
        };
        out.fill(0);
        put(out, 0, &self.block_size.to_le_bytes());
        put(out, 8, &self.blocks.to_le_bytes());
        put(out, 16, &self.free_blocks.to_le_bytes());
        put(out, 24, &self.inodes.to_le_bytes());
        put(out, 28, &self.free_inodes.to_le_bytes());
        put(out, 32, &self.open_handles.to_le_bytes());
        true
    }

    /// Reads a record the server wrote.
    pub fn decode(b: &[u8]) -> Option<FsTotals> {
        let b = b.get(..Self::SIZE)?;
        Some(FsTotals {
            block_size: u64_at(b, 0),
            blocks: u64_at(b, 8),
            free_blocks: u64_at(b, 16),
            inodes: u32_at(b, 24),
            free_inodes: u32_at(b, 28),
            open_handles: u32_at(b, 32),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plus_entry_is_its_stat_then_its_dirent() {
        let stat = Stat {
            ino: 12,
            size: 3,
            blocks: 8,
            atime: 1,
            mtime: 2,
            ctime: 3,
            uid: 0,
            gid: 0,
            perm: 0o644,
            links: 1,
            kind: Kind::File,
        };
        let dirent = Dirent::new(12, Kind::File, b"notes").unwrap();
        let plus = DirentPlus { stat, dirent };
        let mut out = [0xffu8; DirentPlus::SIZE];
        assert!(plus.encode(&mut out));
        assert_eq!(Stat::decode(&out), Some(stat));
        assert_eq!(
            Dirent::decode(&out[DirentPlus::DIRENT_OFFSET..]),
            Some(dirent)
        );
        assert_eq!(DirentPlus::decode(&out), Some(plus));
        assert!(!plus.encode(&mut out[..DirentPlus::SIZE - 1]));
        assert_eq!(DirentPlus::decode(&out[..DirentPlus::SIZE - 1]), None);
    }

    #[test]
    fn stat_layout_is_fixed() {
        let s = Stat {
            ino: 12,
            size: 0x0102_0304,
            blocks: 8,
            atime: 1,
            mtime: 2,
            ctime: 3,
            uid: 1000,
            gid: 100,
            perm: 0o644,
            links: 1,
            kind: Kind::File,
        };
        let mut out = [0xAAu8; 70];
        assert!(s.encode(&mut out));
        assert_eq!(&out[0..8], &[12, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&out[8..12], &[4, 3, 2, 1]);
        assert_eq!(&out[44..49], &[0xA4, 0x01, 1, 0, 1]);
        assert!(out[49..64].iter().all(|b| *b == 0));
        assert_eq!(out[64], 0xAA, "nothing past the record is touched");
        assert_eq!(Stat::decode(&out), Some(s));
        assert!(!s.encode(&mut [0u8; 63]));
        assert_eq!(Stat::decode(&out[..63]), None);
    }

    #[test]
    fn dirent_layout_is_fixed() {
        let d = Dirent::new(7, Kind::Directory, b"etc").unwrap();
        let mut out = [0xAAu8; Dirent::SIZE];
        assert!(d.encode(&mut out));
        assert_eq!(&out[..11], &[7, 0, 0, 0, 2, 3, 0, 0, b'e', b't', b'c']);
        assert!(out[11..].iter().all(|b| *b == 0));
        assert_eq!(Dirent::decode(&out), Some(d));
        assert_eq!(d.name(), b"etc");
    }

    #[test]
    fn dirent_refuses_empty_and_long_names() {
        assert!(Dirent::new(1, Kind::File, b"").is_none());
        assert!(Dirent::new(1, Kind::File, &[b'a'; 256]).is_none());
        let longest = Dirent::new(1, Kind::File, &[b'a'; 255]).unwrap();
        let mut out = [0u8; Dirent::SIZE];
        assert!(longest.encode(&mut out));
        assert_eq!(Dirent::decode(&out).unwrap().name().len(), 255);
    }

    #[test]
    fn decode_refuses_unknown_kinds() {
        let mut out = [0u8; Stat::SIZE];
        out[48] = 9;
        assert_eq!(Stat::decode(&out), None);
    }

    #[test]
    fn totals_round_trip() {
        let t = FsTotals {
            block_size: 4096,
            blocks: 65536,
            free_blocks: 1000,
            inodes: 16384,
            free_inodes: 16000,
            open_handles: 7,
        };
        let mut out = [0u8; FsTotals::SIZE];
        assert!(t.encode(&mut out));
        assert_eq!(FsTotals::decode(&out), Some(t));
    }
}
