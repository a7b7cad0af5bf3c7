//! The turn that orders the reads of files that must be read in order (a
//! spinning disk's): claims pass it one at a time, in claim order.

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Hands the turn to one claim at a time, in claim order, so that the
/// files read in turn are read in input order by one reader at a time.
/// Every claim gets a [`Ticket`] in order and passes it exactly once
/// (when dropped), whether or not it waited for its turn.
pub(super) struct Turnstile {
    turns: Mutex<Turns>,
    turned: Condvar,
}

#[derive(Default)]
struct Turns {
    /// The ticket whose turn it is.
    next: u64,
    /// Later tickets already passed.
    passed: BTreeSet<u64>,
}

/// Locks a mutex, whether or not a thread panicked while holding it (the
/// data it guards stays consistent across every panic point).
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Turnstile {
    pub(super) fn new() -> Self {
        Turnstile {
            turns: Mutex::new(Turns::default()),
            turned: Condvar::new(),
        }
    }

    /// The ticket numbered `number`; numbers are handed out from 0 up,
    /// each once.
    pub(super) fn ticket(&self, number: u64) -> Ticket<'_> {
        Ticket {
            turnstile: Some(self),
            number,
        }
    }
}

/// A claim's place in the order; see [`Turnstile`].
pub(super) struct Ticket<'t> {
    turnstile: Option<&'t Turnstile>,
    number: u64,
}

impl Ticket<'_> {
    /// A ticket that waits for nobody, for a claim outside the order.
    pub(super) fn unordered() -> Ticket<'static> {
        Ticket {
            turnstile: None,
            number: 0,
        }
    }

    /// Waits until every earlier ticket has passed: the turn is this
    /// claim's until the ticket is dropped. Call it holding no descriptor
    /// that an earlier claim may be waiting for.
    pub(super) fn wait(&self) {
        let Some(t) = self.turnstile else { return };
        let mut turns = lock(&t.turns);
        while turns.next != self.number {
            turns = t.turned.wait(turns).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let Some(t) = self.turnstile else { return };
        let mut turns = lock(&t.turns);
        turns.passed.insert(self.number);
        while let Some(n) = turns.passed.first().copied().filter(|&n| n == turns.next) {
            turns.passed.remove(&n);
            turns.next += 1;
        }
        drop(turns);
        t.turned.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// Tickets take their turns in number order, whichever thread waits
    /// first, and tickets passed without waiting do not hold the others up.
    #[test]
    fn turns_follow_ticket_order() {
        let turnstile = Turnstile::new();
        let order = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for n in (0..16u64).rev() {
                let (turnstile, order) = (&turnstile, &order);
                s.spawn(move || {
                    let ticket = turnstile.ticket(n);
                    if n % 3 == 0 {
                        return; // passed without waiting
                    }
                    std::thread::sleep(std::time::Duration::from_millis(16 - n));
                    ticket.wait();
                    lock(order).push(n);
                });
            }
        });
        let want: Vec<u64> = (0..16).filter(|n| n % 3 != 0).collect();
        assert_eq!(order.into_inner().unwrap(), want);
    }
}
