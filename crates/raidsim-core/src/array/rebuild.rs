//! Reconstruction of failed members onto hot spares.
//!
//! When a member fails, its rebuild starts `rebuild.delay_ns` later if a
//! spare is free: the spare takes the member's place, and stripe after
//! stripe (in stripe order, wrapping round for a member that failed in the
//! middle of another's rebuild) the controller reads the survivors the
//! code needs, computes the lost units and writes them to the spare
//! ([`super::Planner::plan_rebuild`]; causes `rebuild_read` and
//! `rebuild_write`). A stripe rebuilt onto the spare is served by it at
//! once; the others are served degraded. Each stripe's reconstruction holds
//! the stripe's lock, like any parity update.
//!
//! Scheduling ([`crate::config::RebuildPolicy`]): disk-oriented
//! reconstruction (Holland & Gibson; the CR5M paper's baseline, §3.2) keeps
//! up to `buffer_stripes` stripes in reconstruction, so every survivor
//! reads ahead while the spare writes, each device serving its queue in
//! order; stripe-oriented reconstruction does one stripe at a time.
//! Holland's DOR has one reader process per survivor issuing one read at a
//! time; here a survivor receives the reads of every stripe in the buffer
//! at once and its own queue orders them, which is the same on a disk and
//! lets an SSD overlap them on its channels. A rate limit paces stripe
//! starts so that at most `max_bytes_per_s` are written to spares, and
//! `only_when_idle` starts stripes only while no host request is in the
//! array.
//!
//! A failure beyond what a stripe's code tolerates loses that stripe: the
//! run records a data-loss event (time, stripes, bytes); host requests
//! touching a lost stripe fail (counted, not timed) and the rebuild skips
//! it.

use super::StripeSet;
use crate::config::RebuildConfig;
use crate::engine::Ns;
use serde::Serialize;
use std::collections::VecDeque;

/// A member failure as it happened.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FailureRecord {
    /// Member index.
    pub member: u32,
    /// `cr5`/`cr5m`: the chip of the channel that failed (the member, a
    /// channel, serves on; its spare chip takes the chip's place).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chip: Option<u32>,
    /// When it failed, ns.
    pub at_ns: Ns,
    /// The spare device (index among all devices) it was rebuilt onto, if any.
    pub spare: Option<u32>,
    /// When its rebuild started and ended, ns (absent if it did not).
    pub rebuild_start_ns: Option<Ns>,
    /// End of its rebuild, ns: when every stripe was rebuilt onto the spare
    /// or given up as lost.
    pub rebuild_end_ns: Option<Ns>,
    /// Stripes its rebuild gave up because a failure beyond tolerance lost
    /// them (before or during it); nonzero means the rebuild was cut short.
    pub stripes_given_up: u64,
}

/// Data lost by a failure beyond what the code tolerates.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DataLossEvent {
    /// When, ns.
    pub at_ns: Ns,
    /// The member whose failure lost the data.
    pub member: u32,
    /// Stripes lost by this failure.
    pub stripes_lost: u64,
    /// Host bytes in those stripes (whole stripes: in RAID-10, units of a
    /// lost stripe that kept a copy count too).
    pub bytes_lost: u64,
}

/// The rebuild's schedule and its record.
pub struct RebuildProcess {
    cfg: RebuildConfig,
    /// Stripes in the array.
    pub stripes: u64,
    /// Bytes one member holds of one stripe.
    member_stripe_bytes: u64,
    free_spares: VecDeque<u32>,
    /// Members that lost a chip: rebuilt onto a spare chip inside them.
    in_place: Vec<u32>,
    /// Failed members waiting for their rebuild: (earliest start, member).
    pub waiting: Vec<(Ns, u32)>,
    /// Members being rebuilt.
    pub targets: Vec<u32>,
    cursor: u64,
    /// Stripes in reconstruction now.
    pub in_flight: Vec<u64>,
    next_start_ns: Ns,
    wake_at: Option<Ns>,
    /// Every failure, in order.
    pub failures: Vec<FailureRecord>,
    /// Every data-loss event, in order.
    pub data_loss_events: Vec<DataLossEvent>,
    /// Stripes lost so far.
    pub lost: StripeSet,
    /// First rebuild start and last rebuild end, ns.
    pub start_ns: Option<Ns>,
    /// End of the last rebuild (absent while one runs or waits).
    pub end_ns: Option<Ns>,
    /// Time during which a rebuild ran, ns: separate rebuilds (a second
    /// failure after the first rebuild ended) add up, the gap between them does not.
    pub busy_ns: Ns,
    busy_since: Option<Ns>,
    /// Bytes written to spares.
    pub bytes_rebuilt: u64,
    /// Stripe reconstructions done.
    pub stripes_rebuilt: u64,
    /// CR5M: lost strips recovered by decoding (XOR of the other channels,
    /// a parity rebuilt over the current data) and by copying a replica
    /// (the CR5M paper's Figure 12c); MW stripes whose parity was rebuilt.
    pub strips_by_xor: u64,
    /// See `strips_by_xor`.
    pub strips_by_copy: u64,
    /// See `strips_by_xor`.
    pub stripes_consolidated: u64,
}

