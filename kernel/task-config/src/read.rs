//! The task's side: checking its section once at start and looking
//! values up by key.

use crate::{ConfigError, HEADER, MAGIC, MAX_KEY, MAX_NAME, SIZE, VERSION};

/// A checked configuration section: every accessor is infallible.
#[derive(Clone, Copy)]
pub struct Config<'s> {
    name: &'s str,
    index: u32,
    entries: &'s [u8],
    count: usize,
}

impl<'s> Config<'s> {
    /// Checks `section` whole (see the crate docs) and returns a view of it.
    pub fn parse(section: &'s [u8]) -> Result<Self, ConfigError> {
        if section.len() != SIZE {
            return Err(ConfigError::Size {
                found: section.len(),
                expected: SIZE,
            });
        }
        let (magic, version) = (&section[0..4], u16_at(section, 4));
        if magic != MAGIC {
            return Err(if magic == [0; 4] {
                ConfigError::Empty
            } else {
                ConfigError::BadMagic
            });
        }
        if version != VERSION {
            return Err(ConfigError::Version {
                found: version,
                expected: VERSION,
            });
        }
        let built = u32_at(section, 8) as usize;
        if built != SIZE {
            return Err(ConfigError::Size {
                found: built,
                expected: SIZE,
            });
        }
        let used = u32_at(section, 12) as usize;
        if !(HEADER..=SIZE).contains(&used) {
            return Err(ConfigError::Used { used, size: SIZE });
        }
        let len = usize::from(section[24]);
        let name = (len <= MAX_NAME)
            .then(|| core::str::from_utf8(&section[25..25 + len]).ok())
            .flatten()
            .ok_or(ConfigError::Name { len })?;
        let config = Self {
            name,
            index: u32_at(section, 16),
            entries: &section[HEADER..used],
            count: u32_at(section, 20) as usize,
        };
        config.check_entries()?;
        Ok(config)
    }

    /// The task's name in the manifest.
    pub fn name(&self) -> &'s str {
        self.name
    }

    /// The task's index in start order (the kernel's task index).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The value of `key` (`TASK_INDEX`, `caps::FLOW`, `device::BDF`, ...),
    /// if the manifest gives this task one.
    pub fn get(&self, key: &str) -> Option<u64> {
        self.entries().find(|&(k, _)| k == key).map(|(_, v)| v)
    }

    /// Every `(key, value)`, in the order the runner wrote them.
    pub fn entries(&self) -> Entries<'s> {
        Entries {
            rest: self.entries,
            left: self.count,
        }
    }

    /// Walks the entries once, so that [`Entries`] can trust them.
    fn check_entries(&self) -> Result<(), ConfigError> {
        let mut rest = self.entries;
        for entry in 0..self.count {
            let len = usize::from(*rest.first().ok_or(ConfigError::Truncated { entry })?);
            if len == 0 || len > MAX_KEY {
                return Err(ConfigError::Key { entry });
            }
            if rest.len() < 1 + len + 8 {
                return Err(ConfigError::Truncated { entry });
            }
            core::str::from_utf8(&rest[1..1 + len]).map_err(|_| ConfigError::Key { entry })?;
            rest = &rest[1 + len + 8..];
        }
        Ok(())
    }
}

/// The entries of a checked [`Config`].
pub struct Entries<'s> {
    rest: &'s [u8],
    left: usize,
}

impl<'s> Iterator for Entries<'s> {
    type Item = (&'s str, u64);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // `Config::parse` checked every entry, so none of these can fail;
        // the `?`s keep a broken invariant from becoming a panic.
        let len = usize::from(*self.rest.first()?);
        let key = core::str::from_utf8(self.rest.get(1..1 + len)?).ok()?;
        let value = u64_at(self.rest, 1 + len)?;
        self.rest = self.rest.get(1 + len + 8..)?;
        Some((key, value))
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}
