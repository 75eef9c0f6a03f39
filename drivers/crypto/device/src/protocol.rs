//! The cipher service's protocol, apart from any virtqueue: what a
//! request must satisfy before it goes to the device, the bytes it is
//! made of, and how an answer is checked (virtio 1.2 §5.9.7).
//!
//! [`Core`] keeps the table of sessions this driver created and runs each
//! operation over an [`Exchange`], which hands buffers to the device and
//! returns the used length. The device driver implements `Exchange` with
//! two virtqueues; the tests implement it with a fake device computing
//! with software AES, so everything here runs on the host.
//!
//! Buffer layout of each request, as QEMU's `hw/virtio/virtio-crypto.c`
//! reads it (device-readable first, then device-writable):
//!
//! | request | device-readable | device-writable | used length |
//! |---|---|---|---|
//! | create session | [`CreateSessionReq`], key | [`SessionInput`] | 16 |
//! | destroy session | [`DestroySessionReq`] | status byte | 1 |
//! | encrypt/decrypt | [`CipherDataReq`], IV, source | destination, status byte | len + 1 |

use alloc::collections::BTreeMap;
use core::mem::size_of;
use zerocopy::{FromBytes, IntoBytes};

use crate::error::{check_status, Error};
use crate::wire::*;

/// The AES IV / initial counter block length: the only IV length CBC
/// and CTR take.
pub const IV_LEN: usize = 16;
/// The AES block length.
pub const BLOCK_LEN: usize = 16;

/// A cipher mode the driver offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// AES-CBC.
    Cbc,
    /// AES-CTR, the IV being the initial 128-bit big-endian counter.
    /// The spec allows any length, but QEMU 7.2's builtin backend answers
    /// VIRTIO_CRYPTO_ERR to a partial last block (tools/qtest_probe.py),
    /// so the driver asks whole blocks of CTR too.
    Ctr,
}

impl Algorithm {
    /// The spec's id (§5.9.4.1), also the bit number in `cipher_algo_l`.
    pub fn id(self) -> u32 {
        match self {
            Algorithm::Cbc => CIPHER_AES_CBC,
            Algorithm::Ctr => CIPHER_AES_CTR,
        }
    }
}

/// A session's one direction (the device fixes it at creation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

impl Direction {
    fn session_op(self) -> u32 {
        match self {
            Direction::Encrypt => OP_ENCRYPT,
            Direction::Decrypt => OP_DECRYPT,
        }
    }

    fn data_opcode(self) -> u32 {
        match self {
            Direction::Encrypt => CIPHER_ENCRYPT,
            Direction::Decrypt => CIPHER_DECRYPT,
        }
    }
}

/// A session the device created for this driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SessionId(u64);

impl SessionId {
    /// The device's number for the session.
    pub fn raw(self) -> u64 {
        self.0
    }
}

/// What the device's configuration says limits requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `max_cipher_key_len`.
    pub max_cipher_key_len: u32,
    /// `max_size`: IV, source and destination of one request together.
    pub max_size: u64,
}

/// Hands one request's buffers to the device and waits for it to be used.
pub(crate) trait Exchange {
    /// On the control queue; returns the used length.
    fn control<'a>(
        &mut self,
        inputs: &'a [&'a [u8]],
        outputs: &'a mut [&'a mut [u8]],
    ) -> Result<u32, Error>;
    /// On the data queue; returns the used length.
    fn data<'a>(
        &mut self,
        inputs: &'a [&'a [u8]],
        outputs: &'a mut [&'a mut [u8]],
    ) -> Result<u32, Error>;
    /// Several requests on the data queue, each answered in its `used`.
    /// A device that can have them out at once overrides this; the
    /// default asks one after the other.
    fn data_batch(&mut self, reqs: &mut [DataReq<'_>]) {
        for r in reqs {
            let [a, b] = &mut r.outputs;
            let mut outputs: [&mut [u8]; 2] = [a, b];
            r.used = self.data(&r.inputs, &mut outputs);
        }
    }
}

impl<X: Exchange + ?Sized> Exchange for alloc::boxed::Box<X> {
    fn control<'a>(
        &mut self,
        inputs: &'a [&'a [u8]],
        outputs: &'a mut [&'a mut [u8]],
    ) -> Result<u32, Error> {
        (**self).control(inputs, outputs)
    }
    fn data<'a>(
        &mut self,
        inputs: &'a [&'a [u8]],
        outputs: &'a mut [&'a mut [u8]],
    ) -> Result<u32, Error> {
        (**self).data(inputs, outputs)
    }
    fn data_batch(&mut self, reqs: &mut [DataReq<'_>]) {
        (**self).data_batch(reqs)
    }
}

