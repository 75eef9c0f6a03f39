//! Everything that can go wrong, each with its own name.
//!
//! Three sources: the caller's request, refused before anything reaches
//! the device; the device's answer, whose status codes (virtio 1.2
//! §5.9.7.1) each have a variant; and the device misbehaving (used
//! lengths that do not fit what was offered, a chain returned out of
//! turn, a device asking to be reset). None of these panics.

use core::fmt;

/// An error from the crypto driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    // --- refused before reaching the device ---
    /// AES keys are 16, 24 or 32 bytes.
    BadKeyLength { len: usize },
    /// The key is longer than the device's `max_cipher_key_len`.
    KeyTooLong { len: usize, max: u32 },
    /// Not whole 16-byte blocks (CBC; CTR too on QEMU, see
    /// [`crate::Algorithm::Ctr`]).
    NotBlockMultiple { len: usize },
    /// Source and destination must have the same length.
    LengthMismatch { src: usize, dst: usize },
    /// Nothing to encrypt or decrypt.
    EmptyData,
    /// IV, source and destination together exceed the device's `max_size`
    /// (QEMU stops the device, with no answer, on such a request).
    TooLarge { needed: u64, max: u64 },
    /// Not a session this driver created (or it was destroyed): never
    /// sent, as later QEMUs' builtin backend aborts on destroying an
    /// unknown session (7.2 answers ERR).
    UnknownSession,
    /// An encrypt call on a decrypt session or the reverse: the device
    /// would silently do what the session says, not what was asked.
    WrongDirection,

    // --- the device's answer (§5.9.7.1) ---
    /// VIRTIO_CRYPTO_ERR: any failure not listed below.
    DeviceError,
    /// VIRTIO_CRYPTO_BADMSG: authentication failed.
    BadMessage,
    /// VIRTIO_CRYPTO_NOTSUPP: operation or algorithm not supported.
    NotSupported,
    /// VIRTIO_CRYPTO_INVSESS: the device does not know the session.
    InvalidSession,
    /// VIRTIO_CRYPTO_NOSPC: no free session.
    NoSpace,
    /// VIRTIO_CRYPTO_KEY_REJECTED.
    KeyRejected,
    /// A status code the spec does not define.
    UnknownStatus(u32),

    // --- the device misbehaving, or not the device we want ---
    /// The device reported a used length other than what the request
    /// allows.
    UsedLength { expected: usize, got: u32 },
    /// The device set DEVICE_NEEDS_RESET while a request was out; the
    /// driver reset it and is unusable from then on.
    DeviceNeedsReset,
    /// An earlier failure left the device reset; make a new driver.
    Broken,
    /// Not a crypto device (virtio device id 20).
    WrongDeviceType,
    /// The config `status` lacks VIRTIO_CRYPTO_S_HW_READY.
    NotReady,
    /// The device offers no data queue, or too many to address.
    BadQueueCount(u32),
    /// The device does not offer the cipher service.
    NoCipherService,
    /// From virtio-drivers' transport or virtqueue.
    Virtio(virtio_drivers::Error),
}

impl From<virtio_drivers::Error> for Error {
    fn from(e: virtio_drivers::Error) -> Self {
        Error::Virtio(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Maps a status code of §5.9.7.1 to `Ok` or its named error.
pub fn check_status(status: u32) -> Result<(), Error> {
    use crate::wire::*;
    match status {
        STATUS_OK => Ok(()),
        STATUS_ERR => Err(Error::DeviceError),
        STATUS_BADMSG => Err(Error::BadMessage),
        STATUS_NOTSUPP => Err(Error::NotSupported),
        STATUS_INVSESS => Err(Error::InvalidSession),
        STATUS_NOSPC => Err(Error::NoSpace),
        STATUS_KEY_REJECTED => Err(Error::KeyRejected),
        other => Err(Error::UnknownStatus(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_a_name() {
        assert_eq!(check_status(0), Ok(()));
        assert_eq!(check_status(1), Err(Error::DeviceError));
        assert_eq!(check_status(2), Err(Error::BadMessage));
        assert_eq!(check_status(3), Err(Error::NotSupported));
        assert_eq!(check_status(4), Err(Error::InvalidSession));
        assert_eq!(check_status(5), Err(Error::NoSpace));
        assert_eq!(check_status(6), Err(Error::KeyRejected));
        assert_eq!(check_status(0xff), Err(Error::UnknownStatus(0xff)));
    }
}
