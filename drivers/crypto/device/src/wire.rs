//! The virtio crypto device's wire formats (virtio 1.2 §5.9), cipher
//! service only.
//!
//! Every struct here is exactly the bytes the device reads or writes:
//! little-endian fields of alignment 1 (`zerocopy::little_endian`), so a
//! struct has no padding the compiler chose and can be sent as it is
//! (`IntoBytes`) or read from any device-written buffer (`FromBytes`). The
//! tests at the bottom pin every layout to literal bytes.
//!
//! Section numbers are those of virtio v1.2 (cs01), chapter 5.9 "Crypto
//! Device"; the names follow the spec's C structs
//! (`include/uapi/linux/virtio_crypto.h` carries the same definitions).

use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// §5.9.1: virtio device id of the crypto device.
pub const DEVICE_ID: u32 = 20;

// §5.9.3 Feature bits. None of these concern the cipher service's
// session mode, which is all this driver uses, so it accepts only
// VIRTIO_F_VERSION_1 (the crypto device is modern-only).
/// §5.9.3: stateless mode (sessionless requests).
pub const F_REVISION_1: u64 = 1 << 0;
/// §5.9.3: stateless mode for the cipher service.
pub const F_CIPHER_STATELESS_MODE: u64 = 1 << 1;

/// §5.9.4: services, as bit numbers in `crypto_services`.
pub const SERVICE_CIPHER: u32 = 0;
/// §5.9.4: the hash service.
pub const SERVICE_HASH: u32 = 1;
/// §5.9.4: the MAC service.
pub const SERVICE_MAC: u32 = 2;
/// §5.9.4: the AEAD service.
pub const SERVICE_AEAD: u32 = 3;

/// §5.9.7.2: an opcode is `service << 8 | operation`.
const fn opcode(service: u32, op: u32) -> u32 {
    (service << 8) | op
}

/// §5.9.7.2.1: create a cipher session (control queue).
pub const CIPHER_CREATE_SESSION: u32 = opcode(SERVICE_CIPHER, 0x02);
/// §5.9.7.2.1: destroy a cipher session (control queue).
pub const CIPHER_DESTROY_SESSION: u32 = opcode(SERVICE_CIPHER, 0x03);
/// §5.9.7.3: encrypt with a cipher session (data queue).
pub const CIPHER_ENCRYPT: u32 = opcode(SERVICE_CIPHER, 0x00);
/// §5.9.7.3: decrypt with a cipher session (data queue).
pub const CIPHER_DECRYPT: u32 = opcode(SERVICE_CIPHER, 0x01);

/// §5.9.4.1: cipher algorithm ids (the bit numbers of `cipher_algo_l`).
pub const CIPHER_AES_ECB: u32 = 2;
/// §5.9.4.1: AES in CBC mode.
pub const CIPHER_AES_CBC: u32 = 3;
/// §5.9.4.1: AES in CTR mode.
pub const CIPHER_AES_CTR: u32 = 4;
/// §5.9.4.1: AES in XTS mode.
pub const CIPHER_AES_XTS: u32 = 13;

/// §5.9.7.2.1.4: session direction, `op` of the cipher session parameters.
pub const OP_ENCRYPT: u32 = 1;
/// §5.9.7.2.1.4: a decrypting session.
pub const OP_DECRYPT: u32 = 2;

/// §5.9.7.2.1.4: `op_type` of a symmetric session or request: cipher only.
pub const SYM_OP_CIPHER: u32 = 1;

/// §5.9.7.1: operation status codes.
pub const STATUS_OK: u32 = 0;
/// §5.9.7.1: any failure not listed below.
pub const STATUS_ERR: u32 = 1;
/// §5.9.7.1: authentication failed (AEAD decryption only).
pub const STATUS_BADMSG: u32 = 2;
/// §5.9.7.1: operation or algorithm unsupported.
pub const STATUS_NOTSUPP: u32 = 3;
/// §5.9.7.1: invalid session id.
pub const STATUS_INVSESS: u32 = 4;
/// §5.9.7.1: no free session id.
pub const STATUS_NOSPC: u32 = 5;
/// §5.9.7.1: signature verification failed (akcipher only).
pub const STATUS_KEY_REJECTED: u32 = 6;

/// §5.9.5: `status` bit: the device (its backend) is ready.
pub const S_HW_READY: u32 = 1 << 0;

