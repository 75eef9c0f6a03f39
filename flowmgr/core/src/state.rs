//! A flow's state machine.
//!
//! ```text
//!            pause              fault                 recovered
//! Running ─────────▶ Paused   Running|Paused ──▶ Recovering ──▶ (the state before)
//!         ◀─────────          (pause/resume while Recovering change the state it returns to)
//!            resume
//! Running|Paused|Recovering ── finished ──▶ Done
//! any ── terminate ──▶ Terminated
//! ```
//!
//! `Done` and `Terminated` are final (only `terminate` moves `Done` on);
//! pausing or resuming a finished flow is refused.

use conflux_flow_protocol::api::FlowState;

/// What happened to a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Pause,
    Resume,
    /// A stage failed; the ladder is acting.
    Fault,
    /// Every stage answers again.
    Recovered,
    /// The source is exhausted and every buffer reached the sink.
    Finished,
    /// The ladder ran out of steps, or the flow could not be rewired.
    Terminate,
}

/// The event does not apply to a finished flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished(pub FlowState);

/// A flow's state, and where a recovering flow returns to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Life {
    state: FlowState,
    /// `Running` or `Paused`: the state `Recovered` returns to.
    settled: FlowState,
}

impl Default for Life {
    fn default() -> Self {
        Self {
            state: FlowState::Running,
            settled: FlowState::Running,
        }
    }
}

impl Life {
    pub fn state(&self) -> FlowState {
        self.state
    }

    /// Whether the stages should be paused (asked by pause, kept across
    /// recovery).
    pub fn paused(&self) -> bool {
        self.settled == FlowState::Paused
    }

    fn finished(&self) -> bool {
        matches!(self.state, FlowState::Done | FlowState::Terminated)
    }

    /// Applies `e`; returns whether the state changed.
    pub fn apply(&mut self, e: Event) -> Result<bool, Finished> {
        use FlowState::*;
        let before = self.state;
        match e {
            Event::Terminate => self.state = Terminated,
            _ if self.finished() => {
                return match e {
                    // A late report about a finished flow changes nothing.
                    Event::Fault | Event::Recovered | Event::Finished => Ok(false),
                    _ => Err(Finished(self.state)),
                };
            }
            Event::Pause | Event::Resume => {
                self.settled = if e == Event::Pause { Paused } else { Running };
                if self.state != Recovering {
                    self.state = self.settled;
                }
            }
            Event::Fault => self.state = Recovering,
            Event::Recovered => self.state = self.settled,
            Event::Finished => self.state = Done,
        }
        Ok(self.state != before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use FlowState::*;

    fn run(events: &[Event]) -> Life {
        let mut l = Life::default();
        for &e in events {
            let _ = l.apply(e);
        }
        l
    }

    #[test]
    fn pause_resume_and_recovery_return_where_they_should() {
        use Event::*;
        assert_eq!(run(&[Pause]).state(), Paused);
        assert_eq!(run(&[Pause, Resume]).state(), Running);
        assert_eq!(run(&[Pause, Fault]).state(), Recovering);
        assert_eq!(run(&[Pause, Fault, Recovered]).state(), Paused);
        assert_eq!(run(&[Fault, Pause, Recovered]).state(), Paused);
        assert_eq!(run(&[Pause, Fault, Resume, Recovered]).state(), Running);
        assert_eq!(run(&[Fault, Finished]).state(), Done);
        assert_eq!(run(&[Finished, Terminate]).state(), Terminated);
    }

    #[test]
    fn finished_flows_refuse_pause_and_resume() {
        let mut l = run(&[Event::Finished]);
        assert_eq!(l.apply(Event::Pause), Err(Finished(Done)));
        assert_eq!(l.apply(Event::Resume), Err(Finished(Done)));
        assert_eq!(l.apply(Event::Fault), Ok(false));
        let mut l = run(&[Event::Terminate]);
        assert_eq!(l.apply(Event::Resume), Err(Finished(Terminated)));
        assert_eq!(l.apply(Event::Finished), Ok(false));
    }

    fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            Just(Event::Pause),
            Just(Event::Resume),
            Just(Event::Fault),
            Just(Event::Recovered),
            Just(Event::Finished),
            Just(Event::Terminate),
        ]
    }

    proptest! {
        /// Terminated is final; Done only leaves for Terminated; Paused is
        /// reached only after a pause; Recovering only after a fault.
        #[test]
        fn the_machine_keeps_its_promises(events in proptest::collection::vec(event(), 0..40)) {
            let mut l = Life::default();
            let mut paused_asked = false;
            for e in events {
                let before = l.state();
                let _ = l.apply(e);
                let after = l.state();
                match e { Event::Pause => paused_asked = true, Event::Resume => {}, _ => {} }
                if before == Terminated { prop_assert_eq!(after, Terminated); }
                if before == Done { prop_assert!(after == Done || after == Terminated); }
                if after == Paused { prop_assert!(paused_asked); }
                if after == Recovering && before != Recovering { prop_assert_eq!(e, Event::Fault); }
                if after == Done && before != Done { prop_assert_eq!(e, Event::Finished); }
            }
        }
    }
}