/// The most cipher requests one batch hands the device at once.
pub const MAX_BATCH: usize = 16;

/// One data request of a batch: header, IV and source out; destination
/// and status in; `used` once answered.
pub struct DataReq<'a> {
    pub(crate) inputs: [&'a [u8]; 3],
    pub(crate) outputs: [&'a mut [u8]; 2],
    pub(crate) used: Result<u32, Error>,
}

impl DataReq<'_> {
    /// A place holder, never handed to the device.
    fn unused() -> Self {
        Self {
            inputs: [&[]; 3],
            outputs: [&mut [], &mut []],
            used: Err(Error::Broken),
        }
    }
}

/// One cipher operation of a batch ([`crate::VirtIOCrypto::cipher_batch`]).
pub struct Job<'a> {
    pub session: SessionId,
    pub dir: Direction,
    pub iv: &'a [u8; IV_LEN],
    pub src: &'a [u8],
    pub dst: &'a mut [u8],
}

/// Checks an AES key against the cipher and the device's limit.
pub fn check_key(key: &[u8], limits: &Limits) -> Result<(), Error> {
    if !matches!(key.len(), 16 | 24 | 32) {
        return Err(Error::BadKeyLength { len: key.len() });
    }
    if key.len() as u64 > u64::from(limits.max_cipher_key_len) {
        return Err(Error::KeyTooLong {
            len: key.len(),
            max: limits.max_cipher_key_len,
        });
    }
    Ok(())
}

/// §5.9.7.2.1.4: the header of a session creation, for `key_len` bytes of
/// key on data queue `queue_id`.
pub fn create_session_req(
    algo: Algorithm,
    key_len: u32,
    dir: Direction,
    queue_id: u32,
) -> CreateSessionReq {
    CreateSessionReq {
        header: CtrlHeader {
            opcode: CIPHER_CREATE_SESSION.into(),
            algo: algo.id().into(),
            flag: 0.into(),
            queue_id: queue_id.into(),
        },
        para: CipherSessionPara {
            algo: algo.id().into(),
            keylen: key_len.into(),
            op: dir.session_op().into(),
            padding: 0.into(),
        },
        para_padding: [0; 32],
        op_type: SYM_OP_CIPHER.into(),
        padding: 0.into(),
    }
}

/// Checks the device's answer to a session creation: exactly a
/// [`SessionInput`] written, and status OK.
pub fn parse_session_input(input: &[u8], used: u32) -> Result<SessionId, Error> {
    let expected = size_of::<SessionInput>();
    if used as usize != expected || input.len() != expected {
        return Err(Error::UsedLength {
            expected,
            got: used,
        });
    }
    let input = SessionInput::read_from_bytes(input).map_err(|_| Error::UsedLength {
        expected,
        got: used,
    })?;
    check_status(input.status.get())?;
    Ok(SessionId(input.session_id.get()))
}

/// §5.9.7.2.1.5: the request destroying `session`.
pub fn destroy_session_req(session: SessionId, queue_id: u32) -> DestroySessionReq {
    DestroySessionReq {
        header: CtrlHeader {
            opcode: CIPHER_DESTROY_SESSION.into(),
            algo: 0.into(),
            flag: 0.into(),
            queue_id: queue_id.into(),
        },
        session_id: session.0.into(),
        padding: [0; 48],
    }
}

/// Checks the answer to a destroy: one status byte, OK.
pub fn parse_destroy_status(status: u8, used: u32) -> Result<(), Error> {
    if used as usize != INHDR_LEN {
        return Err(Error::UsedLength {
            expected: INHDR_LEN,
            got: used,
        });
    }
    check_status(status.into())
}

