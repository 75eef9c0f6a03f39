//! When a ring server stops polling and sleeps: FlexSC's syscall threads
//! spin on their pages while work arrives and sleep when it stops. A
//! [`Poller`] counts consecutive empty polls; past its spin limit it says
//! sleep. The caller then asks for a notification (the rings' signal-me
//! flags) and looks once more before it blocks.

/// What to do after a poll that found nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idle {
    /// Poll again (work is likely to arrive soon).
    Spin,
    /// Set the signal-me flags and sleep on the notification.
    Sleep,
}

/// The adaptive policy; see the module docs.
#[derive(Clone, Copy, Debug)]
pub struct Poller {
    empty: u32,
    spin: u32,
}

impl Poller {
    /// Sleeps after `spin` consecutive empty polls (0: at once, the
    /// right choice when server and client share a CPU).
    pub const fn new(spin: u32) -> Self {
        Self { empty: 0, spin }
    }

    /// A poll found work: the next empty run starts from zero.
    pub fn worked(&mut self) {
        self.empty = 0;
    }

    /// A poll found nothing.
    pub fn idle(&mut self) -> Idle {
        if self.empty < self.spin {
            self.empty += 1;
            Idle::Spin
        } else {
            self.empty = 0;
            Idle::Sleep
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spins_its_limit_then_sleeps_and_work_resets_it() {
        let mut p = Poller::new(2);
        assert_eq!(
            [p.idle(), p.idle(), p.idle()],
            [Idle::Spin, Idle::Spin, Idle::Sleep]
        );
        assert_eq!(p.idle(), Idle::Spin);
        p.worked();
        assert_eq!(
            [p.idle(), p.idle(), p.idle()],
            [Idle::Spin, Idle::Spin, Idle::Sleep]
        );
        assert_eq!(Poller::new(0).idle(), Idle::Sleep);
    }
}
