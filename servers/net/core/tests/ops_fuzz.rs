//! Random sequences of socket operations, with random operands, from
//! several clients against two connected stacks: the service must answer
//! each with a value or an error, never panic, and the stack's socket
//! count must return to the pool's when every session ends.

mod common;

use common::{call as setup, Net, IP_A, IP_B};
use conflux_socket_protocol::ops::{ALL, BIND, CONNECT, LISTEN, SOCKET};
use conflux_socket_protocol::SockAddr;
use cosy_abi::{Args, Service};
use proptest::prelude::*;

/// One random call: client, opcode, operands (value or buffer).
#[derive(Clone, Debug)]
struct Call {
    on_b: bool,
    badge: u64,
    op: u16,
    operands: Vec<(bool, u64)>,
    pump: u8,
}

/// Values that hit interesting cases more often than uniform ones would.
fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..6,
        Just(SockAddr::new(IP_A, 7).to_word()),
        Just(SockAddr::new(IP_B, 7).to_word()),
        Just(SockAddr::new([0; 4], 7).to_word()),
        Just(SockAddr::new(IP_A, 0).to_word()),
        0u64..128,
        any::<u64>(),
    ]
}

fn random_call() -> impl Strategy<Value = Call> {
    (
        any::<bool>(),
        0u64..3,
        prop_oneof![prop::sample::select(ALL.to_vec()), any::<u16>()],
        prop::collection::vec((any::<bool>(), value()), 0..6),
        0u8..4,
    )
        .prop_map(|(on_b, badge, op, operands, pump)| Call {
            on_b,
            badge,
            op,
            operands,
            pump,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_operations_never_panic(calls in prop::collection::vec(random_call(), 1..120)) {
        let mut net = Net::with(|c| {
            c.limits.quota = 6;
            c.limits.total = 24;
            c.tcp_buffer = 2048;
        });
        let baseline = net.a.stack().sockets_in_use() + net.b.stack().sockets_in_use();
        // A live listener and connection, so random calls meet sockets in
        // every state and not only fresh ones.
        let l = setup(&mut net.a, 0, SOCKET, &[1]).unwrap();
        setup(&mut net.a, 0, BIND, &[l, SockAddr::new([0; 4], 7).to_word()]).unwrap();
        setup(&mut net.a, 0, LISTEN, &[l, 2]).unwrap();
        let c = setup(&mut net.b, 1, SOCKET, &[1]).unwrap();
        let _ = setup(&mut net.b, 1, CONNECT, &[c, SockAddr::new(IP_A, 7).to_word()]);
        net.pump(1500);
        let mut region = vec![0u8; 256];
        for c in &calls {
            let core = if c.on_b { &mut net.b } else { &mut net.a };
            let mut regions = [&mut region[..]];
            let mut args = Args::new(&mut regions);
            for &(is_buf, v) in &c.operands {
                args = if is_buf {
                    let off = (v % 256) as usize;
                    let len = ((v >> 8) % 64) as usize;
                    args.with_buf(0, off, len.min(256 - off)).expect("inside the region")
                } else {
                    args.with_value(v)
                };
            }
            let _ = core.service(c.badge).call(c.op, &mut args);
            net.pump(usize::from(c.pump));
        }
        for badge in 0..3 {
            net.a.stack().end_session(badge);
            net.b.stack().end_session(badge);
        }
        net.pump_every(1000, 100);
        let after = net.a.stack().sockets_in_use() + net.b.stack().sockets_in_use();
        prop_assert_eq!(after, baseline);
    }
}
