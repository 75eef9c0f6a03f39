//! Two threads, one ring, real hardware ordering: a million descriptors
//! arrive in order, none lost or duplicated, with the consumer sleeping
//! through the signal-me protocol whenever the ring runs dry.
#![cfg(not(loom))]

use conflux_queue::{DataRegion, Descriptor, Header, PushError, Ring, Slot};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

const COUNT: u32 = 1_000_000;
const CAP: u32 = 64;
const DATA: DataRegion = DataRegion::new(1 << 20);

/// A kernel notification: a sticky pending bit and a sleeper.
#[derive(Default)]
struct Notification {
    pending: Mutex<bool>,
    cv: Condvar,
}

impl Notification {
    fn notify(&self) {
        *self.pending.lock().unwrap() = true;
        self.cv.notify_one();
    }

    /// Waits for a notify; `false` if none came in time (a lost wake-up).
    fn wait(&self) -> bool {
        let guard = self.pending.lock().unwrap();
        let (mut guard, timeout) = self
            .cv
            .wait_timeout_while(guard, Duration::from_secs(10), |p| !*p)
            .unwrap();
        *guard = false;
        !timeout.timed_out()
    }
}

fn descriptor(i: u32) -> Descriptor {
    Descriptor {
        offset: u64::from(i % (1 << 19)),
        len: i % 4096,
        id: i,
    }
}

#[test]
fn a_million_in_order_with_sleeps() {
    let header = Header::new(CAP);
    let slots: Vec<Slot> = (0..CAP).map(|_| Slot::new()).collect();
    let (mut p, mut c) = Ring::from_parts(&header, &slots).unwrap().split(DATA);
    let note = Notification::default();
    let (signals, sleeps) = std::thread::scope(|s| {
        let producer = s.spawn(|| {
            let mut signals = 0u32;
            for i in 0..COUNT {
                loop {
                    match p.push(descriptor(i)) {
                        Ok(()) => break,
                        Err(PushError::Full) => std::thread::yield_now(),
                        Err(e) => panic!("{e:?}"),
                    }
                }
                if p.needs_signal() {
                    signals += 1;
                    note.notify();
                }
            }
            signals
        });
        let (mut requests, mut sleeps) = (0u32, 0u32);
        let mut next = 0u32;
        while next < COUNT {
            match c.pop().unwrap() {
                Some(v) => {
                    assert_eq!(v.get(), descriptor(next), "out of order or torn");
                    next += 1;
                }
                None => {
                    requests += 1;
                    if c.prepare_to_wait().unwrap() {
                        sleeps += 1;
                        assert!(note.wait(), "lost wake-up at {next}");
                    }
                }
            }
        }
        assert_eq!(c.pop(), Ok(None), "duplicated");
        (producer.join().unwrap(), (requests, sleeps))
    });
    let (requests, sleeps) = sleeps;
    // Every sleep was ended by a signal, and signals were only sent on
    // request: at most one per request (a request withdrawn because work
    // arrived may still have been taken, which costs one early wake-up).
    assert!(signals >= sleeps, "{signals} signals for {sleeps} sleeps");
    assert!(
        signals <= requests,
        "{signals} signals, {requests} requests"
    );
    println!("{COUNT} descriptors: {requests} requests, {sleeps} sleeps, {signals} signals");
}
