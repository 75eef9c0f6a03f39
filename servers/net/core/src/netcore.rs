//! `NetCore`: the stack over one network device, polled with the time the
//! server passes in.

use smoltcp::iface::{Config as IfaceConfig, Interface};
use smoltcp::phy::Device;
use smoltcp::time::{Duration, Instant};
use smoltcp::wire::{HardwareAddress, IpCidr};

use crate::client::Badge;
use crate::config::Config;
use crate::counted::Counted;
use crate::service::NetService;
use crate::stack::Stack;
use crate::syn_guard::Guarded;

/// The network stack over device `D`.
pub struct NetCore<D: Device> {
    device: Counted<D>,
    stack: Stack,
}

impl<D: Device> NetCore<D> {
    /// A stack on `device` at `config`'s address.
    ///
    /// # Panics
    ///
    /// If the device's medium is not Ethernet (smoltcp checks it; a
    /// server wiring bug, never a client's doing).
    pub fn new(config: Config, mut device: D, now: Instant) -> NetCore<D> {
        let mut ic = IfaceConfig::new(HardwareAddress::Ethernet(config.mac));
        ic.random_seed = config.random_seed;
        let mut iface = Interface::new(ic, &mut device, now);
        iface.update_ip_addrs(|addrs| {
            // The list is empty, so there is room for one address.
            let _ = addrs.push(IpCidr::Ipv4(config.ip));
        });
        if let Some(gw) = config.gateway {
            // Fails only if the route table is full; it is empty.
            let _ = iface.routes_mut().add_default_ipv4_route(gw);
        }
        NetCore {
            device: Counted::new(device),
            stack: Stack::new(iface, config, now),
        }
    }

    /// Moves packets between the device and the sockets at time `now`;
    /// true if some socket's state may have changed (the server then
    /// retries the requests it parked).
    pub fn poll(&mut self, now: Instant) -> bool {
        let stack = &mut self.stack;
        let mut device = Guarded {
            device: &mut self.device,
            held: &mut stack.held,
        };
        let result = stack.iface.poll(now, &mut device, &mut stack.sockets.set);
        stack.traffic = self.device.traffic();
        stack.after_poll(now);
        result == smoltcp::iface::PollResult::SocketStateChanged
    }

    /// How long the server may sleep before it must poll again (`None`:
    /// until the device or a client wakes it).
    pub fn poll_delay(&mut self, now: Instant) -> Option<Duration> {
        let stack = &mut self.stack;
        stack.iface.poll_delay(now, &stack.sockets.set)
    }

    /// The socket operations for client `badge`'s request.
    pub fn service(&mut self, badge: Badge) -> NetService<'_> {
        NetService::new(&mut self.stack, badge)
    }

    /// The stack, for what the server asks between requests.
    pub fn stack(&mut self) -> &mut Stack {
        &mut self.stack
    }

    /// The device (the server drains its interrupts through it).
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.device.inner
    }
}