/// §5.9.5 Device configuration layout (`struct virtio_crypto_config`).
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct Config {
    pub status: U32,
    pub max_dataqueues: U32,
    pub crypto_services: U32,
    pub cipher_algo_l: U32,
    pub cipher_algo_h: U32,
    pub hash_algo: U32,
    pub mac_algo_l: U32,
    pub mac_algo_h: U32,
    pub aead_algo: U32,
    pub max_cipher_key_len: U32,
    pub max_auth_key_len: U32,
    /// `akcipher_algo` in later revisions; unused here.
    pub reserved: U32,
    pub max_size: U64,
}

/// §5.9.7.2 `struct virtio_crypto_ctrl_header`, first in every control
/// request.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct CtrlHeader {
    pub opcode: U32,
    pub algo: U32,
    pub flag: U32,
    /// The data queue the session is for.
    pub queue_id: U32,
}

/// §5.9.7.2.1.4 `struct virtio_crypto_cipher_session_para`.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct CipherSessionPara {
    pub algo: U32,
    pub keylen: U32,
    /// [`OP_ENCRYPT`] or [`OP_DECRYPT`].
    pub op: U32,
    pub padding: U32,
}

/// §5.9.7.2.1.4: the whole device-readable header of a cipher session
/// creation: `virtio_crypto_op_ctrl_req` whose union holds a
/// `virtio_crypto_sym_create_session_req` with its cipher variant (the
/// parameters, padded to the union's 48 bytes) and `op_type`. The key
/// follows in its own buffer.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct CreateSessionReq {
    pub header: CtrlHeader,
    pub para: CipherSessionPara,
    pub para_padding: [u8; 32],
    /// [`SYM_OP_CIPHER`].
    pub op_type: U32,
    pub padding: U32,
}

/// §5.9.7.2.1.5: `virtio_crypto_op_ctrl_req` carrying a
/// `virtio_crypto_destroy_session_req`, padded to the same 56-byte union.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct DestroySessionReq {
    pub header: CtrlHeader,
    pub session_id: U64,
    pub padding: [u8; 48],
}

/// §5.9.7.2.1.4 `struct virtio_crypto_session_input`: what the device
/// writes back for a session creation.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct SessionInput {
    pub session_id: U64,
    pub status: U32,
    pub padding: U32,
}

/// §5.9.7.3 `struct virtio_crypto_op_header`, first in every data request.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct OpHeader {
    /// [`CIPHER_ENCRYPT`] or [`CIPHER_DECRYPT`].
    pub opcode: U32,
    pub algo: U32,
    pub session_id: U64,
    pub flag: U32,
    pub padding: U32,
}

/// §5.9.7.6 `struct virtio_crypto_cipher_para`.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct CipherPara {
    pub iv_len: U32,
    pub src_data_len: U32,
    pub dst_data_len: U32,
    pub padding: U32,
}

/// §5.9.7.6: the whole device-readable header of a cipher request:
/// `virtio_crypto_op_data_req` whose union holds a
/// `virtio_crypto_sym_data_req` with its cipher variant (parameters padded
/// to 40 bytes) and `op_type`. Then come, each in its own buffer, the IV
/// and the source (device-readable), the destination and the one status
/// byte, `struct virtio_crypto_inhdr` (device-writable, status last).
#[repr(C)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned,
)]
pub struct CipherDataReq {
    pub header: OpHeader,
    pub para: CipherPara,
    pub para_padding: [u8; 24],
    /// [`SYM_OP_CIPHER`].
    pub op_type: U32,
    pub padding: U32,
}

