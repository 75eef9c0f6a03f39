//! Round trips and every refusal, with its message.

use std::string::ToString;
use std::vec;

use crate::*;

fn written(entries: &[(&str, u64)]) -> std::vec::Vec<u8> {
    let mut section = vec![0u8; SIZE];
    encode(&mut section, 3, "crypto2", entries.iter().copied()).unwrap();
    section
}

#[test]
fn round_trip() {
    let section = written(&[("TASK_INDEX", 3), ("device::BDF", 0x48), ("caps::FLOW", 1)]);
    let config = Config::parse(&section).unwrap();
    assert_eq!(config.name(), "crypto2");
    assert_eq!(config.index(), 3);
    assert_eq!(config.get("device::BDF"), Some(0x48));
    assert_eq!(config.get("caps::FLOW"), Some(1));
    assert_eq!(config.get("caps::NONE"), None);
    let all: std::vec::Vec<_> = config.entries().collect();
    assert_eq!(
        all,
        [("TASK_INDEX", 3), ("device::BDF", 0x48), ("caps::FLOW", 1)]
    );
}

#[test]
fn a_section_the_runner_never_filled_says_so() {
    let error = Config::parse(&[0u8; SIZE]).err().unwrap();
    assert_eq!(error, ConfigError::Empty);
    assert!(error.to_string().starts_with(
        "the configuration section is empty: this image was not made by the conflux runner"
    ));
}

#[test]
fn wrong_version_is_refused() {
    let mut section = written(&[]);
    section[4..6].copy_from_slice(&2u16.to_le_bytes());
    let error = Config::parse(&section).err().unwrap();
    assert_eq!(
        error,
        ConfigError::Version {
            found: 2,
            expected: 1
        }
    );
    assert_eq!(error.to_string(), "the configuration section is version 2, this task reads version 1: the runner and the task come from different trees; rebuild both from one checkout");
}

#[test]
fn bad_magic_is_refused() {
    let mut section = written(&[]);
    section[0] = b'X';
    assert_eq!(Config::parse(&section).err(), Some(ConfigError::BadMagic));
}

#[test]
fn a_section_too_small_is_refused_on_both_sides() {
    let mut small = vec![0u8; SIZE / 2];
    let error = Writer::new(&mut small, 0, "a").err().unwrap();
    assert_eq!(
        error,
        ConfigError::Size {
            found: SIZE / 2,
            expected: SIZE
        }
    );
    assert_eq!(error.to_string(), "the configuration section is 4096 bytes where 8192 were expected: the runner and the task come from different trees; rebuild both from one checkout");
    assert_eq!(
        Config::parse(&small).err(),
        Some(ConfigError::Size {
            found: SIZE / 2,
            expected: SIZE
        })
    );
    // A header claiming another build size.
    let mut section = written(&[]);
    section[8..12].copy_from_slice(&4096u32.to_le_bytes());
    assert_eq!(
        Config::parse(&section).err(),
        Some(ConfigError::Size {
            found: 4096,
            expected: SIZE
        })
    );
}

#[test]
fn entries_past_the_section_are_refused_not_dropped() {
    let mut section = vec![0u8; SIZE];
    let mut writer = Writer::new(&mut section, 0, "big").unwrap();
    let key = "k".repeat(MAX_KEY);
    let per = 1 + MAX_KEY + 8;
    for _ in 0..(SIZE - HEADER) / per {
        writer.entry(&key, 7).unwrap();
    }
    let error = writer.entry(&key, 7).err().unwrap();
    let needed = HEADER + ((SIZE - HEADER) / per + 1) * per;
    assert_eq!(error, ConfigError::Full { needed, size: SIZE });
    // What was written before stays whole.
    let config = Config::parse(&section).unwrap();
    assert_eq!(config.entries().count(), (SIZE - HEADER) / per);
}

#[test]
fn long_names_and_keys_are_refused() {
    let mut section = vec![0u8; SIZE];
    let long = "n".repeat(MAX_NAME + 1);
    assert_eq!(
        Writer::new(&mut section, 0, &long).err(),
        Some(ConfigError::Name { len: MAX_NAME + 1 })
    );
    let mut writer = Writer::new(&mut section, 0, &long[..MAX_NAME]).unwrap();
    assert_eq!(
        writer.entry("", 1).err(),
        Some(ConfigError::Key { entry: 0 })
    );
    let key = "k".repeat(MAX_KEY + 1);
    assert_eq!(
        writer.entry(&key, 1).err(),
        Some(ConfigError::Key { entry: 0 })
    );
    assert_eq!(Config::parse(&section).unwrap().name().len(), MAX_NAME);
}

#[test]
fn damaged_counts_are_refused() {
    let mut section = written(&[("a", 1)]);
    section[20..24].copy_from_slice(&2u32.to_le_bytes());
    assert_eq!(
        Config::parse(&section).err(),
        Some(ConfigError::Truncated { entry: 1 })
    );
    let mut section = written(&[("a", 1)]);
    section[12..16].copy_from_slice(&(SIZE as u32 + 1).to_le_bytes());
    assert_eq!(
        Config::parse(&section).err(),
        Some(ConfigError::Used {
            used: SIZE + 1,
            size: SIZE
        })
    );
    let mut section = written(&[("a", 1)]);
    section[HEADER] = 0;
    assert_eq!(
        Config::parse(&section).err(),
        Some(ConfigError::Key { entry: 0 })
    );
    let mut section = written(&[]);
    section[24] = 40;
    assert_eq!(
        Config::parse(&section).err(),
        Some(ConfigError::Name { len: 40 })
    );
}
