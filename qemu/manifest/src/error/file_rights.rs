//! The messages of the rules on file rights (`root` and `access` on a
//! file-server client's endpoint capability): one variant per rule.

use std::fmt;

use crate::limits::{MAX_ROOT_NAME, MAX_ROOT_PATH};
use crate::suggest::Suggestion;

/// Why a capability's `root` or `access` was rejected.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileRightsRule {
    /// `root` does not start with `/`.
    RootNotAbsolute { root: String },
    /// `root` has `.`, `..`, an empty name or a trailing `/`.
    RootNotNormal { root: String, normal: String },
    /// `root` holds a NUL byte, which no file name may.
    RootNul { root: String },
    /// A name in `root` is longer than a file name may be.
    RootNameTooLong { root: String, len: usize },
    /// `root` is longer than a path may be.
    RootTooLong { len: usize },
    /// `access` names no access.
    UnknownAccess {
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// `root` or `access` on a capability that is not to an endpoint.
    NotAnEndpoint { kind: &'static str },
    /// `root` or `access` on the server's own capability to its endpoint.
    OnServer { endpoint: String },
    /// Two capabilities to one endpoint with one badge and different
    /// file rights (the path is the second's).
    BadgeClash {
        endpoint: String,
        badge: u64,
        first: String,
        first_rights: String,
        second_rights: String,
    },
}

impl fmt::Display for FileRightsRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileRightsRule::RootNotAbsolute { root } => write!(
                f,
                "is {root:?}, which is not an absolute path; a root starts with `/` (such as \"/{}\")",
                root.trim_start_matches(['.', '/'])
            ),
            FileRightsRule::RootNotNormal { root, normal } => write!(
                f,
                "is {root:?}, which has `.`, `..`, an empty name or a trailing `/`; write it as {normal:?}"
            ),
            FileRightsRule::RootNul { root } => write!(
                f,
                "is {root:?}, which holds a NUL byte, and no file name may; remove it"
            ),
            FileRightsRule::RootNameTooLong { root, len } => write!(
                f,
                "is {root:?}, which has a name of {len} bytes; a file name has at most {MAX_ROOT_NAME}"
            ),
            FileRightsRule::RootTooLong { len } => write!(
                f,
                "is {len} bytes long; the file server takes paths of at most {MAX_ROOT_PATH} bytes"
            ),
            FileRightsRule::UnknownAccess { value, suggestion } => {
                write!(f, "is {value:?}, which is not an access; {suggestion}")
            }
            FileRightsRule::NotAnEndpoint { kind } => write!(
                f,
                "is a file right, which only a client's endpoint capability carries, and this capability is to {kind}; remove it"
            ),
            FileRightsRule::OnServer { endpoint } => write!(
                f,
                "gives file rights (`root`, `access`), which bound what a client may do, but this task serves endpoint `{endpoint}` itself; remove them, and give them on its clients' capabilities"
            ),
            FileRightsRule::BadgeClash {
                endpoint,
                badge,
                first,
                first_rights,
                second_rights,
            } => write!(
                f,
                "calls endpoint `{endpoint}` with badge {badge:#x} as `{first}` does, but gives other file rights ({second_rights} here; {first_rights} there); the server tells its clients apart by badge alone: give one of them another badge, or both the same `root` and `access`"
            ),
        }
    }
}
