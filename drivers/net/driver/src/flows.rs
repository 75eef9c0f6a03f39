//! The driver as a flow stage: the `udp` source.
//!
//! Every received frame is classified once (`conflux_net_protocol::steer`):
//! an IPv4/UDP datagram whose destination port a running flow listens on
//! has its payload copied into that flow's next empty buffer (one datagram
//! per buffer, cut to the buffer), and the network server's receive
//! buffer it arrived in goes straight back to the device, unanswered; the
//! server never sees the datagram. A datagram for a flow that is backed
//! up (no empty buffer) or paused is dropped and counted on the flow's
//! edge: a flow never holds up the device. Everything else — ARP, TCP,
//! other ports, anything malformed — goes to the network server as before.

use crate::serve::State;
use alloc::boxed::Box;
use conflux_abi::SysError;
use conflux_flow_protocol::stage::{StageSpec, StageStatus, Start, MAX_FLOWS};
use conflux_flow_stage::driver::FlowSide;
use conflux_flow_stage::{edges_match, Arrived, FlowIo, Role, StageEndpoint, Step, System, Work};
use conflux_net_protocol::steer;

/// A UDP source flow: its port, and datagrams it took.
pub struct Flow {
    port: u16,
    datagrams: u64,
}

/// The ports running flows listen on, by the driver's flow number.
#[derive(Default)]
pub struct Ports {
    ports: [Option<u16>; MAX_FLOWS as usize],
}

impl Work for Ports {
    type Flow = Flow;

    fn start(&mut self, flow: u32, start: &Start, _io: &mut FlowIo) -> Result<Flow, StageStatus> {
        let StageSpec::Udp { port } = start.spec else {
            return Err(StageStatus::Unsupported);
        };
        if !edges_match(start) {
            return Err(StageStatus::BadEdge);
        }
        if self.ports.contains(&Some(port)) {
            return Err(StageStatus::DeviceRefused); // another flow has the port
        }
        self.ports[flow as usize] = Some(port);
        Ok(Flow { port, datagrams: 0 })
    }

    fn stop(&mut self, flow: u32, _f: Flow) {
        self.ports[flow as usize] = None;
    }

    fn info(&self) -> [u64; 2] {
        let udp = 1; // StageSpec::Udp's kind
        [1 << udp, 0]
    }

    /// Datagrams taken, and the port.
    fn figures(&self, f: &Flow) -> [u64; 2] {
        [f.datagrams, u64::from(f.port)]
    }
}

/// The driver's flow side: `flowmgr`'s endpoint, with the device's
/// notification bound to it.
pub struct Stage {
    flows: StageEndpoint<Ports>,
}

impl Stage {
    /// The stage side if this task's configuration makes it a flow stage.
    pub fn from_config() -> Result<Option<Box<Self>>, SysError> {
        conflux_flow_stage::flow_role().map(Self::new).transpose()
    }

    /// Built only for a stage, and boxed: the flow tables are large, and a
    /// driver that is no stage keeps its stack.
    #[inline(never)]
    fn new(role: Role) -> Result<Box<Self>, SysError> {
        let flows = StageEndpoint::new(
            role.flow,
            crate::config::device::IRQ_NOTIFY,
            role.first_free,
            Ports::default(),
        )?;
        Ok(Box::new(Self { flows }))
    }

    /// Gives `frame`'s payload to the flow listening on its UDP port, if
    /// one is; whether a flow took the frame (the payload, or the drop).
    pub fn steer(&mut self, frame: &[u8]) -> bool {
        let Some(d) = steer::udp(frame) else {
            return false;
        };
        let Some(flow) = self
            .flows
            .work
            .ports
            .iter()
            .position(|p| *p == Some(d.dst_port))
        else {
            return false;
        };
        let Some((io, f)) = self.flows.stages.get(flow as u32) else {
            return false;
        };
        let payload = &frame[d.payload()];
        let taken = io.offer(&mut System, |dst| {
            let n = payload.len().min(dst.len());
            dst[..n].copy_from_slice(&payload[..n]);
            n
        });
        f.datagrams += u64::from(taken);
        true
    }

    /// Keeps an empty buffer at hand for every flow (so a datagram finds
    /// one without waiting) and notes what each waits for; whether any
    /// moved (never: only frames move a UDP source).
    pub fn turn(&mut self) -> bool {
        self.flows.stages.run(|_, io, _| {
            let s = io.source(&mut System, |_| Ok(None));
            if s == Step::Progress {
                Step::WaitOther
            } else {
                s
            }
        })
    }

    /// Takes one message or doorbell, waiting for it if `block` and every
    /// flow is idle; the notification bits if the bound notification rang.
    pub fn receive(&mut self, block: bool) -> Option<u64> {
        match self.flows.receive(block)? {
            Arrived::Rang(bits) => Some(bits),
            Arrived::Answered => None,
        }
    }
}

/// The loop's handle on the stage, which lives in the driver's [`State`]
/// (received frames are steered to it there).
pub struct Flows;

impl FlowSide<State> for Flows {
    fn work(&mut self, st: &mut State) -> bool {
        st.flows.as_mut().is_some_and(|f| f.turn())
    }

    fn receive(&mut self, st: &mut State, block: bool) -> Option<u64> {
        st.flows.as_mut().and_then(|f| f.receive(block))
    }

    fn backed_up(&mut self, st: &mut State) -> bool {
        st.flows.as_mut().is_some_and(|f| f.flows.backed_up())
    }

    fn give_way(&mut self, st: &mut State) {
        if let Some(f) = st.flows.as_ref() {
            f.flows.give_way();
        }
    }
}
