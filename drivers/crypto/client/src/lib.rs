//! A task's end of a crypto connection (`conflux-crypto-protocol`), over
//! the capabilities the manifest gives a device's client (`[devices.NAME]
//! clients = [...]`): the shared region `NAME` (mapped), the completion
//! notification `NAME_DONE` and the doorbell `NAME_DOORBELL`.
//!
//! Keys, sources and destinations are ranges of the data area, which the
//! task fills and reads through [`Connection::data`]; the device reads and
//! writes them in place. The calls that wait ([`Connection::encrypt`] and
//! the like) use request id 0; [`Connection::submit`] and
//! [`Connection::wait`] keep up to [`CAPACITY`] requests in flight.
#![no_std]

use conflux_crypto_protocol::{Client, Op, DATA};
use conflux_userlib::ipc::{Notification, Region};

pub use conflux_crypto_protocol::{
    Algorithm, Completion, Direction, LinkError, Status, Submission, CAPACITY, IV_LEN, MAX_LEN,
    MAX_SESSIONS,
};

/// The capabilities of a connection, from the task's `config::caps`.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub region: usize,
    pub addr: u64,
    pub size: usize,
    pub done: usize,
    pub doorbell: usize,
}

/// Why a request did not succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The connection itself failed (see [`LinkError`]).
    Link(LinkError),
    /// The driver answered with this status (and its detail number).
    Refused { status: Status, detail: u64 },
}

impl From<LinkError> for Error {
    fn from(e: LinkError) -> Self {
        Self::Link(e)
    }
}

/// A session the driver made for this client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Session(pub u64);

/// An open connection.
pub struct Connection {
    client: Client,
    data: u64,
    data_len: u64,
    done: Notification,
    doorbell: Notification,
}

impl Connection {
    /// Formats the shared rings, rings the driver and waits for it to attach.
    pub fn open(caps: Caps) -> Result<Self, LinkError> {
        let region = Region(caps.region).premapped(caps.addr, caps.size);
        #[allow(unsafe_code)]
        // Safety: the manifest mapped the region, page aligned, for the
        // task's life (`Mapped` guarantees a live mapping of that length),
        // and the driver attaches only after the doorbell below.
        let client = unsafe {
            Client::format(
                region.base() as *mut u8,
                region.size() as usize,
                conflux_userlib::sys::rdtsc(),
            )
        }?;
        let conn = Self {
            data_len: client.data_len(),
            client,
            data: region.base() + DATA as u64,
            done: Notification(caps.done),
            doorbell: Notification(caps.doorbell),
        };
        // The driver attaches when it sees the new session (after ending
        // an earlier instance's, if it still served that one).
        while !conn.client.attached() {
            let _ = conn.doorbell.signal();
            let _ = conn.done.wait();
        }
        Ok(conn)
    }

    /// The data area. The caller must not change a range a request in
    /// flight reads, nor read one it writes, before the answer.
    pub fn data(&mut self) -> &mut [u8] {
        #[allow(unsafe_code)]
        // Safety: the data area lies inside the mapped region (from DATA
        // to its end); `&mut self` keeps this the only slice the task
        // makes of it at a time.
        unsafe {
            core::slice::from_raw_parts_mut(self.data as *mut u8, self.data_len as usize)
        }
    }

    /// Sends request `id` (`id < CAPACITY`, not in flight) with every
    /// field chosen by the caller (tests use it to send what a hostile
    /// client would).
    pub fn submit(&mut self, id: u32, s: &Submission) -> Result<(), LinkError> {
        if self.client.submit(id, s)? {
            let _ = self.doorbell.signal();
        }
        Ok(())
    }

    /// The next finished request.
    pub fn wait(&mut self) -> Result<Completion, LinkError> {
        loop {
            if let Some(done) = self.client.complete()? {
                return Ok(done);
            }
            if self.client.prepare_to_wait()? {
                let _ = self.done.wait();
            }
        }
    }

    /// Sends `s` as request 0 and waits for its answer (nothing else may
    /// be in flight).
    pub fn call(&mut self, s: &Submission) -> Result<Completion, Error> {
        self.submit(0, s)?;
        let done = self.wait()?;
        match done.status {
            Status::Ok => Ok(done),
            status => Err(Error::Refused {
                status,
                detail: done.detail,
            }),
        }
    }

    /// A session of `algo` and `dir` whose key is `key_len` bytes at
    /// `key_offset` of the data area.
    pub fn create_session(
        &mut self,
        algo: Algorithm,
        dir: Direction,
        key_offset: u64,
        key_len: u32,
    ) -> Result<Session, Error> {
        let done = self.call(&Submission {
            op: Op::CreateSession as u32,
            offset: key_offset,
            len: key_len,
            param: algo.param(dir),
            ..Submission::default()
        })?;
        Ok(Session(done.session))
    }

    pub fn destroy_session(&mut self, session: Session) -> Result<(), Error> {
        self.call(&Submission {
            op: Op::DestroySession as u32,
            session: session.0,
            ..Submission::default()
        })
        .map(drop)
    }

    /// The request that encrypts (or decrypts, by `dir`) `len` bytes at
    /// `src` into `dst`, both offsets in the data area.
    pub fn cipher_request(
        dir: Direction,
        session: Session,
        iv: &[u8; IV_LEN],
        src: u64,
        dst: u64,
        len: u32,
    ) -> Submission {
        Submission {
            op: match dir {
                Direction::Encrypt => Op::Encrypt as u32,
                Direction::Decrypt => Op::Decrypt as u32,
            },
            session: session.0,
            iv: *iv,
            offset: src,
            len,
            dst,
            param: 0,
        }
    }

    /// Encrypts `len` bytes at `src` into `dst` and waits.
    pub fn encrypt(
        &mut self,
        session: Session,
        iv: &[u8; IV_LEN],
        src: u64,
        dst: u64,
        len: u32,
    ) -> Result<(), Error> {
        let s = Self::cipher_request(Direction::Encrypt, session, iv, src, dst, len);
        self.call(&s).map(drop)
    }

    /// Decrypts `len` bytes at `src` into `dst` and waits.
    pub fn decrypt(
        &mut self,
        session: Session,
        iv: &[u8; IV_LEN],
        src: u64,
        dst: u64,
        len: u32,
    ) -> Result<(), Error> {
        let s = Self::cipher_request(Direction::Decrypt, session, iv, src, dst, len);
        self.call(&s).map(drop)
    }

    /// How many sessions the device holds for all of the driver's
    /// clients together.
    pub fn session_count(&mut self) -> Result<u64, Error> {
        self.call(&Submission {
            op: Op::Count as u32,
            ..Submission::default()
        })
        .map(|done| done.detail)
    }

    /// Tells the driver this client is done; it destroys the client's
    /// sessions and stops serving it.
    pub fn detach(mut self) -> Result<(), Error> {
        self.call(&Submission {
            op: Op::Detach as u32,
            ..Submission::default()
        })
        .map(drop)
    }
}
