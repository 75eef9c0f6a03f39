//! The runner's side: filling a task's section at image time.

use crate::{ConfigError, HEADER, MAGIC, MAX_KEY, MAX_NAME, SIZE, VERSION};

/// Writes a configuration into a section buffer, entry by entry.
pub struct Writer<'s> {
    section: &'s mut [u8],
    used: usize,
    count: u32,
}

impl<'s> Writer<'s> {
    /// Starts the configuration of the task at `index` named `name` in
    /// `section` (the bytes of the ELF's section, which must be [`SIZE`]
    /// long: the size the task reads).
    pub fn new(section: &'s mut [u8], index: u32, name: &str) -> Result<Self, ConfigError> {
        if section.len() != SIZE {
            return Err(ConfigError::Size {
                found: section.len(),
                expected: SIZE,
            });
        }
        if name.len() > MAX_NAME {
            return Err(ConfigError::Name { len: name.len() });
        }
        section.fill(0);
        section[0..4].copy_from_slice(&MAGIC);
        section[4..6].copy_from_slice(&VERSION.to_le_bytes());
        section[8..12].copy_from_slice(&(SIZE as u32).to_le_bytes());
        section[16..20].copy_from_slice(&index.to_le_bytes());
        section[24] = name.len() as u8;
        section[25..25 + name.len()].copy_from_slice(name.as_bytes());
        let mut writer = Self {
            section,
            used: HEADER,
            count: 0,
        };
        writer.seal();
        Ok(writer)
    }

    /// Adds `key = value`.
    pub fn entry(&mut self, key: &str, value: u64) -> Result<(), ConfigError> {
        if key.is_empty() || key.len() > MAX_KEY {
            return Err(ConfigError::Key {
                entry: self.count as usize,
            });
        }
        let needed = self.used + 1 + key.len() + 8;
        if needed > self.section.len() {
            return Err(ConfigError::Full {
                needed,
                size: self.section.len(),
            });
        }
        let at = self.used;
        self.section[at] = key.len() as u8;
        self.section[at + 1..at + 1 + key.len()].copy_from_slice(key.as_bytes());
        self.section[at + 1 + key.len()..needed].copy_from_slice(&value.to_le_bytes());
        self.used = needed;
        self.count += 1;
        self.seal();
        Ok(())
    }

    /// Keeps the header's counts current, so the section is whole after
    /// every call.
    fn seal(&mut self) {
        self.section[12..16].copy_from_slice(&(self.used as u32).to_le_bytes());
        self.section[20..24].copy_from_slice(&self.count.to_le_bytes());
    }
}

/// Writes the whole configuration of one task: its index, name and
/// entries. An entry that does not fit is an error, never dropped.
pub fn encode<'k>(
    section: &mut [u8],
    index: u32,
    name: &str,
    entries: impl IntoIterator<Item = (&'k str, u64)>,
) -> Result<(), ConfigError> {
    let mut writer = Writer::new(section, index, name)?;
    for (key, value) in entries {
        writer.entry(key, value)?;
    }
    Ok(())
}
