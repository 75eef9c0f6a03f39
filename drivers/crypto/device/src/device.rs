//! [`VirtIOCrypto`]: the protocol of [`crate::protocol`] on a
//! virtio-drivers transport, with data queue 0 and the control queue.
//!
//! This is the one module allowed `unsafe`: virtio-drivers' `add` and
//! `pop_used` are unsafe because the device owns the buffers in between.
//! [`transact`] keeps them owned by not returning until the device gave
//! them back, or until the device has been reset (after which it no
//! longer touches them).
//!
//! Device initialization follows virtio 1.2 §3.1.1 through
//! `Transport::begin_init`/`finish_init`, with the crypto specifics of
//! §5.9.5 (read the config, check VIRTIO_CRYPTO_S_HW_READY) and §5.9.2
//! (data queues 0..max_dataqueues-1, then the control queue).
#![allow(unsafe_code)]

use alloc::boxed::Box;
use core::mem::offset_of;

use virtio_drivers::device::common::Feature;
use virtio_drivers::queue::VirtQueue;
use virtio_drivers::transport::{DeviceStatus, DeviceType, InterruptStatus, Transport};
use virtio_drivers::Hal;

use crate::error::Error;
use crate::protocol::{
    Algorithm, Core, DataReq, Direction, Exchange, Job, Limits, SessionId, IV_LEN, MAX_BATCH,
};
use crate::wait::{Sleep, Wait};
use crate::wire::{self, Config};

/// Descriptors in the data queue: a cipher request takes 5 (header, IV,
/// source, destination, status), so a batch of [`MAX_BATCH`] fits.
const DATA_QUEUE_SIZE: usize = 128;
const _: () = assert!(5 * MAX_BATCH <= DATA_QUEUE_SIZE);
/// Descriptors in the control queue: a session request takes 2 or 3.
const CONTROL_QUEUE_SIZE: usize = 4;
/// The data queue this driver uses.
const DATA_QUEUE: u16 = 0;
/// Features accepted: the crypto device is modern-only, and none of its
/// own feature bits (§5.9.3: stateless modes) concern session mode.
const SUPPORTED_FEATURES: Feature = Feature::VERSION_1;

/// What the device's configuration (§5.9.5) said at initialization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceConfig {
    pub status: u32,
    pub max_dataqueues: u32,
    /// Bit `n` set: service `n` (`wire::SERVICE_*`) offered.
    pub crypto_services: u32,
    /// Bit `n` set: cipher algorithm `n` (`wire::CIPHER_*`) advertised.
    /// QEMU's builtin backend advertises only AES-CBC, yet does AES-ECB,
    /// CTR and XTS too, so the driver does not refuse on this.
    pub cipher_algo_l: u32,
    pub cipher_algo_h: u32,
    pub max_cipher_key_len: u32,
    pub max_size: u64,
}

impl DeviceConfig {
    /// Whether the device advertises `algo` (see `cipher_algo_l`).
    pub fn advertises(&self, algo: Algorithm) -> bool {
        self.cipher_algo_l & (1 << algo.id()) != 0
    }

    fn read<T: Transport>(transport: &T) -> Result<Self, Error> {
        let field = |offset: usize| transport.read_config_space::<u32>(offset);
        let config = transport.read_consistent(|| {
            Ok(DeviceConfig {
                status: field(offset_of!(Config, status))?,
                max_dataqueues: field(offset_of!(Config, max_dataqueues))?,
                crypto_services: field(offset_of!(Config, crypto_services))?,
                cipher_algo_l: field(offset_of!(Config, cipher_algo_l))?,
                cipher_algo_h: field(offset_of!(Config, cipher_algo_h))?,
                max_cipher_key_len: field(offset_of!(Config, max_cipher_key_len))?,
                // 64-bit fields are read as two 32-bit halves; the
                // generation check makes the pair consistent.
                max_size: u64::from(field(offset_of!(Config, max_size))?)
                    | u64::from(field(offset_of!(Config, max_size) + 4)?) << 32,
            })
        })?;
        Ok(config)
    }
}

