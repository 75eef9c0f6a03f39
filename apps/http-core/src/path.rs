//! Turning a request target into a path inside the served tree.
//!
//! The target is percent-decoded once, its query and fragment dropped, and
//! split into segments: empty and `.` segments vanish, `..` removes the
//! one before it and is refused if there is none (it would leave the
//! tree). NUL, bytes that are not UTF-8 after decoding, and targets that
//! do not start with `/` are refused. What comes out is always absolute,
//! normalised, and has no `..`.

use alloc::string::String;
use alloc::vec::Vec;

/// Why a target is not a path httpd serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadPath {
    /// Not `/…` (absolute-form and `*` targets are not served).
    NotAbsolute,
    /// A `%` not followed by two hex digits.
    BadEscape,
    /// Not UTF-8 once decoded, or a NUL byte.
    BadBytes,
    /// `..` above the root.
    Escapes,
}

impl BadPath {
    pub fn why(self) -> &'static str {
        match self {
            Self::NotAbsolute => "the request target must start with /",
            Self::BadEscape => "a % in the path is not followed by two hex digits",
            Self::BadBytes => "the path holds a NUL or bytes that are not UTF-8",
            Self::Escapes => "the path climbs above the root with ..",
        }
    }
}

/// The normalised absolute path for `target` (`/` for the root).
pub fn resolve(target: &str) -> Result<String, BadPath> {
    if !target.starts_with('/') {
        return Err(BadPath::NotAbsolute);
    }
    let raw = target.split(['?', '#']).next().unwrap_or("");
    let decoded = decode(raw.as_bytes())?;
    let text = String::from_utf8(decoded).map_err(|_| BadPath::BadBytes)?;
    if text.contains('\0') {
        return Err(BadPath::BadBytes);
    }
    let mut parts: Vec<&str> = Vec::new();
    for segment in text.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop().ok_or(BadPath::Escapes)?;
            }
            s => parts.push(s),
        }
    }
    let mut out = String::new();
    for p in &parts {
        out.push('/');
        out.push_str(p);
    }
    if out.is_empty() {
        out.push('/');
    }
    Ok(out)
}

fn decode(raw: &[u8]) -> Result<Vec<u8>, BadPath> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = raw.get(i + 1..i + 3).ok_or(BadPath::BadEscape)?;
            let high = hex_value(hex[0]).ok_or(BadPath::BadEscape)?;
            let low = hex_value(hex[1]).ok_or(BadPath::BadEscape)?;
            out.push(high << 4 | low);
            i += 3;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    Ok(out)
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `name` as a URL path segment: unreserved bytes as they are, the rest
/// percent-encoded.
pub fn encode_segment(name: &str) -> String {
    let mut out = String::new();
    for &b in name.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&alloc::format!("%{b:02X}"));
        }
    }
    out
}
