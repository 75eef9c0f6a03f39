//! File rights on a capability: `root` (the directory the client cannot
//! leave) and `access` (`"read-only"` or `"read-write"`), written on a
//! file-server client's endpoint capability:
//!
//! ```toml
//! fs = { endpoint = "fs", rights = "wg", badge = 2, root = "/www", access = "read-only" }
//! ```
//!
//! They sit on the capability, not in a table on the endpoint, because
//! the capability is what the client holds and the badge it carries is
//! all the server knows the client by: the right and the thing that
//! proves it travel together (a directory capability, as in Capsicum and
//! Fuchsia). A capability that writes neither gets the whole tree,
//! read-write, so systems that say nothing keep working.
//!
//! One entry's keys are checked alone here ([`read`]); that every
//! capability with one badge gives the same rights needs every task's
//! slots ([`check`]).

use std::collections::BTreeMap;

use conflux_abi::cap::ObjectKind;

use crate::error::{Error, FileRightsRule};
use crate::limits::{MAX_ROOT_NAME, MAX_ROOT_PATH};
use crate::model::{Access, FileRights, Manifest, ObjectSpec};
use crate::objects::Kind;
use crate::strict::Fields;
use crate::suggest::{Suggestion, Words};

/// The keys, among a capability entry's.
pub(crate) const KEYS: [&str; 2] = ["root", "access"];

/// The file rights an entry writes, if it writes either key (on an
/// endpoint capability only).
pub(crate) fn read(fields: &Fields, kind: &Kind) -> Result<Option<FileRights>, Error> {
    let root = fields.optional::<&str>("root")?;
    let access = fields.optional::<&str>("access")?;
    let fail = |key: &str, rule| Error::FileRights {
        origin: fields.origin().to_owned(),
        path: fields.path_of(key),
        rule: Box::new(rule),
    };
    if root.is_none() && access.is_none() {
        return Ok(None);
    }
    if kind.kind != ObjectKind::Endpoint {
        let key = if root.is_some() { "root" } else { "access" };
        return Err(fail(key, FileRightsRule::NotAnEndpoint { kind: kind.noun }));
    }
    let mut rights = FileRights::default();
    if let Some(root) = root {
        check_root(root).map_err(|rule| fail("root", rule))?;
        root.clone_into(&mut rights.root);
    }
    if let Some(access) = access {
        rights.access = access.parse().map_err(|_| {
            fail(
                "access",
                FileRightsRule::UnknownAccess {
                    value: access.to_owned(),
                    suggestion: Box::new(Suggestion::new(access, Access::NAMES, Words::Values)),
                },
            )
        })?;
    }
    Ok(Some(rights))
}

/// A root is an absolute, normalised path the file server can take.
fn check_root(root: &str) -> Result<(), FileRightsRule> {
    let owned = || root.to_owned();
    if root.contains('\0') {
        return Err(FileRightsRule::RootNul { root: owned() });
    }
    if !root.starts_with('/') {
        return Err(FileRightsRule::RootNotAbsolute { root: owned() });
    }
    if root.len() > MAX_ROOT_PATH {
        return Err(FileRightsRule::RootTooLong { len: root.len() });
    }
    let normal = normalise(root);
    if normal != root {
        return Err(FileRightsRule::RootNotNormal {
            root: owned(),
            normal,
        });
    }
    match root.split('/').map(str::len).max() {
        Some(len) if len > MAX_ROOT_NAME => {
            Err(FileRightsRule::RootNameTooLong { root: owned(), len })
        }
        _ => Ok(()),
    }
}

/// `path` with `.`, `..` (never above `/`) and empty names resolved, and
/// no trailing `/`: what the file server resolves it to.
fn normalise(path: &str) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in path.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                names.pop();
            }
            name => names.push(name),
        }
    }
    format!("/{}", names.join("/"))
}

/// Every capability that calls one endpoint with one badge gives the same
/// file rights: the server knows a client by its badge alone, so two
/// capabilities that differ there would get whichever it looked up.
pub(crate) fn check(manifest: &Manifest) -> Result<(), Error> {
    for (object, _) in manifest
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o.spec, ObjectSpec::Endpoint { .. }))
    {
        let mut first: BTreeMap<u64, (String, &FileRights)> = BTreeMap::new();
        for (task, cap) in manifest.client_caps(object) {
            let path = format!("tasks.{}.caps.{}", task.name, cap.name);
            let Some((first_path, rights)) = first.get(&cap.badge) else {
                first.insert(cap.badge, (path, &cap.files));
                continue;
            };
            if **rights != cap.files {
                return Err(Error::FileRights {
                    origin: manifest.origin.clone(),
                    path,
                    rule: Box::new(FileRightsRule::BadgeClash {
                        endpoint: manifest.objects[object].name.clone(),
                        badge: cap.badge,
                        first: first_path.clone(),
                        first_rights: rights.to_string(),
                        second_rights: cap.files.to_string(),
                    }),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_resolves_what_the_server_would() {
        assert_eq!(normalise("/www/"), "/www");
        assert_eq!(normalise("//a/./b/../c"), "/a/c");
        assert_eq!(normalise("/.."), "/");
        assert_eq!(normalise("/"), "/");
    }
}