/// A virtio crypto device: AES-CBC/CTR cipher sessions, one direction
/// each, and synchronous encrypt/decrypt requests on data queue 0.
pub struct VirtIOCrypto<H: Hal, T: Transport> {
    // Boxed: the queues' shadow descriptor tables are kilobytes, and a
    // driver's small stack must not carry them through every frame that
    // holds the device.
    core: Core<Box<Queues<H, T>>>,
    config: DeviceConfig,
}

struct Queues<H: Hal, T: Transport> {
    transport: T,
    data: VirtQueue<H, DATA_QUEUE_SIZE>,
    control: VirtQueue<H, CONTROL_QUEUE_SIZE>,
    control_index: u16,
    /// Set once the device has been reset after a failure.
    broken: bool,
    /// How to wait for the device; `None` polls.
    sleep: Option<Sleep>,
}

impl<H: Hal, T: Transport> VirtIOCrypto<H, T> {
    /// Initializes the device behind `transport`: features, config,
    /// queues. Fails if it is not a ready crypto device with the cipher
    /// service and at least one data queue.
    pub fn new(mut transport: T) -> Result<Self, Error> {
        if transport.device_type() != DeviceType::Crypto {
            return Err(Error::WrongDeviceType);
        }
        transport.begin_init(SUPPORTED_FEATURES);
        let result = Self::setup(&mut transport);
        match result {
            Ok((config, control_index)) => {
                let queues = Self::queues(transport, control_index)?;
                let limits = Limits {
                    max_cipher_key_len: config.max_cipher_key_len,
                    max_size: config.max_size,
                };
                Ok(VirtIOCrypto {
                    core: Core::new(queues, limits, DATA_QUEUE.into()),
                    config,
                })
            }
            Err(e) => {
                transport.set_status(DeviceStatus::FAILED);
                Err(e)
            }
        }
    }

    /// Reads and checks the config; returns it and the control queue's
    /// index.
    fn setup(transport: &mut T) -> Result<(DeviceConfig, u16), Error> {
        let config = DeviceConfig::read(transport)?;
        if config.status & wire::S_HW_READY == 0 {
            return Err(Error::NotReady);
        }
        if config.crypto_services & (1 << wire::SERVICE_CIPHER) == 0 {
            return Err(Error::NoCipherService);
        }
        // §5.9.2: the control queue follows the data queues.
        let control_index = u16::try_from(config.max_dataqueues)
            .ok()
            .filter(|n| (1..u16::MAX).contains(n))
            .ok_or(Error::BadQueueCount(config.max_dataqueues))?;
        Ok((config, control_index))
    }

    // Not inlined: the queues are built on this frame only, and leave it
    // boxed.
    #[inline(never)]
    fn queues(mut transport: T, control_index: u16) -> Result<Box<Queues<H, T>>, Error> {
        let queues = VirtQueue::new(&mut transport, DATA_QUEUE, false, false).and_then(|data| {
            let control = VirtQueue::new(&mut transport, control_index, false, false)?;
            Ok((data, control))
        });
        match queues {
            Ok((mut data, mut control)) => {
                // No interrupt unless a request is waited for by
                // sleeping (`crate::wait`), which asks for one just
                // before it sleeps (VIRTQ_AVAIL_F_NO_INTERRUPT, virtio
                // 1.2 §2.7.10).
                data.set_dev_notify(false);
                control.set_dev_notify(false);
                transport.finish_init();
                Ok(Box::new(Queues {
                    transport,
                    data,
                    control,
                    control_index,
                    broken: false,
                    sleep: None,
                }))
            }
            Err(e) => {
                transport.set_status(DeviceStatus::FAILED);
                Err(e.into())
            }
        }
    }

    /// The device's configuration as read at initialization.
    pub fn config(&self) -> &DeviceConfig {
        &self.config
    }

    /// The limits requests are checked against.
    pub fn limits(&self) -> &Limits {
        self.core.limits()
    }

