//! `[tasks.NAME.caps]`: the capabilities a task starts with, as written.
//!
//! Each entry names exactly one object by its kind's key (`endpoint =
//! "echo"`), optionally with `rights` (letters r, w, g, d), for endpoints
//! and notifications a `badge`, and for endpoints a `quota` (what the
//! client may hold of its server's resources) and a file-server client's
//! file rights (`root`, `access`: see `file_rights`). Everything that can
//! be checked without the other tables is checked here: the object key,
//! the rights letters and whether they mean something for the kind, the
//! badge, the quota. Which object the name refers to, and the slot, are
//! settled by `slots`; whether two capabilities give one client two
//! quotas, by `slots` too.

use conflux_abi::cap::{rights, ObjectKind};

use crate::error::Error;
use crate::file_rights;
use crate::model::{rights_text, FileRights, RIGHT_LETTERS};
use crate::objects::{self, Kind, OBJECT_KEYS};
use crate::rules::{self, Unit};
use crate::strict::Fields;

/// Keys allowed in one capability entry.
pub(crate) const KEYS: [&str; 11] = [
    OBJECT_KEYS[0],
    OBJECT_KEYS[1],
    OBJECT_KEYS[2],
    OBJECT_KEYS[3],
    OBJECT_KEYS[4],
    OBJECT_KEYS[5],
    "rights",
    "badge",
    "quota",
    file_rights::KEYS[0],
    file_rights::KEYS[1],
];
/// The largest `quota` a client may be given.
pub(crate) const MAX_QUOTA: u64 = 1 << 20;

/// One capability entry as written, with single values checked.
pub(crate) struct CapDecl {
    /// The entry's key: the slot's name.
    pub name: String,
    /// `tasks.NAME.caps.SLOT`, for messages.
    pub path: String,
    pub kind: &'static Kind,
    /// The name of the object it refers to.
    pub object: String,
    /// `None` when not written: the kind's default applies.
    pub rights: Option<u8>,
    pub badge: u64,
    /// `quota`: how much of the server's resources this client may hold.
    pub quota: Option<u32>,
    /// `None` when neither `root` nor `access` is written.
    pub files: Option<FileRights>,
}

/// Reads the `caps` table of one task (absent: no capabilities).
pub(crate) fn read(task: &Fields) -> Result<Vec<CapDecl>, Error> {
    task.named_tables("caps", &KEYS)?
        .into_iter()
        .map(|(name, fields)| entry(name, &fields))
        .collect()
}

fn entry(name: &str, fields: &Fields) -> Result<CapDecl, Error> {
    let name = rules::name(fields, fields.path().to_owned(), name, &rules::CAP_NAME)?;
    let (kind, object) = object(fields)?;
    Ok(CapDecl {
        name,
        path: fields.path().to_owned(),
        kind,
        object: object.to_owned(),
        rights: rights(fields, kind)?,
        badge: badge(fields, kind)?,
        quota: quota(fields, kind)?,
        files: file_rights::read(fields, kind)?,
    })
}

/// The one object key of the entry, and the name it gives.
fn object<'a>(fields: &Fields<'a>) -> Result<(&'static Kind, &'a str), Error> {
    let mut named = Vec::new();
    for key in OBJECT_KEYS {
        if let Some(name) = fields.optional::<&str>(key)? {
            named.push((key, name));
        }
    }
    match named[..] {
        [(key, name)] => Ok((objects::by_key(key).expect("an object key"), name)),
        _ => Err(Error::CapObjectCount {
            origin: fields.origin().to_owned(),
            path: fields.path().to_owned(),
            keys: named.iter().map(|(key, _)| *key).collect(),
        }),
    }
}

/// Parses `rights`: known letters, each once, each meaningful for `kind`.
fn rights(fields: &Fields, kind: &Kind) -> Result<Option<u8>, Error> {
    let Some(text) = fields.optional::<&str>("rights")? else {
        return Ok(None);
    };
    let (origin, path) = (fields.origin().to_owned(), fields.path_of("rights"));
    let allowed = kind.kind.meaningful_rights();
    let mut bits = 0;
    for letter in text.chars() {
        let rights = text.to_owned();
        let Some(&(_, bit, _)) = RIGHT_LETTERS.iter().find(|(l, _, _)| *l == letter) else {
            return Err(Error::UnknownRight {
                origin,
                path,
                rights,
                letter,
            });
        };
        if bits & bit != 0 {
            return Err(Error::RepeatedRight {
                origin,
                path,
                rights,
                letter,
            });
        }
        if allowed & bit == 0 {
            let (kind, allowed) = (kind.noun, rights_text(allowed));
            return Err(Error::RightNotMeaningful {
                origin,
                path,
                letter,
                kind,
                allowed,
            });
        }
        bits |= bit;
    }
    Ok(Some(bits))
}

/// `badge`, only on kinds that carry one.
fn badge(fields: &Fields, kind: &Kind) -> Result<u64, Error> {
    if fields.optional::<i64>("badge")?.is_none() {
        return Ok(0);
    }
    if !matches!(kind.kind, ObjectKind::Endpoint | ObjectKind::Notification) {
        return Err(Error::BadgeNotAllowed {
            origin: fields.origin().to_owned(),
            path: fields.path_of("badge"),
            kind: kind.noun,
        });
    }
    rules::unsigned(fields, "badge", 0, i64::MAX.unsigned_abs(), Unit::Count)
}

/// `quota`, only on endpoint capabilities: the most of the endpoint's
/// server's resources the client with this capability's badge may hold,
/// in the server's own unit (the network server: stack sockets). Absent:
/// the server's default.
fn quota(fields: &Fields, kind: &Kind) -> Result<Option<u32>, Error> {
    if fields.optional::<i64>("quota")?.is_none() {
        return Ok(None);
    }
    if kind.kind != ObjectKind::Endpoint {
        return Err(Error::QuotaNotAllowed {
            origin: fields.origin().to_owned(),
            path: fields.path_of("quota"),
            kind: kind.noun,
        });
    }
    let quota = rules::unsigned(fields, "quota", 1, MAX_QUOTA, Unit::Count)?;
    Ok(Some(u32::try_from(quota).expect("MAX_QUOTA fits a u32")))
}

/// The rights a capability gets when its entry has no `rights`: what a
/// client of the kind needs (send on an endpoint; both directions on the
/// rest), but receive for an endpoint's own server.
pub(crate) fn default_rights(kind: ObjectKind, holder_serves: bool) -> u8 {
    match kind {
        ObjectKind::Endpoint if holder_serves => rights::READ,
        ObjectKind::Endpoint => rights::WRITE,
        _ => rights::READ | rights::WRITE,
    }
}
