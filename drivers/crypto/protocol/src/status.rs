//! How a request ended.

/// How a request ended, in its table entry's `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Status {
    Ok = 0,
    /// The op is not one of [`crate::Op`].
    BadOp = 1,
    /// The descriptor's source or key is not inside the data area, or its
    /// id names no table entry.
    BadDescriptor = 2,
    /// The destination (`dst`, `len` bytes) is not inside the data area,
    /// or overlaps the source. `detail` is `dst`.
    BadDestination = 3,
    /// A cipher length of zero, not whole 16-byte blocks, or over
    /// [`crate::MAX_LEN`]. `detail` is the length.
    BadLength = 4,
    /// A key of other than 16, 24 or 32 bytes, or longer than the device
    /// takes. `detail` is the length.
    BadKey = 5,
    /// `param` names no algorithm or direction. `detail` is `param`.
    BadAlgorithm = 6,
    /// Not a session this client created in this generation of the
    /// driver, or one it destroyed.
    UnknownSession = 7,
    /// Encrypt on a decrypt session or the reverse (a session has one
    /// direction).
    WrongDirection = 8,
    /// The session was created before the driver restarted or the device
    /// was reset: the device no longer has it. Create it again.
    SessionLost = 9,
    /// The client has [`crate::MAX_SESSIONS`] sessions open.
    TooManySessions = 10,
    /// The device failed the request. `detail` is the device's status
    /// code (virtio 1.2 §5.9.7.1) when it gave one, else 0.
    DeviceError = 11,
    /// The driver restarted while the request was in flight; it may or
    /// may not have reached the device, and its session is lost. Create
    /// the session again and resend.
    Restarted = 12,
    /// Taken by the driver and not answered yet (the driver writes it when
    /// it takes the request, so a restarted driver knows what was lost).
    InFlight = 13,
    /// Not answered yet (the value a client writes before submitting).
    Pending = 0xffff_ffff,
}

impl Status {
    pub fn from_raw(raw: u32) -> Self {
        match raw {
            0 => Self::Ok,
            1 => Self::BadOp,
            2 => Self::BadDescriptor,
            3 => Self::BadDestination,
            4 => Self::BadLength,
            5 => Self::BadKey,
            6 => Self::BadAlgorithm,
            7 => Self::UnknownSession,
            8 => Self::WrongDirection,
            9 => Self::SessionLost,
            10 => Self::TooManySessions,
            11 => Self::DeviceError,
            12 => Self::Restarted,
            13 => Self::InFlight,
            _ => Self::Pending,
        }
    }
}