    /// Creates a session of one direction with `key` (16, 24 or 32
    /// bytes) on data queue 0 (§5.9.7.2.1.4).
    pub fn create_session(
        &mut self,
        algo: Algorithm,
        key: &[u8],
        dir: Direction,
    ) -> Result<SessionId, Error> {
        self.core.create_session(algo, key, dir)
    }

    /// Destroys a session this driver created (§5.9.7.2.1.5).
    pub fn destroy_session(&mut self, session: SessionId) -> Result<(), Error> {
        self.core.destroy_session(session)
    }

    /// Encrypts `src` into `dst` (same length; whole blocks for CBC) with
    /// an encrypt session, waiting for the device (§5.9.7.6).
    pub fn encrypt(
        &mut self,
        session: SessionId,
        iv: &[u8; IV_LEN],
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), Error> {
        self.core.cipher(session, Direction::Encrypt, iv, src, dst)
    }

    /// Decrypts `src` into `dst` with a decrypt session, waiting for the
    /// device.
    pub fn decrypt(
        &mut self,
        session: SessionId,
        iv: &[u8; IV_LEN],
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), Error> {
        self.core.cipher(session, Direction::Decrypt, iv, src, dst)
    }

    /// Ciphers every job, `results[i]` answering `jobs[i]` (as many of
    /// each): up to [`MAX_BATCH`] requests are handed to the device at
    /// once and waited for together, so one notification and one pass
    /// of the device over its queue serve them all. A job the checks
    /// refuse (as [`Self::encrypt`] would) never reaches the device.
    pub fn cipher_batch(&mut self, jobs: &mut [Job<'_>], results: &mut [Result<(), Error>]) {
        self.core.cipher_batch(jobs, results)
    }

    /// Waits for the device's answers by sleeping until its interrupt
    /// (see [`Sleep`]) instead of polling for them.
    pub fn sleep_on_interrupt(&mut self, sleep: Sleep) {
        self.core.exchange.sleep = Some(sleep);
    }

    /// Acknowledges an interrupt (for the interrupt-driven variants).
    pub fn ack_interrupt(&mut self) -> InterruptStatus {
        self.core.exchange.transport.ack_interrupt()
    }
}

impl<H: Hal, T: Transport> Drop for VirtIOCrypto<H, T> {
    fn drop(&mut self) {
        let q = &mut self.core.exchange;
        q.transport.queue_unset(DATA_QUEUE);
        q.transport.queue_unset(q.control_index);
    }
}

impl<H: Hal, T: Transport> Exchange for Queues<H, T> {
    fn control<'a>(
        &mut self,
        inputs: &'a [&'a [u8]],
        outputs: &'a mut [&'a mut [u8]],
    ) -> Result<u32, Error> {
        let index = self.control_index;
        transact(
            &mut self.control,
            index,
            &mut self.transport,
            &mut self.broken,
            self.sleep,
            inputs,
            outputs,
        )
    }

    fn data<'a>(
        &mut self,
        inputs: &'a [&'a [u8]],
        outputs: &'a mut [&'a mut [u8]],
    ) -> Result<u32, Error> {
        transact(
            &mut self.data,
            DATA_QUEUE,
            &mut self.transport,
            &mut self.broken,
            self.sleep,
            inputs,
            outputs,
        )
    }

    fn data_batch(&mut self, reqs: &mut [DataReq<'_>]) {
        transact_many(
            &mut self.data,
            DATA_QUEUE,
            &mut self.transport,
            &mut self.broken,
            self.sleep,
            reqs,
        );
    }
}

