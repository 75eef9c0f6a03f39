//! How long httpd's ring mode polls for an answer before it sleeps on
//! it, adaptive like FlexSC's syscall threads but bounded by where the
//! network server runs. On another CPU it posts an answer while httpd
//! polls, usually within a few hundred looks, and sleeping (an IPC and a
//! wake-up across CPUs, milliseconds on a loaded TCG host) costs far
//! more: the budget doubles past the looks an answer took and halves
//! when httpd had to sleep anyway, between a floor and a ceiling
//! ([`Spin::apart`]). On httpd's own CPU no answer can come while httpd
//! polls, so it never does ([`Spin::shared`]).

/// The most looks before sleeping, with the server on another CPU.
pub const MAX: u32 = 2048;
/// The fewest, there.
pub const FLOOR: u32 = 256;

/// The polling budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spin {
    budget: u32,
    floor: u32,
    max: u32,
}

impl Spin {
    /// The network server runs on another CPU.
    pub fn apart() -> Spin {
        Spin {
            budget: MAX / 2,
            floor: FLOOR,
            max: MAX,
        }
    }

    /// The network server shares httpd's CPU: never poll.
    pub fn shared() -> Spin {
        Spin {
            budget: 0,
            floor: 0,
            max: 0,
        }
    }

    /// How many looks the next wait may take before sleeping.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// The answer came after `looks` looks, while polling: room for the
    /// next one to take twice as long.
    pub fn answered(&mut self, looks: u32) {
        self.budget = looks
            .saturating_mul(2)
            .max(self.budget)
            .clamp(self.floor, self.max);
    }

    /// No answer within the budget: httpd slept on it.
    pub fn slept(&mut self) {
        self.budget = (self.budget / 2).max(self.floor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a_shared_cpu_it_never_polls() {
        let mut s = Spin::shared();
        assert_eq!(s.budget(), 0);
        s.answered(500);
        assert_eq!(s.budget(), 0);
        s.slept();
        assert_eq!(s.budget(), 0);
    }

    #[test]
    fn sleeping_each_time_stops_at_the_floor() {
        let mut s = Spin::apart();
        for _ in 0..16 {
            s.slept();
        }
        assert_eq!(s.budget(), FLOOR);
    }

    #[test]
    fn a_slow_answer_doubles_the_room_up_to_max() {
        let mut s = Spin::apart();
        for _ in 0..16 {
            s.slept();
        }
        s.answered(300);
        assert_eq!(s.budget(), 600);
        s.answered(3);
        assert_eq!(s.budget(), 600, "a quick answer keeps the room");
        s.answered(u32::MAX);
        assert_eq!(s.budget(), MAX);
    }

    #[test]
    fn halving_goes_from_max_to_the_floor() {
        let mut s = Spin::apart();
        s.answered(MAX);
        let mut seen = [0u32; 5];
        for b in &mut seen {
            s.slept();
            *b = s.budget();
        }
        assert_eq!(seen, [1024, 512, 256, 256, 256]);
    }
}