/// Checks a cipher request's lengths: the same for source and
/// destination (QEMU sets DEVICE_NEEDS_RESET and never answers
/// otherwise), not empty, whole blocks (CBC by definition, CTR because
/// QEMU's builtin backend refuses partial blocks), and within `max_size`
/// counted as QEMU counts it (IV + source + destination; beyond it QEMU
/// also stops the device).
pub fn check_lengths(src: usize, dst: usize, limits: &Limits) -> Result<u32, Error> {
    if src != dst {
        return Err(Error::LengthMismatch { src, dst });
    }
    if src == 0 {
        return Err(Error::EmptyData);
    }
    if !src.is_multiple_of(BLOCK_LEN) {
        return Err(Error::NotBlockMultiple { len: src });
    }
    let needed = (IV_LEN as u64)
        .saturating_add(src as u64)
        .saturating_add(dst as u64);
    if needed > limits.max_size || src > u32::MAX as usize {
        return Err(Error::TooLarge {
            needed,
            max: limits.max_size,
        });
    }
    Ok(src as u32)
}

/// §5.9.7.6: the header of a cipher request of `len` bytes.
pub fn cipher_req(session: SessionId, algo: Algorithm, dir: Direction, len: u32) -> CipherDataReq {
    CipherDataReq {
        header: OpHeader {
            opcode: dir.data_opcode().into(),
            algo: algo.id().into(),
            session_id: session.0.into(),
            flag: 0.into(),
            padding: 0.into(),
        },
        para: CipherPara {
            iv_len: (IV_LEN as u32).into(),
            src_data_len: len.into(),
            dst_data_len: len.into(),
            padding: 0.into(),
        },
        para_padding: [0; 24],
        op_type: SYM_OP_CIPHER.into(),
        padding: 0.into(),
    }
}

/// Checks the answer to a cipher request of `len` bytes. A failure is
/// taken from the status byte whatever was written before it; success
/// must have written the whole destination and the status.
pub fn parse_cipher_status(status: u8, used: u32, len: usize) -> Result<(), Error> {
    let expected = len.saturating_add(INHDR_LEN);
    if used == 0 || used as usize > expected {
        return Err(Error::UsedLength {
            expected,
            got: used,
        });
    }
    check_status(status.into())?;
    if used as usize != expected {
        return Err(Error::UsedLength {
            expected,
            got: used,
        });
    }
    Ok(())
}

#[derive(Clone, Copy, Debug)]
struct Session {
    algo: Algorithm,
    dir: Direction,
}

/// The protocol state: limits, the data queue in use, and the sessions
/// this driver created (so an unknown id never reaches the device).
pub(crate) struct Core<X> {
    pub(crate) exchange: X,
    limits: Limits,
    queue_id: u32,
    sessions: BTreeMap<SessionId, Session>,
}

impl<X: Exchange> Core<X> {
    pub(crate) fn new(exchange: X, limits: Limits, queue_id: u32) -> Self {
        Core {
            exchange,
            limits,
            queue_id,
            sessions: BTreeMap::new(),
        }
    }

    pub(crate) fn create_session(
        &mut self,
        algo: Algorithm,
        key: &[u8],
        dir: Direction,
    ) -> Result<SessionId, Error> {
        check_key(key, &self.limits)?;
        let req = create_session_req(algo, key.len() as u32, dir, self.queue_id);
        let mut input = [0u8; size_of::<SessionInput>()];
        let used = self
            .exchange
            .control(&[req.as_bytes(), key], &mut [&mut input[..]])?;
        let id = parse_session_input(&input, used)?;
        self.sessions.insert(id, Session { algo, dir });
        Ok(id)
    }

    pub(crate) fn destroy_session(&mut self, id: SessionId) -> Result<(), Error> {
        // Forgotten whatever the answer: a destroy the device carried out
        // but answered badly must not be sent again. QEMU 7.2 answers ERR
        // to an unknown session, but the builtin backend of later QEMUs
        // asserts the session exists (and so aborts the VM); a leaked
        // device session costs less than that.
        self.sessions.remove(&id).ok_or(Error::UnknownSession)?;
        let req = destroy_session_req(id, self.queue_id);
        let mut status = [0xffu8; INHDR_LEN];
        let used = self
            .exchange
            .control(&[req.as_bytes()], &mut [&mut status[..]])?;
        parse_destroy_status(status[0], used)
    }

    pub(crate) fn cipher(
        &mut self,
        id: SessionId,
        dir: Direction,
        iv: &[u8; IV_LEN],
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), Error> {
        let mut jobs = [Job {
            session: id,
            dir,
            iv,
            src,
            dst,
        }];
        let mut result = [Ok(())];
        self.cipher_batch(&mut jobs, &mut result);
        result[0]
    }

