//! Conditional and range requests: the headers that make a GET answer
//! 304, 206 or 416 instead of 200, and the decision for one file.
//!
//! The headers are read once, with the request (`request::parse`), into
//! [`Conditions`]: `If-Modified-Since` and `If-Range` as checked dates
//! ([`DateValue`]), `Range` as a [`RangeSet`], `If-None-Match` as whether
//! it asks for `*` or lists tags. A value that is not valid, or a header
//! given twice where only one may be, is dropped: the RFC says to ignore
//! such conditions, so the request is answered as if it had none (an
//! unreadable `If-Range` is the exception: it cannot be shown to match,
//! so the range is not applied and the file goes whole).
//!
//! [`Conditions::decide`] follows RFC 9110, section 13.2.2, for the
//! headers httpd knows (it sends no entity tags, so none matches):
//!
//! 1. `If-None-Match`, if present, decides alone: `*` matches any file,
//!    so GET and HEAD get 304; a list of tags never matches.
//!    `If-Modified-Since` is then ignored, as the RFC requires.
//! 2. Otherwise `If-Modified-Since`: a file not modified after the date
//!    gets 304. A date later than the server's time is ignored (a client
//!    with a clock ahead would otherwise never see a change).
//! 3. `Range`, for GET only: applied if there is no `If-Range`, or its
//!    date is exactly the file's `Last-Modified` and that is at least a
//!    second before now (a date-based validator is only strong then: a
//!    file changed twice in one second could carry the same date).
//!    Then [`RangeSet::select`] decides between 206, 416 and 200.

use crate::date::{DateValue, HttpDate};
use crate::range::{RangeSet, Selected};
use crate::request::Method;

/// `If-None-Match`, as far as httpd (which sends no tags) can use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoneMatch {
    /// `*`: any current file matches.
    Any,
    /// Entity tags: never one of httpd's.
    Tags,
}

/// `If-Range`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfRange {
    Date(DateValue),
    /// An entity tag (never httpd's), or a value that is neither.
    NoMatch,
}

/// A request's conditional and range headers, checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditions {
    pub if_modified_since: Option<DateValue>,
    pub if_none_match: Option<NoneMatch>,
    pub range: Option<RangeSet>,
    pub if_range: Option<IfRange>,
}

/// How to answer for one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// 304, no body.
    NotModified,
    /// 200 with the whole file.
    Whole,
    /// 206 with bytes `first..=last`.
    Part { first: u64, last: u64 },
    /// 416 with `Content-Range: bytes */len`.
    Unsatisfiable,
}

/// One header's raw values seen so far while a head is read.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen<'a> {
    pub if_modified_since: Option<Result<&'a str, ()>>,
    pub if_none_match: Option<NoneMatch>,
    pub range: Option<Result<&'a str, ()>>,
    pub if_range: Option<Result<&'a str, ()>>,
}

impl<'a> Seen<'a> {
    /// Notes header `name: value` if it is one of these; a second
    /// `If-Modified-Since`, `Range` or `If-Range` spoils the first.
    pub fn header(&mut self, name: &str, value: &'a str) {
        let once = |slot: &mut Option<Result<&'a str, ()>>| {
            *slot = Some(match slot {
                None => Ok(value),
                Some(_) => Err(()),
            })
        };
        if name.eq_ignore_ascii_case("if-modified-since") {
            once(&mut self.if_modified_since);
        } else if name.eq_ignore_ascii_case("range") {
            once(&mut self.range);
        } else if name.eq_ignore_ascii_case("if-range") {
            once(&mut self.if_range);
        } else if name.eq_ignore_ascii_case("if-none-match") {
            let any = value.split(',').any(|t| t.trim() == "*");
            self.if_none_match = match (self.if_none_match, any) {
                (Some(NoneMatch::Any), _) | (_, true) => Some(NoneMatch::Any),
                _ => Some(NoneMatch::Tags),
            };
        }
    }

    /// The checked conditions.
    pub fn finish(self) -> Conditions {
        let date = |v: Option<Result<&str, ()>>| v.and_then(Result::ok).and_then(DateValue::parse);
        Conditions {
            if_modified_since: date(self.if_modified_since),
            if_none_match: self.if_none_match,
            range: self.range.and_then(Result::ok).and_then(RangeSet::parse),
            if_range: self
                .if_range
                .map(|v| match v.ok().and_then(DateValue::parse) {
                    Some(d) => IfRange::Date(d),
                    None => IfRange::NoMatch,
                }),
        }
    }
}

impl Conditions {
    /// The answer to `method` for a file of `len` bytes last modified at
    /// `modified`, at `now`.
    pub fn decide(&self, method: Method, modified: HttpDate, len: u64, now: HttpDate) -> Decision {
        match self.if_none_match {
            Some(NoneMatch::Any) => return Decision::NotModified,
            Some(NoneMatch::Tags) => {}
            None => {
                let since = self.if_modified_since.map(|d| d.at(now));
                if since.is_some_and(|since| since <= now && modified <= since) {
                    return Decision::NotModified;
                }
            }
        }
        let Some(range) = self.range.as_ref().filter(|_| method == Method::Get) else {
            return Decision::Whole;
        };
        let validated = match self.if_range {
            None => true,
            Some(IfRange::Date(d)) => d.at(now) == modified && modified < now,
            Some(IfRange::NoMatch) => false,
        };
        if !validated {
            return Decision::Whole;
        }
        match range.select(len) {
            Selected::Whole => Decision::Whole,
            Selected::Part { first, last } => Decision::Part { first, last },
            Selected::Unsatisfiable => Decision::Unsatisfiable,
        }
    }
}
