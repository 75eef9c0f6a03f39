//! Model checks of the ring's memory ordering with loom: every
//! interleaving, and every value a weakly ordered load may return.
//!
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p conflux-queue --release --test loom`
#![cfg(loom)]

use conflux_queue::{Consumer, DataRegion, Descriptor, Header, Producer, PushError, Ring, Slot};
use loom::sync::atomic::{AtomicBool, Ordering::Relaxed};
use loom::sync::Arc;
use loom::thread;

const DATA: DataRegion = DataRegion::new(64);

/// A fresh ring for one execution. Leaked: loom threads need `'static`,
/// and each is a few hundred bytes.
fn ring(capacity: u32) -> (Producer<'static>, Consumer<'static>) {
    let header = Box::leak(Box::new(Header::new(capacity)));
    let slots: &'static [Slot] = Vec::from_iter((0..capacity).map(|_| Slot::new())).leak();
    Ring::from_parts(header, slots).unwrap().split(DATA)
}

fn descriptor(i: u32) -> Descriptor {
    Descriptor {
        offset: u64::from(i),
        len: i + 1,
        id: 100 + i,
    }
}

/// Descriptors published through a 2-slot ring (so slots are reused)
/// arrive whole and in order: the consumer never sees a slot before its
/// contents, and the producer never overwrites a slot still being read.
#[test]
fn publish_and_consume() {
    loom::model(|| {
        let (mut p, mut c) = ring(2);
        const N: u32 = 3;
        let producer = thread::spawn(move || {
            for i in 0..N {
                while p.push(descriptor(i)) == Err(PushError::Full) {
                    thread::yield_now();
                }
            }
        });
        let mut next = 0;
        while next < N {
            match c.pop().unwrap() {
                Some(v) => {
                    assert_eq!(v.get(), descriptor(next));
                    next += 1;
                }
                None => thread::yield_now(),
            }
        }
        producer.join().unwrap();
        assert_eq!(c.pop(), Ok(None));
    });
}

/// The signal-me protocol loses no wake-up: whenever the consumer decides
/// to sleep on an empty ring, the producer's publish asks for a signal.
#[test]
fn signal_me_loses_no_wakeup() {
    loom::model(|| {
        let (mut p, mut c) = ring(2);
        let signalled = Arc::new(AtomicBool::new(false));
        let s = signalled.clone();
        let producer = thread::spawn(move || {
            p.push(descriptor(0)).unwrap();
            if p.needs_signal() {
                s.store(true, Relaxed);
            }
        });
        let got = c.pop().unwrap().is_some();
        let sleeps = !got && c.prepare_to_wait().unwrap();
        producer.join().unwrap();
        if sleeps {
            assert!(signalled.load(Relaxed), "consumer sleeps, never signalled");
        } else if !got {
            // It saw the item on its second look and must find it now.
            assert!(c.pop().unwrap().is_some());
        }
    });
}

/// A signal is sent only on request: a consumer that never asked gets
/// none, whatever the interleaving (the busy path makes no syscalls).
#[test]
fn no_signal_without_request() {
    loom::model(|| {
        let (mut p, mut c) = ring(2);
        let producer = thread::spawn(move || {
            p.push(descriptor(0)).unwrap();
            p.needs_signal()
        });
        let _ = c.pop().unwrap();
        assert!(!producer.join().unwrap());
    });
}