    /// Ciphers every job, `results[i]` answering `jobs[i]` (the slices
    /// are as long), [`MAX_BATCH`] at a time: a job the checks refuse
    /// never reaches the device; the others of its chunk go together.
    pub(crate) fn cipher_batch(&mut self, jobs: &mut [Job<'_>], results: &mut [Result<(), Error>]) {
        for (jobs, results) in jobs
            .chunks_mut(MAX_BATCH)
            .zip(results.chunks_mut(MAX_BATCH))
        {
            self.cipher_chunk(jobs, results);
        }
    }

    /// At most [`MAX_BATCH`] jobs (as [`Self::cipher_batch`] cuts them),
    /// on the stack: this runs for every batch a flow hands the device.
    fn cipher_chunk(&mut self, jobs: &mut [Job<'_>], results: &mut [Result<(), Error>]) {
        let mut checked = [Err(Error::Broken); MAX_BATCH];
        for (c, job) in checked.iter_mut().zip(jobs.iter()) {
            *c = self.check_job(job);
        }
        let mut statuses = [[0xffu8; INHDR_LEN]; MAX_BATCH];
        let mut reqs: [DataReq<'_>; MAX_BATCH] = core::array::from_fn(|_| DataReq::unused());
        let mut carried = [0usize; MAX_BATCH];
        let mut count = 0;
        let requests = jobs.iter_mut().zip(&checked).zip(statuses.iter_mut());
        for (i, ((job, checked), status)) in requests.enumerate() {
            match checked {
                Ok(header) => {
                    reqs[count] = DataReq {
                        inputs: [header.as_bytes(), &job.iv[..], job.src],
                        outputs: [&mut *job.dst, &mut status[..]],
                        used: Err(Error::Broken),
                    };
                    carried[count] = i;
                    count += 1;
                }
                Err(e) => results[i] = Err(*e),
            }
        }
        self.exchange.data_batch(&mut reqs[..count]);
        let mut used = [Err(Error::Broken); MAX_BATCH];
        for (u, r) in used.iter_mut().zip(&reqs[..count]) {
            *u = r.used;
        }
        for (&i, used) in carried.iter().zip(used).take(count) {
            results[i] =
                used.and_then(|u| parse_cipher_status(statuses[i][0], u, jobs[i].src.len()));
        }
    }

    /// The request header for `job`, or why it may not reach the device.
    fn check_job(&self, job: &Job<'_>) -> Result<CipherDataReq, Error> {
        let session = self
            .sessions
            .get(&job.session)
            .ok_or(Error::UnknownSession)?;
        if session.dir != job.dir {
            return Err(Error::WrongDirection);
        }
        let len = check_lengths(job.src.len(), job.dst.len(), &self.limits)?;
        Ok(cipher_req(job.session, session.algo, job.dir, len))
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soft;
    use alloc::vec;
    use alloc::vec::Vec;

    const KEY: [u8; 16] = *b"0123456789abcdef";
    const IV: [u8; 16] = [7; 16];
    const LIMITS: Limits = Limits {
        max_cipher_key_len: 64,
        max_size: 4096,
    };

    /// What a fault-injecting fake device does to its next answer.
    #[derive(Clone, Copy, PartialEq)]
    enum Fault {
        None,
        Status(u8),
        UsedLen(u32),
    }

    /// A device behaving as QEMU's virtio-crypto with the builtin
    /// backend: it parses the buffers the way hw/virtio/virtio-crypto.c
    /// does, and does what the *session* says whatever the opcode.
    struct FakeDevice {
        sessions: Vec<Option<(Vec<u8>, u32, u32)>>,
        fault: Fault,
        requests: usize,
    }

    impl FakeDevice {
        fn new() -> Self {
            FakeDevice {
                sessions: Vec::new(),
                fault: Fault::None,
                requests: 0,
            }
        }

        fn answer(&mut self, used: u32, status: &mut u8) -> u32 {
            match core::mem::replace(&mut self.fault, Fault::None) {
                Fault::None => used,
                Fault::Status(s) => {
                    *status = s;
                    used
                }
                Fault::UsedLen(l) => l,
            }
        }
    }

    impl Exchange for FakeDevice {
        fn control<'a>(
            &mut self,
            inputs: &'a [&'a [u8]],
            outputs: &'a mut [&'a mut [u8]],
        ) -> Result<u32, Error> {
            self.requests += 1;
            let (hdr, _) = CtrlHeader::read_from_prefix(inputs[0]).unwrap();
            match hdr.opcode.get() {
                CIPHER_CREATE_SESSION => {
                    let req = CreateSessionReq::read_from_bytes(inputs[0]).unwrap();
                    assert_eq!(req.op_type.get(), SYM_OP_CIPHER);
                    let key = inputs[1];
                    assert_eq!(key.len() as u32, req.para.keylen.get());
                    self.sessions.push(Some((
                        key.to_vec(),
                        req.para.algo.get(),
                        req.para.op.get(),
                    )));
                    let mut input = SessionInput {
                        session_id: (self.sessions.len() as u64 - 1).into(),
                        status: STATUS_OK.into(),
                        padding: 0.into(),
                    };
                    let mut status = 0;
                    let used = self.answer(16, &mut status);
                    input.status = u32::from(status).into();
                    outputs[0].copy_from_slice(input.as_bytes());
                    Ok(used)
                }
                CIPHER_DESTROY_SESSION => {
                    let req = DestroySessionReq::read_from_bytes(inputs[0]).unwrap();
                    // Later QEMUs' builtin backend asserts on an unknown id.
                    let slot = &mut self.sessions[req.session_id.get() as usize];
                    assert!(slot.is_some(), "destroy of an unknown session");
                    *slot = None;
                    let mut status = 0;
                    let used = self.answer(1, &mut status);
                    outputs[0][0] = status;
                    Ok(used)
                }
                other => panic!("opcode {other:#x}"),
            }
        }

        fn data<'a>(
            &mut self,
            inputs: &'a [&'a [u8]],
            outputs: &'a mut [&'a mut [u8]],
        ) -> Result<u32, Error> {
            self.requests += 1;
            let req = CipherDataReq::read_from_bytes(inputs[0]).unwrap();
            assert_eq!(req.op_type.get(), SYM_OP_CIPHER);
            assert_eq!(req.para.iv_len.get() as usize, inputs[1].len());
            let len = req.para.src_data_len.get() as usize;
            assert_eq!(len, req.para.dst_data_len.get() as usize);
            assert_eq!(inputs[2].len(), len);
            let (key, algo, op) = self.sessions[req.header.session_id.get() as usize]
                .clone()
                .unwrap();
            let (dst, status) = outputs.split_at_mut(1);
            dst[0].copy_from_slice(inputs[2]);
            let algo = if algo == CIPHER_AES_CBC {
                Algorithm::Cbc
            } else {
                Algorithm::Ctr
            };
            let dir = if op == OP_ENCRYPT {
                Direction::Encrypt
            } else {
                Direction::Decrypt
            };
            let iv: [u8; 16] = inputs[1].try_into().unwrap();
            soft::apply(algo, dir, &key, &iv, dst[0]).unwrap();
            let mut s = 0;
            let used = self.answer(len as u32 + 1, &mut s);
            status[0][0] = s;
            Ok(used)
        }
    }

    fn core() -> Core<FakeDevice> {
        Core::new(FakeDevice::new(), LIMITS, 0)
    }

    #[test]
    fn cbc_and_ctr_round_trip_match_software_aes() {
        let mut c = core();
        for (algo, len) in [(Algorithm::Cbc, 64), (Algorithm::Ctr, 48)] {
            let enc = c.create_session(algo, &KEY, Direction::Encrypt).unwrap();
            let dec = c.create_session(algo, &KEY, Direction::Decrypt).unwrap();
            let plain: Vec<u8> = (0..len as u8).collect();
            let mut ct = vec![0; len];
            c.cipher(enc, Direction::Encrypt, &IV, &plain, &mut ct)
                .unwrap();
            let mut want = plain.clone();
            soft::apply(algo, Direction::Encrypt, &KEY, &IV, &mut want).unwrap();
            assert_eq!(ct, want);
            let mut back = vec![0; len];
            c.cipher(dec, Direction::Decrypt, &IV, &ct, &mut back)
                .unwrap();
            assert_eq!(back, plain);
            c.destroy_session(enc).unwrap();
            c.destroy_session(dec).unwrap();
        }
    }

    #[test]
    fn a_batch_answers_each_job_and_sends_only_the_good_ones() {
        let mut c = core();
        let enc = c
            .create_session(Algorithm::Cbc, &KEY, Direction::Encrypt)
            .unwrap();
        let sent = c.exchange.requests;
        // Eleven jobs (two chunks): 3 refused before the device.
        let plain: Vec<Vec<u8>> = (0..11u8).map(|i| vec![i; 32]).collect();
        let mut outs: Vec<Vec<u8>> = (0..11)
            .map(|i| vec![0u8; if i == 4 { 16 } else { 32 }])
            .collect();
        let mut jobs: Vec<Job<'_>> = plain
            .iter()
            .zip(outs.iter_mut())
            .enumerate()
            .map(|(i, (p, o))| Job {
                session: if i == 2 { SessionId(99) } else { enc },
                dir: if i == 9 {
                    Direction::Decrypt
                } else {
                    Direction::Encrypt
                },
                iv: &IV,
                src: p,
                dst: o,
            })
            .collect();
        let mut results = vec![Ok(()); 11];
        c.cipher_batch(&mut jobs, &mut results);
        drop(jobs);
        assert_eq!(results[2], Err(Error::UnknownSession));
        assert_eq!(results[4], Err(Error::LengthMismatch { src: 32, dst: 16 }));
        assert_eq!(results[9], Err(Error::WrongDirection));
        assert_eq!(
            c.exchange.requests - sent,
            8,
            "only the good jobs reach the device"
        );
        for i in [0, 1, 3, 5, 6, 7, 8, 10] {
            assert_eq!(results[i], Ok(()), "job {i}");
            let mut want = plain[i].clone();
            soft::apply(Algorithm::Cbc, Direction::Encrypt, &KEY, &IV, &mut want).unwrap();
            assert_eq!(outs[i], want, "job {i}");
        }
    }

    #[test]
    fn a_batch_past_max_batch_is_cut_into_chunks_and_every_job_answered() {
        let mut c = core();
        let enc = c
            .create_session(Algorithm::Ctr, &KEY, Direction::Encrypt)
            .unwrap();
        let n = 2 * MAX_BATCH + 1;
        let plain: Vec<Vec<u8>> = (0..n).map(|i| vec![i as u8; 32]).collect();
        let mut outs = vec![vec![0u8; 32]; n];
        let mut jobs: Vec<Job<'_>> = plain
            .iter()
            .zip(outs.iter_mut())
            .map(|(p, o)| Job {
                session: enc,
                dir: Direction::Encrypt,
                iv: &IV,
                src: p,
                dst: o,
            })
            .collect();
        let mut results = vec![Err(Error::Broken); n];
        let sent = c.exchange.requests;
        c.cipher_batch(&mut jobs, &mut results);
        drop(jobs);
        assert_eq!(c.exchange.requests - sent, n, "every job, once");
        for i in 0..n {
            assert_eq!(results[i], Ok(()), "job {i}");
            let mut want = plain[i].clone();
            soft::apply(Algorithm::Ctr, Direction::Encrypt, &KEY, &IV, &mut want).unwrap();
            assert_eq!(outs[i], want, "job {i}");
        }
    }

    #[test]
    fn bad_requests_never_reach_the_device() {
        let mut c = core();
        assert_eq!(
            c.create_session(Algorithm::Cbc, &[0; 15], Direction::Encrypt),
            Err(Error::BadKeyLength { len: 15 })
        );
        let enc = c
            .create_session(Algorithm::Cbc, &KEY, Direction::Encrypt)
            .unwrap();
        let ctr = c
            .create_session(Algorithm::Ctr, &KEY, Direction::Encrypt)
            .unwrap();
        let sent = c.exchange.requests;
        let mut out = [0u8; 32];
        assert_eq!(
            c.cipher(enc, Direction::Encrypt, &IV, &[0; 20], &mut out[..20]),
            Err(Error::NotBlockMultiple { len: 20 })
        );
        assert_eq!(
            c.cipher(ctr, Direction::Encrypt, &IV, &[0; 20], &mut out[..20]),
            Err(Error::NotBlockMultiple { len: 20 })
        );
        assert_eq!(
            c.cipher(enc, Direction::Encrypt, &IV, &[0; 16], &mut out),
            Err(Error::LengthMismatch { src: 16, dst: 32 })
        );
        assert_eq!(
            c.cipher(enc, Direction::Decrypt, &IV, &[0; 32], &mut out),
            Err(Error::WrongDirection)
        );
        assert_eq!(
            c.cipher(enc, Direction::Encrypt, &IV, &[], &mut []),
            Err(Error::EmptyData)
        );
        let big = vec![0u8; 2048];
        let mut big_out = vec![0u8; 2048];
        assert_eq!(
            c.cipher(enc, Direction::Encrypt, &IV, &big, &mut big_out),
            Err(Error::TooLarge {
                needed: 16 + 4096,
                max: 4096
            })
        );
        let stranger = SessionId(99);
        assert_eq!(c.destroy_session(stranger), Err(Error::UnknownSession));
        assert_eq!(
            c.cipher(stranger, Direction::Encrypt, &IV, &[0; 16], &mut out[..16]),
            Err(Error::UnknownSession)
        );
        assert_eq!(c.exchange.requests, sent);
        // destroyed sessions are unknown too
        c.destroy_session(enc).unwrap();
        assert_eq!(c.destroy_session(enc), Err(Error::UnknownSession));
    }

    #[test]
    fn key_longer_than_the_device_allows() {
        let limits = Limits {
            max_cipher_key_len: 16,
            ..LIMITS
        };
        assert_eq!(
            check_key(&[0; 32], &limits),
            Err(Error::KeyTooLong { len: 32, max: 16 })
        );
        assert_eq!(check_key(&[0; 16], &limits), Ok(()));
    }

    #[test]
    fn device_statuses_and_lengths_are_checked() {
        let mut c = core();
        c.exchange.fault = Fault::Status(STATUS_NOSPC as u8);
        assert_eq!(
            c.create_session(Algorithm::Ctr, &KEY, Direction::Encrypt),
            Err(Error::NoSpace)
        );
        c.exchange.fault = Fault::UsedLen(15);
        assert_eq!(
            c.create_session(Algorithm::Ctr, &KEY, Direction::Encrypt),
            Err(Error::UsedLength {
                expected: 16,
                got: 15
            })
        );
        let s = c
            .create_session(Algorithm::Ctr, &KEY, Direction::Encrypt)
            .unwrap();
        let mut out = [0u8; 16];
        c.exchange.fault = Fault::Status(STATUS_INVSESS as u8);
        assert_eq!(
            c.cipher(s, Direction::Encrypt, &IV, &[1; 16], &mut out),
            Err(Error::InvalidSession)
        );
        c.exchange.fault = Fault::Status(200);
        assert_eq!(
            c.cipher(s, Direction::Encrypt, &IV, &[1; 16], &mut out),
            Err(Error::UnknownStatus(200))
        );
        c.exchange.fault = Fault::UsedLen(1000);
        assert_eq!(
            c.cipher(s, Direction::Encrypt, &IV, &[1; 16], &mut out),
            Err(Error::UsedLength {
                expected: 17,
                got: 1000
            })
        );
        c.exchange.fault = Fault::UsedLen(3);
        assert_eq!(
            c.cipher(s, Direction::Encrypt, &IV, &[1; 16], &mut out),
            Err(Error::UsedLength {
                expected: 17,
                got: 3
            })
        );
        c.exchange.fault = Fault::UsedLen(0);
        assert_eq!(
            c.destroy_session(s),
            Err(Error::UsedLength {
                expected: 1,
                got: 0
            })
        );
        // forgotten even so: never destroyed twice
        assert_eq!(c.destroy_session(s), Err(Error::UnknownSession));
        let s = c
            .create_session(Algorithm::Cbc, &KEY, Direction::Decrypt)
            .unwrap();
        c.exchange.fault = Fault::Status(STATUS_ERR as u8);
        assert_eq!(c.destroy_session(s), Err(Error::DeviceError));
        assert_eq!(c.destroy_session(s), Err(Error::UnknownSession));
    }

    #[test]
    fn parse_functions_on_literal_bytes() {
        let ok = [9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(parse_session_input(&ok, 16), Ok(SessionId(9)));
        let notsupp = [0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(parse_session_input(&notsupp, 16), Err(Error::NotSupported));
        assert_eq!(parse_destroy_status(0, 1), Ok(()));
        assert_eq!(parse_destroy_status(4, 1), Err(Error::InvalidSession));
        assert_eq!(parse_cipher_status(0, 33, 32), Ok(()));
        assert_eq!(parse_cipher_status(1, 33, 32), Err(Error::DeviceError));
        // a failure may come with less written; success may not
        assert_eq!(parse_cipher_status(2, 1, 32), Err(Error::BadMessage));
        assert_eq!(
            parse_cipher_status(0, 1, 32),
            Err(Error::UsedLength {
                expected: 33,
                got: 1
            })
        );
    }
}