/// CR5M: what a chip failure leaves to do besides the strips it killed.
#[derive(Clone, Debug)]
pub struct MirroredStrips {
    /// The channel that lost the chip.
    pub member: u32,
    /// Stripes whose strip on `member` only the mirroring chip holds now:
    /// copied onto the replacement chip (MCR's phase two).
    pub copy: super::StripeSet,
    /// MW stripes whose parity, or an old copy it covers, was lost: their
    /// parity is rebuilt over the current data and their copies reclaimed.
    pub consolidate: super::StripeSet,
    /// Stripes whose mirror copy on `member` was lost (its mirroring chip
    /// failed): copied anew from the data chip.
    pub remirror: super::StripeSet,
}

impl MirroredStrips {
    /// Nothing is left to do.
    pub fn is_done(&self) -> bool {
        self.copy.is_empty() && self.consolidate.is_empty() && self.remirror.is_empty()
    }
}

impl RebuildProcess {
    /// The schedule of an array of `stripes` stripes, with spare devices
    /// `first_spare..first_spare + spares`.
    pub fn new(cfg: &RebuildConfig, stripes: u64, member_stripe_bytes: u64, first_spare: u32, spares: u32) -> Self {
        Self {
            cfg: cfg.clone(),
            stripes,
            member_stripe_bytes,
            free_spares: (first_spare..first_spare + spares).collect(),
            in_place: Vec::new(),
            waiting: Vec::new(),
            targets: Vec::new(),
            cursor: 0,
            in_flight: Vec::new(),
            next_start_ns: 0,
            wake_at: None,
            failures: Vec::new(),
            data_loss_events: Vec::new(),
            lost: StripeSet::new(stripes),
            start_ns: None,
            end_ns: None,
            busy_ns: 0,
            busy_since: None,
            bytes_rebuilt: 0,
            stripes_rebuilt: 0,
            strips_by_xor: 0,
            strips_by_copy: 0,
            stripes_consolidated: 0,
        }
    }

    /// The reconstruction policy.
    pub fn policy(&self) -> crate::config::RebuildPolicy {
        self.cfg.policy
    }

    /// The rebuild is idle: nothing waits, nothing is being rebuilt.
    pub fn is_idle(&self) -> bool {
        self.targets.is_empty() && self.in_flight.is_empty() && self.waiting.is_empty()
    }

    /// Member `member` failed at `now`.
    pub fn failed(&mut self, now: Ns, member: u32) {
        self.failures.push(FailureRecord {
            member,
            chip: None,
            at_ns: now,
            spare: None,
            rebuild_start_ns: None,
            rebuild_end_ns: None,
            stripes_given_up: 0,
        });
        // A delay past the end of time means the rebuild never starts, not a wrapped instant.
        self.waiting.push((now.saturating_add(self.cfg.delay_ns), member));
    }

    /// Chip `chip` of channel `member` failed at `now`; its spare chip is
    /// inside the member, whose device stays.
    pub fn chip_failed(&mut self, now: Ns, member: u32, chip: u32) {
        self.failed(now, member);
        self.in_place.push(member);
        if let Some(f) = self.failures.last_mut() {
            f.chip = Some(chip);
        }
    }

    /// Takes a free spare for the first waiting member whose delay is over
    /// (a member that lost a chip has its own); returns `(member, spare
    /// device)`. Remembers when to look again.
    pub fn next_assignment(&mut self, now: Ns) -> Option<(u32, u32)> {
        let i = self.waiting.iter().position(|&(at, _)| at <= now)?;
        let member = self.waiting[i].1;
        let spare = match self.in_place.iter().position(|&m| m == member) {
            Some(j) => self.in_place.swap_remove(j),
            None => self.free_spares.pop_front()?,
        };
        self.waiting.remove(i);
        self.targets.push(member);
        if let Some(f) = self.failures.iter_mut().rev().find(|f| f.member == member) {
            (f.spare, f.rebuild_start_ns) = (Some(spare), Some(now));
        }
        self.start_ns.get_or_insert(now);
        self.busy_since.get_or_insert(now);
        self.end_ns = None;
        Some((member, spare))
    }

