//! The response statuses httpd sends, with their reason phrases.

/// A status httpd can answer with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 200,
    PartialContent = 206,
    NotModified = 304,
    BadRequest = 400,
    NotFound = 404,
    MethodNotAllowed = 405,
    RequestTimeout = 408,
    RangeNotSatisfiable = 416,
    HeaderTooLarge = 431,
    InternalError = 500,
    Unavailable = 503,
    VersionNotSupported = 505,
}

impl Status {
    pub fn code(self) -> u16 {
        self as u16
    }

    /// Whether the answer has no body whatever the method (304).
    pub fn bodiless(self) -> bool {
        self == Self::NotModified
    }

    pub fn reason(self) -> &'static str {
        match self {
            Self::Ok => "OK",
            Self::PartialContent => "Partial Content",
            Self::NotModified => "Not Modified",
            Self::BadRequest => "Bad Request",
            Self::NotFound => "Not Found",
            Self::MethodNotAllowed => "Method Not Allowed",
            Self::RequestTimeout => "Request Timeout",
            Self::RangeNotSatisfiable => "Range Not Satisfiable",
            Self::HeaderTooLarge => "Request Header Fields Too Large",
            Self::InternalError => "Internal Server Error",
            Self::Unavailable => "Service Unavailable",
            Self::VersionNotSupported => "HTTP Version Not Supported",
        }
    }
}