/// Length of `struct virtio_crypto_inhdr` (§5.9.7.3), the status byte
/// that ends a data request and is all a destroy-session request gets
/// back (§5.9.7.2.1.5).
pub const INHDR_LEN: usize = 1;

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{offset_of, size_of};

    #[test]
    fn sizes_match_the_spec() {
        assert_eq!(size_of::<Config>(), 56);
        assert_eq!(offset_of!(Config, max_cipher_key_len), 36);
        assert_eq!(offset_of!(Config, max_size), 48);
        assert_eq!(size_of::<CtrlHeader>(), 16);
        // header + the 56-byte union of virtio_crypto_op_ctrl_req
        assert_eq!(size_of::<CreateSessionReq>(), 72);
        assert_eq!(size_of::<DestroySessionReq>(), 72);
        assert_eq!(size_of::<SessionInput>(), 16);
        assert_eq!(size_of::<OpHeader>(), 24);
        // header + the 48-byte union of virtio_crypto_op_data_req
        assert_eq!(size_of::<CipherDataReq>(), 72);
    }

    #[test]
    fn opcodes() {
        assert_eq!(CIPHER_CREATE_SESSION, 0x0002);
        assert_eq!(CIPHER_DESTROY_SESSION, 0x0003);
        assert_eq!(CIPHER_ENCRYPT, 0x0000);
        assert_eq!(CIPHER_DECRYPT, 0x0001);
        assert_eq!(opcode(SERVICE_HASH, 0x02), 0x0102);
    }

    #[test]
    fn create_session_bytes() {
        let req = CreateSessionReq {
            header: CtrlHeader {
                opcode: CIPHER_CREATE_SESSION.into(),
                algo: CIPHER_AES_CBC.into(),
                flag: 0.into(),
                queue_id: 0.into(),
            },
            para: CipherSessionPara {
                algo: CIPHER_AES_CBC.into(),
                keylen: 16.into(),
                op: OP_DECRYPT.into(),
                padding: 0.into(),
            },
            para_padding: [0; 32],
            op_type: SYM_OP_CIPHER.into(),
            padding: 0.into(),
        };
        let mut want = [0u8; 72];
        want[0] = 0x02; // opcode
        want[4] = 3; // header.algo
        want[16] = 3; // para.algo
        want[20] = 16; // keylen
        want[24] = 2; // op
        want[64] = 1; // op_type
        assert_eq!(req.as_bytes(), &want);
    }

    #[test]
    fn destroy_session_bytes() {
        let req = DestroySessionReq {
            header: CtrlHeader {
                opcode: CIPHER_DESTROY_SESSION.into(),
                algo: 0.into(),
                flag: 0.into(),
                queue_id: 0.into(),
            },
            session_id: 0x0102_0304_0506_0708.into(),
            padding: [0; 48],
        };
        let mut want = [0u8; 72];
        want[0] = 0x03;
        want[16..24].copy_from_slice(&[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(req.as_bytes(), &want);
    }

    #[test]
    fn session_input_parse() {
        let bytes = [7, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0xaa, 0, 0, 0];
        let input = SessionInput::read_from_bytes(&bytes).unwrap();
        assert_eq!(input.session_id.get(), 7);
        assert_eq!(input.status.get(), STATUS_INVSESS);
    }

    #[test]
    fn cipher_data_bytes() {
        let req = CipherDataReq {
            header: OpHeader {
                opcode: CIPHER_DECRYPT.into(),
                algo: CIPHER_AES_CTR.into(),
                session_id: 5.into(),
                flag: 0.into(),
                padding: 0.into(),
            },
            para: CipherPara {
                iv_len: 16.into(),
                src_data_len: 0x1234.into(),
                dst_data_len: 0x1234.into(),
                padding: 0.into(),
            },
            para_padding: [0; 24],
            op_type: SYM_OP_CIPHER.into(),
            padding: 0.into(),
        };
        let mut want = [0u8; 72];
        want[0] = 0x01; // opcode
        want[4] = 4; // algo
        want[8] = 5; // session id
        want[24] = 16; // iv_len
        want[28..30].copy_from_slice(&[0x34, 0x12]); // src_data_len
        want[32..34].copy_from_slice(&[0x34, 0x12]); // dst_data_len
        want[64] = 1; // op_type
        assert_eq!(req.as_bytes(), &want);
    }

    #[test]
    fn config_parse() {
        // What QEMU's cryptodev-backend-builtin presents with one queue:
        // ready, 1 data queue, cipher|hash|mac|akcipher, CBC only, keys up
        // to 64 bytes, auth keys up to 512.
        let mut bytes = [0u8; 56];
        bytes[0] = 1;
        bytes[4] = 1;
        bytes[8] = 0b1_0111;
        bytes[12] = 1 << CIPHER_AES_CBC;
        bytes[36] = 64;
        bytes[40..42].copy_from_slice(&512u16.to_le_bytes());
        bytes[48..56].copy_from_slice(&0x7fff_ffff_ffff_ff00u64.to_le_bytes());
        let c = Config::read_from_bytes(&bytes).unwrap();
        assert_eq!(c.status.get(), S_HW_READY);
        assert_eq!(c.max_dataqueues.get(), 1);
        assert_eq!(c.crypto_services.get() & (1 << SERVICE_CIPHER), 1);
        assert_eq!(c.cipher_algo_l.get(), 1 << CIPHER_AES_CBC);
        assert_eq!(c.max_cipher_key_len.get(), 64);
        assert_eq!(c.max_auth_key_len.get(), 512);
        assert_eq!(c.max_size.get(), 0x7fff_ffff_ffff_ff00);
    }
}
