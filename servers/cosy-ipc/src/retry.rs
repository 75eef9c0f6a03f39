//! The bound on a reconnect that finds its server gone.
//!
//! After a server restarts, a client's first call still names the old
//! instance and fails with `DeadPeer` (the kernel refreshes the
//! capability then), and a server that dies again meanwhile fails the
//! same way. So a reconnect is tried again on `DeadPeer`, but only
//! [`RECONNECT_TRIES`] more times: a server that keeps dying is reported
//! to the caller, which decides when to come back, rather than chased in
//! a loop. Kept apart from the client (whose calls are system calls) so
//! the bound is tested on the host.

/// Further tries of a reconnect that found the server gone (`DeadPeer`:
/// a capability still naming the old instance, or a server that died
/// again meanwhile). Bounded: a server that keeps dying is reported, not
/// chased.
pub const RECONNECT_TRIES: usize = 3;

/// Runs `attempt`, and again while it fails with `gone`, at most
/// [`RECONNECT_TRIES`] more times; its last result.
pub fn retry_while_gone<E: PartialEq>(
    gone: &E,
    mut attempt: impl FnMut() -> Result<(), E>,
) -> Result<(), E> {
    let mut result = attempt();
    for _ in 0..RECONNECT_TRIES {
        match &result {
            Err(e) if e == gone => result = attempt(),
            _ => break,
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stands for the client's failures: `DeadPeer`, and any other.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum SysError {
        DeadPeer,
        InvalidArgument,
    }

    const GONE: Result<(), SysError> = Err(SysError::DeadPeer);

    /// Runs [`retry_while_gone`] over `answers` in turn: how many tries it
    /// made and what it returned.
    fn tries(answers: &[Result<(), SysError>]) -> (usize, Result<(), SysError>) {
        let mut n = 0;
        let result = retry_while_gone(&SysError::DeadPeer, || {
            n += 1;
            answers[n - 1]
        });
        (n, result)
    }

    #[test]
    fn a_server_gone_at_every_try_is_tried_once_and_three_more_times_then_reported() {
        assert_eq!(RECONNECT_TRIES, 3, "docs/LIMITS.md states 3");
        assert_eq!(tries(&[GONE; 8]), (1 + RECONNECT_TRIES, GONE));
    }

    #[test]
    fn the_last_allowed_try_may_succeed() {
        let mut answers = [GONE; 1 + RECONNECT_TRIES];
        answers[RECONNECT_TRIES] = Ok(());
        assert_eq!(tries(&answers), (1 + RECONNECT_TRIES, Ok(())));
    }

    #[test]
    fn a_first_success_or_another_error_is_not_tried_again() {
        assert_eq!(tries(&[Ok(())]), (1, Ok(())));
        let refused = Err(SysError::InvalidArgument);
        assert_eq!(tries(&[refused, Ok(())]), (1, refused));
    }
}
