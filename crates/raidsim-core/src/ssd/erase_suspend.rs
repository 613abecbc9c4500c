//! Erase suspension on a unit's calendar (the model and its parameters:
//! [`crate::config::EraseSuspendConfig`]).
//!
//! A collection books its copies and then its erases on the plane's unit
//! (`gc.rs`), so its erases end the unit's booking. The unit remembers that
//! erase phase while nothing is booked after it. An operation next in line
//! that the erases would delay is served inside them:
//!
//! - ready when an erase would begin (or resume), it goes first, at no cost:
//!   nothing began;
//! - ready while an erase runs with at least the threshold left, it suspends
//!   it: it starts after the suspend latency;
//! - ready while an erase runs with less left, it waits for that erase, and
//!   the ones after it wait for the operation.
//!
//! The erases left then resume after the operation, so the unit's booking
//! grows by the time the operation and its suspension took. Booked
//! intervals are only added to, never moved: a calendar's earlier answers
//! stay true.

use super::*;

/// The erases that end a unit's booking, ns.
#[derive(Clone, Copy, Debug)]
pub(super) struct ErasePhase {
    start_ns: Ns,
    /// What is left, at `start_ns`, of the erase that runs first (a whole
    /// one, unless it was suspended).
    first_ns: Ns,
    /// One erase: its command and the erase itself.
    per_erase_ns: Ns,
    end_ns: Ns,
}

impl ErasePhase {
    /// When the erase running at `at` ends, if `at` falls inside one rather
    /// than where one would begin.
    fn running_until(&self, at: Ns) -> Option<Ns> {
        let first_end = self.start_ns + self.first_ns;
        let end = if at < first_end { first_end } else { first_end + ((at - first_end) / self.per_erase_ns + 1) * self.per_erase_ns };
        let at_a_boundary = at == self.start_ns || (at >= first_end && (at - first_end) % self.per_erase_ns == 0);
        (!at_a_boundary).then_some(end)
    }
}

impl Ssd {
    /// A collection's erases, `erases_ns` long, end the unit's booking at
    /// `end_ns`: remembered for the operations that may suspend them.
    pub(super) fn note_erases(&mut self, unit: usize, end_ns: Ns, erases_ns: Ns) {
        if erases_ns == 0 || self.erase_suspend.min_remaining_ns(true).or(self.erase_suspend.min_remaining_ns(false)).is_none() {
            return;
        }
        let per_erase_ns = self.timing.t_command_ns + self.timing.t_erase_ns;
        self.erasing[unit] = Some(ErasePhase { start_ns: end_ns - erases_ns, first_ns: per_erase_ns, per_erase_ns, end_ns });
    }

    /// Books `w` inside the erases that would delay it, when `op` may
    /// suspend them; the start of its transfer, or `None` to book it as
    /// usual, at `usual_start` on its unit.
    pub(super) fn book_through_erases(&mut self, r: Route, ready_ns: Ns, usual_start: Ns, w: PageWork, op: Op) -> Option<Ns> {
        let min_remaining = self.erase_suspend.min_remaining_ns(op == Op::Write)?;
        let phase = self.erasing[r.unit]?;
        // Only the erases last on the unit, and only an operation they hold up.
        if phase.end_ns != self.units[r.unit].last_end() || ready_ns >= phase.end_ns || usual_start < phase.end_ns {
            return None;
        }
        let at = ready_ns.max(phase.start_ns);
        // Where the operation starts, whether it suspends a running erase, and what is left of the erase it stops.
        let (from, suspends, first_left) = match phase.running_until(at) {
            Some(end) if end - at >= min_remaining => (at, true, end - at),
            Some(end) if end < phase.end_ns => (end, false, phase.per_erase_ns),
            Some(_) => return None,
            None if at == phase.start_ns => (at, false, phase.first_ns),
            None => (at, false, phase.per_erase_ns),
        };
        let suspend_ns = if suspends { self.erase_suspend.latency_ns } else { 0 };
        let left = phase.end_ns - from;
        let command = self.channels[r.channel].earliest(from + suspend_ns, w.command);
        self.channels[r.channel].book_at(command, command + w.command);
        let x = self.channels[r.channel].earliest(command + w.before, w.transfer);
        let done = x + w.transfer + w.after;
        self.channels[r.channel].book_at(x, x + w.transfer);
        self.units[r.unit].book_at(phase.end_ns, phase.end_ns + (done - from));
        self.erasing[r.unit] = Some(ErasePhase { start_ns: done, first_ns: first_left, per_erase_ns: phase.per_erase_ns, end_ns: done + left });
        self.erase_suspensions += u64::from(suspends);
        self.erase_deferrals += u64::from(!suspends);
        Some(x)
    }

    /// Operations that suspended a running erase, and operations served
    /// before an erase that had not begun or would resume (see the module).
    pub fn erase_suspension_counts(&self) -> (u64, u64) {
        (self.erase_suspensions, self.erase_deferrals)
    }
}

#[cfg(test)]
mod tests {
    use super::ErasePhase;

    #[test]
    fn boundaries_and_running_erases() {
        // A suspended erase with 30 left, then two whole ones of 100: boundaries 1000, 1030, 1130, 1230.
        let p = ErasePhase { start_ns: 1000, first_ns: 30, per_erase_ns: 100, end_ns: 1230 };
        assert_eq!(p.running_until(1000), None);
        assert_eq!(p.running_until(1001), Some(1030));
        assert_eq!(p.running_until(1030), None);
        assert_eq!(p.running_until(1031), Some(1130));
        assert_eq!(p.running_until(1129), Some(1130));
        assert_eq!(p.running_until(1130), None);
        assert_eq!(p.running_until(1229), Some(1230));
    }
}
