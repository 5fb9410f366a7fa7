//! Stop, for actions already running on this page. The user's Stop reaches the page as one call
//! ([`cancel_all`]); every wait of an action (for its element, a `wait_for` condition, the
//! review's look-up) checks [`Started::is_cancelled`] before its next attempt, so an action
//! delivered before Stop ends there and never clicks the element that appears later.

use std::cell::Cell;

thread_local! {
    /// Bumped by every Stop; an action remembers the value it started under.
    static GENERATION: Cell<u64> = const { Cell::new(0) };
}

/// Ends every action running on this page at its next check.
pub fn cancel_all() {
    GENERATION.with(|generation| generation.set(generation.get().wrapping_add(1)));
}

/// The moment an action started, as far as Stop is concerned.
#[derive(Debug, Clone, Copy)]
pub struct Started(u64);

impl Started {
    /// Marks the start of an action.
    pub fn now() -> Self {
        Self(GENERATION.with(Cell::get))
    }

    /// Whether Stop was pressed since.
    pub fn is_cancelled(self) -> bool {
        GENERATION.with(Cell::get) != self.0
    }
}