/// Adds one request, notifies, polls until the device uses it, pops it;
/// returns the used length (unchecked: the protocol layer checks it).
///
/// Unlike `add_notify_wait_pop` this does not spin forever on a device
/// that gave up: QEMU answers a malformed request with DEVICE_NEEDS_RESET
/// and never uses the buffers, so the poll also watches the status, and
/// then resets the device (virtio 1.2 §2.1.2: after a reset the device
/// no longer uses the buffers) before returning. Any failure to pop the
/// request does the same, and leaves the driver [`Error::Broken`].
fn transact<'a, H: Hal, T: Transport, const N: usize>(
    queue: &mut VirtQueue<H, N>,
    index: u16,
    transport: &mut T,
    broken: &mut bool,
    sleep: Option<Sleep>,
    inputs: &'a [&'a [u8]],
    outputs: &'a mut [&'a mut [u8]],
) -> Result<u32, Error> {
    if *broken {
        return Err(Error::Broken);
    }
    // Safety: the buffers are borrowed for this whole call, and the call
    // returns only after `pop_used` gave them back or the device was
    // reset, so the device never accesses them after the borrow ends.
    let token = unsafe { queue.add(inputs, outputs) }?;
    if queue.should_notify() {
        transport.notify(index);
    }
    let mut wait = Wait::new(sleep);
    while !queue.can_pop() {
        if wait.gave_up(queue, transport) {
            return Err(reset(transport, broken, Error::DeviceNeedsReset));
        }
    }
    // Safety: the same buffers as given to `add` above, still borrowed.
    match unsafe { queue.pop_used(token, inputs, outputs) } {
        Ok(used) => Ok(used),
        Err(e) => Err(reset(transport, broken, e.into())),
    }
}

/// [`transact`] for several requests: adds them all, notifies once and
/// polls until the device used every one, popping each as it comes (in
/// whatever order the device uses them), so the device's latency is paid
/// once per batch. Any failure to add, a device needing a reset or a
/// used element that is none of ours resets the device: every request
/// not yet popped then answers the error and the device no longer
/// touches its buffers.
fn transact_many<H: Hal, T: Transport, const N: usize>(
    queue: &mut VirtQueue<H, N>,
    index: u16,
    transport: &mut T,
    broken: &mut bool,
    sleep: Option<Sleep>,
    reqs: &mut [DataReq<'_>],
) {
    let mut tokens = [None; MAX_BATCH];
    let mut out = 0;
    // Why the requests still out fail, once the device was reset.
    let mut why = Error::Broken;
    for (r, token) in reqs.iter_mut().zip(&mut tokens) {
        r.used = Err(Error::Broken);
        if *broken {
            continue;
        }
        // Safety: every request's buffers are borrowed for this whole
        // call, and it returns only after `pop_used` gave each added one
        // back or the device was reset, so the device never accesses them
        // after the borrow ends.
        match unsafe { queue.add(&r.inputs, &mut r.outputs) } {
            Ok(t) => {
                *token = Some(t);
                out += 1;
            }
            Err(e) => {
                why = reset(transport, broken, e.into());
                r.used = Err(why);
            }
        }
    }
    if out > 0 && queue.should_notify() {
        transport.notify(index);
    }
    let mut wait = Wait::new(sleep);
    while out > 0 && !*broken {
        let Some(used) = queue.peek_used() else {
            if wait.gave_up(queue, transport) {
                why = reset(transport, broken, Error::DeviceNeedsReset);
                break;
            }
            continue;
        };
        let Some(k) = tokens.iter().position(|t| *t == Some(used)) else {
            why = reset(transport, broken, Error::Broken);
            break;
        };
        tokens[k] = None;
        out -= 1;
        let r = &mut reqs[k];
        let [a, b] = &mut r.outputs;
        let mut outputs: [&mut [u8]; 2] = [a, b];
        // Safety: the same buffers as given to `add` above, still borrowed.
        r.used = match unsafe { queue.pop_used(used, &r.inputs, &mut outputs) } {
            Ok(len) => Ok(len),
            Err(e) => {
                why = reset(transport, broken, e.into());
                Err(why)
            }
        };
    }
    // After a reset the requests still out answer why.
    if *broken {
        for (r, t) in reqs.iter_mut().zip(tokens) {
            if t.is_some() {
                r.used = Err(why);
            }
        }
    }
}

/// Resets the device (writing 0 to the status), marking the driver
/// broken; returns `error` to pass on.
fn reset<T: Transport>(transport: &mut T, broken: &mut bool, error: Error) -> Error {
    transport.set_status(DeviceStatus::empty());
    *broken = true;
    error
}
