//! How many of the flow slots one application may hold.
//!
//! The slots are few (the manifest's `[flows]` slots, at most eight) and
//! shared by every application, so without a limit one application could
//! hold them all and every other would get `NoSlot`. Each client the
//! manifest names (`FLOWMGR_CLIENTS`) keeps one slot for itself: a client
//! may hold at most the slots less one for each other client, and less
//! still if its capability's `quota` says so (`FLOWMGR_CLIENT_QUOTAS`).
//! A badge the manifest does not list (minted at run time) may hold only
//! what no listed client is owed. Past its limit a client gets
//! `OverQuota` and must destroy one of its flows first.

/// The manifest's clients of the flow manager, by badge, with the `quota`
/// each one's capability gives (`None`: none written).
#[derive(Clone, Copy, Debug)]
pub struct Clients {
    pub badges: &'static [u64],
    pub quotas: &'static [Option<u32>],
}

impl Clients {
    /// No clients named: any application may hold every slot (host tests
    /// and systems built before quotas).
    pub const NONE: Clients = Clients {
        badges: &[],
        quotas: &[],
    };

    /// The most flows `owner` may hold of `slots` slots.
    pub fn limit(&self, owner: u64, slots: usize) -> usize {
        let named = self.badges.len();
        if named == 0 {
            return slots;
        }
        match self.badges.iter().position(|b| *b == owner) {
            Some(i) => {
                let share = slots.saturating_sub(named - 1).max(1);
                let quota = self.quotas.get(i).copied().flatten();
                quota.map_or(share, |q| (q as usize).min(share))
            }
            None => slots.saturating_sub(named),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: Clients = Clients {
        badges: &[1, 2],
        quotas: &[None, Some(2)],
    };

    #[test]
    fn every_named_client_keeps_a_slot_for_itself() {
        assert_eq!(TWO.limit(1, 8), 7, "one slot stays for client 2");
        assert_eq!(TWO.limit(1, 1), 1, "never below one");
    }

    #[test]
    fn a_quota_only_lowers_the_share() {
        assert_eq!(TWO.limit(2, 8), 2);
        assert_eq!(TWO.limit(2, 2), 1, "the share (2 - 1) is lower");
    }

    #[test]
    fn an_unlisted_badge_gets_what_no_named_client_is_owed() {
        assert_eq!(TWO.limit(0x77, 8), 6);
        assert_eq!(TWO.limit(0x77, 2), 0);
    }

    #[test]
    fn with_no_clients_named_there_is_no_limit_but_the_slots() {
        assert_eq!(Clients::NONE.limit(5, 8), 8);
    }
}