    /// The earliest instant a waiting member may start, if a spare is free for it.
    pub fn next_wait(&self) -> Option<Ns> {
        let has_spare = |m: u32| !self.free_spares.is_empty() || self.in_place.contains(&m);
        self.waiting.iter().filter(|&&(_, m)| has_spare(m)).map(|&(at, _)| at).min()
    }

    /// `stripes` more stripes of `member`'s rebuild are lost: it gives them up.
    pub fn give_up(&mut self, member: u32, stripes: u64) {
        if let Some(f) = self.failures.iter_mut().rev().find(|f| f.member == member) {
            f.stripes_given_up += stripes;
        }
    }

    /// Member `member`'s rebuild finished at `now`.
    pub fn member_done(&mut self, now: Ns, member: u32) {
        self.targets.retain(|&t| t != member);
        if let Some(f) = self.failures.iter_mut().rev().find(|f| f.member == member) {
            f.rebuild_end_ns = Some(now);
        }
    }

    /// Marks the end of the rebuild once nothing is left to rebuild or in flight.
    pub fn settle(&mut self, now: Ns) {
        if self.targets.is_empty() && self.in_flight.is_empty() && self.start_ns.is_some() && self.end_ns.is_none() {
            self.end_ns = Some(now);
            if let Some(since) = self.busy_since.take() {
                self.busy_ns += now - since;
            }
        }
    }

    /// True when a rebuild has started and its end is not recorded yet.
    pub fn unsettled(&self) -> bool {
        self.start_ns.is_some() && self.end_ns.is_none()
    }

    /// Whether another stripe may start at `now`: room in the buffer, the
    /// rate limit's pace, the host idle if so asked. When only the pace
    /// stops it, returns the instant to look again.
    pub fn may_start(&self, now: Ns, host_busy: bool) -> Result<(), Option<Ns>> {
        if self.targets.is_empty() || self.in_flight.len() as u32 >= self.cfg.stripes_in_flight() || (self.cfg.only_when_idle && host_busy) {
            return Err(None);
        }
        if now < self.next_start_ns {
            return Err(Some(self.next_start_ns));
        }
        Ok(())
    }

    /// A wake-up at `at` is needed; true when none is pending at or before it.
    pub fn want_wake(&mut self, at: Ns) -> bool {
        if self.wake_at.is_some_and(|w| w <= at) {
            return false;
        }
        self.wake_at = Some(at);
        true
    }

    /// A wake-up fired at `now`.
    pub fn woke(&mut self, now: Ns) {
        if self.wake_at.is_some_and(|w| w <= now) {
            self.wake_at = None;
        }
    }

    /// Next stripe (from the cursor, wrapping) that is neither in flight
    /// nor lost and that `needs` work; `None` when there is none.
    pub fn next_stripe(&mut self, needs: impl Fn(u64) -> bool) -> Option<u64> {
        for _ in 0..self.stripes {
            let s = self.cursor;
            self.cursor = (self.cursor + 1) % self.stripes;
            if !self.in_flight.contains(&s) && !self.lost.contains(s) && needs(s) {
                return Some(s);
            }
        }
        None
    }

    /// Whether some target still lacks stripe `s`.
    pub fn lacks(&self, state: &super::ArrayState, s: u64) -> bool {
        self.targets.iter().any(|&t| !state.alive(t, s))
    }

    /// Stripe `s` starts reconstruction at `now`, writing `bytes` to spares.
    pub fn started(&mut self, now: Ns, s: u64, bytes: u64) {
        self.in_flight.push(s);
        if self.cfg.max_bytes_per_s > 0 {
            self.next_start_ns = self.next_start_ns.max(now).saturating_add(crate::config::transfer_ns(bytes, self.cfg.max_bytes_per_s));
        }
    }

    /// Stripe `s`'s reconstruction is done, `bytes` written (`None`: the
    /// stripe was lost while it ran, and counts as lost).
    pub fn stripe_done(&mut self, s: u64, bytes: Option<u64>) {
        self.in_flight.retain(|&x| x != s);
        if let Some(b) = bytes {
            self.bytes_rebuilt += b;
            // (A CR5M stripe given new parity where nothing was lost recovers no strip.)
            self.stripes_rebuilt += u64::from(b > 0);
        }
    }

    /// Bytes one member holds of one stripe.
    pub fn member_stripe_bytes(&self) -> u64 {
        self.member_stripe_bytes
    }
}
