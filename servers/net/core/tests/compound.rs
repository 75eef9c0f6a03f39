//! The socket service under a compound: accept, recv, send back and close
//! as one run, the way a server answers a request in one IPC.

mod common;

use common::{addr, call, call_in, Net, A, IP_A};
use conflux_socket_protocol::ops::*;
use conflux_socket_protocol::NetError;
use cosy_abi::{Builder, Insn, OpResult, Program, Registers, Target};

#[test]
fn accept_recv_send_close_in_one_compound() {
    let mut net = Net::new();
    let l = call(&mut net.a, 1, SOCKET, &[1]).unwrap();
    call(&mut net.a, 1, BIND, &[l, addr([0; 4], 7)]).unwrap();
    call(&mut net.a, 1, LISTEN, &[l, 1]).unwrap();
    let c = call(&mut net.b, 2, SOCKET, &[1]).unwrap();
    let _ = call(&mut net.b, 2, CONNECT, &[c, addr(IP_A, 7)]);
    net.pump(1500);
    assert_eq!(call(&mut net.b, 2, CONNECT, &[c, addr(IP_A, 7)]), Ok(0));
    let mut msg = b"hello compound".to_vec();
    call_in(
        &mut net.b,
        2,
        SEND,
        &[A::V(c), A::B(0, msg.len()), A::V(msg.len() as u64)],
        &mut msg,
    )
    .unwrap();
    net.pump(5);

    let mut b = Builder::new();
    b.fail_fast(true);
    let (s, n) = (b.reg(), b.reg());
    let buf = b.buf(0, 0, 256);
    b.call(s, ACCEPT, (l,));
    b.call(n, RECV, (s, buf, 256u64));
    b.call_void(SEND, (s, buf, n));
    b.call_void(CLOSE, (s,));
    b.exit(n);
    let compound = b.build().unwrap();

    let mut region = vec![0u8; 256];
    let lens = [region.len()];
    let target = Target {
        ops: TABLE,
        regions: &lens,
        max_steps: 1000,
    };
    let program = Program::verify(&compound, &target, vec![Insn::EMPTY; 16]).expect("verifies");
    let mut results = vec![OpResult::EMPTY; 16];
    let mut svc = net.a.service(1);
    let report = program.run(
        &mut svc,
        &mut [&mut region[..]],
        &mut Registers::new(),
        &mut results,
    );
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.exit_value, 14);
    net.pump(10);
    let mut back = vec![0u8; 64];
    let got = call_in(
        &mut net.b,
        2,
        RECV,
        &[A::V(c), A::B(0, 64), A::V(64)],
        &mut back,
    )
    .unwrap();
    assert_eq!(&back[..got as usize], b"hello compound");
    let eof = call_in(
        &mut net.b,
        2,
        RECV,
        &[A::V(c), A::B(0, 64), A::V(64)],
        &mut back,
    );
    assert_eq!(eof, Ok(0), "the compound closed the connection");
    // The accepted handle was closed inside the compound.
    assert_eq!(net.a.stack().client_sockets(1), 1);
    let _ = NetError::BadSocket;
}
