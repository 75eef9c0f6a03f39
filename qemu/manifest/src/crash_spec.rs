//! `[test] crash = { rounds, after, kill_after_ms = [min, max] }`: a crash
//! test. The runner boots the system `rounds` times on one disk image,
//! kills QEMU with SIGKILL a random time (seeded) in `kill_after_ms` after
//! the console line `after` in every round but the last, and judges the
//! last round like any test (then e2fsck). Rules: at least two rounds (one
//! killed, one finishing), a non-empty `after`, a window of two delays in
//! 1 ms..the test's timeout with min <= max.

use crate::error::Error;
use crate::limits::{MAX_CRASH_ROUNDS, MIN_CRASH_ROUNDS};
use crate::model::CrashSpec;
use crate::rules::{self, Unit};
use crate::strict::Fields;

/// Keys allowed in `test.crash`.
pub(crate) const KEYS: &[&str] = &["rounds", "after", "kill_after_ms"];

pub(crate) fn read(fields: &Fields, timeout_secs: u32) -> Result<CrashSpec, Error> {
    let rounds = rules::integer(
        fields,
        "rounds",
        None,
        MIN_CRASH_ROUNDS,
        MAX_CRASH_ROUNDS,
        Unit::Count,
    )?;
    let after = fields.required::<&str>("after")?;
    if after.is_empty() {
        return Err(Error::EmptyPattern {
            origin: fields.origin().to_owned(),
            path: fields.path_of("after"),
        });
    }
    let kill_after_ms = window(fields, timeout_secs)?;
    Ok(CrashSpec {
        rounds,
        after: after.to_owned(),
        kill_after_ms,
    })
}

/// `kill_after_ms = [min, max]`, each 1..=timeout in ms, min <= max.
fn window(fields: &Fields, timeout_secs: u32) -> Result<(u32, u32), Error> {
    let path = fields.path_of("kill_after_ms");
    let values = fields.required::<Vec<i64>>("kill_after_ms")?;
    let &[min, max] = values.as_slice() else {
        return Err(Error::CrashWindowShape {
            origin: fields.origin().to_owned(),
            path,
            len: values.len(),
        });
    };
    let limit = i64::from(timeout_secs) * 1000;
    for (index, value) in [min, max].into_iter().enumerate() {
        if !(1..=limit).contains(&value) {
            return Err(Error::OutOfRange {
                origin: fields.origin().to_owned(),
                path: format!("{path}[{index}]"),
                value,
                min: 1,
                max: limit,
                bytes: false,
            });
        }
    }
    if min > max {
        return Err(Error::CrashWindowReversed {
            origin: fields.origin().to_owned(),
            path,
            min,
            max,
        });
    }
    let ms = |v: i64| u32::try_from(v).expect("at most 600000");
    Ok((ms(min), ms(max)))
}
