//! CR5M's mirroring writes (Pan & Xie, "A Mirroring-Assisted Channel-RAID5
//! SSD for Mobile Applications", ACM TECS 2018, §3.1.2-3.1.3, Algorithm 1).
//!
//! Each channel of a CR5M SSD has one mirroring chip. A partial-stripe write
//! sub-request may be served as a *mirroring write* (MW): each of its pages
//! is written to a data chip of its channel and to that channel's mirroring
//! chip, and parity is left as it was. The stripe's old pages stay valid as
//! the parity-consistent copies (the paper's EPPN entries; see
//! [`crate::ftl::Ftl::keep_as_expired`]), so the stripe stays recoverable:
//! a lost page is either rebuilt from the old pages and the old parity, or
//! copied from its mirror. A stripe with mirrored pages is an *MW stripe*.
//!
//! Algorithm 1, per sub-request (one stripe of one request, served in order):
//!
//! - a full-stripe write computes parity from its data and writes the whole
//!   stripe; every old, mirror and expired copy of it is invalidated;
//! - a partial-stripe write is an MW when every involved channel's
//!   mirroring chip is idle and `MWNo ≤ MWLimit × AveWriteNo` holds on
//!   every involved channel, `MWNo` being the channel's MW sub-requests so
//!   far and `AveWriteNo` its write sub-requests so far over its data chips;
//! - otherwise read-modify-write or reconstruct-write, whichever pre-reads
//!   fewer pages (ties to reconstruct-write), as in CR5 — except on an MW
//!   stripe, whose parity covers the old pages and not the current ones:
//!   there the update reads the current version of every page it does not
//!   write (reconstruct-write, the paper's request R2) and rewrites the
//!   whole parity unit (a unit of several pages, or a write of part of a
//!   page, would otherwise leave parity sectors covering the old copies
//!   about to be reclaimed), and the stripe returns to plain RAID-5 (its
//!   mirror and old copies are invalidated);
//! - every channel the sub-request writes counts one more write.
//!
//! Where the paper is silent: `MWLimit = 0` never mirrors (the paper says so
//! in §4.4, although `0 ≤ 0 × AveWriteNo` would let each channel's first
//! sub-request through); a page's mirror copy is programmed whole, from the
//! page the controller holds.

use super::StripePlan;
use crate::device::Cause;
use crate::error::{Error, Result};

/// What a host sub-request does to its stripe's mirror state, carried out
/// when its writes are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MirrorAction {
    /// A plain RAID-5 update of a stripe with no mirrored page.
    None,
    /// A mirroring write: these data units (bit d = data unit d) are
    /// written to data and mirroring chips; the old copies of those not
    /// mirrored yet stay as the parity-consistent ones.
    Mirror(u32),
    /// Parity is rewritten over the current pages: the stripe's mirror and
    /// old copies are invalidated.
    Consolidate,
}

pub use crate::device::Remap;

/// Per channel, Algorithm 1's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ChannelCounts {
    /// MWNo: mirroring-write sub-requests that involved the channel.
    mirroring_writes: u64,
    /// Write sub-requests that involved the channel.
    writes: u64,
}

/// CR5M's mirror state: which pages of which stripes are mirrored, and the
/// counters that limit mirroring.
pub struct MirrorWrites {
    mw_limit: f64,
    data_chips_per_channel: u32,
    /// Per stripe: bit d set when data unit d's current version is mirrored.
    mirrored: Vec<u32>,
    channels: Vec<ChannelCounts>,
    /// MW sub-requests served.
    pub mirroring_writes: u64,
    /// Updates of MW stripes that returned them to plain RAID-5.
    pub consolidations: u64,
}

impl MirrorWrites {
    /// The state of an array of `stripes` stripes over `channels` channels,
    /// `data_units` data units per stripe.
    pub fn new(mw_limit: f64, data_chips_per_channel: u32, channels: u32, stripes: u64, data_units: u32) -> Result<Self> {
        if data_units > 32 {
            return Err(Error::config("array.members", format!("cr5m tracks mirrored pages of up to 32 data channels, got {data_units}")));
        }
        if data_chips_per_channel == 0 {
            return Err(Error::Internal("cr5m with no data chip".into()));
        }
        Ok(Self {
            mw_limit,
            data_chips_per_channel,
            mirrored: vec![0; stripes as usize],
            channels: vec![ChannelCounts::default(); channels as usize],
            mirroring_writes: 0,
            consolidations: 0,
        })
    }

    /// Mirrored data units of stripe `s`, one bit each.
    pub fn mirrored(&self, s: u64) -> u32 {
        self.mirrored.get(s as usize).copied().unwrap_or(0)
    }

    /// Whether channel `c` may take one more mirroring write.
    fn under_limit(&self, c: u32) -> bool {
        let ch = self.channels[c as usize];
        let average = ch.writes as f64 / f64::from(self.data_chips_per_channel);
        self.mw_limit > 0.0 && ch.mirroring_writes as f64 <= self.mw_limit * average
    }

    /// Algorithm 1 for host write `plan` of stripe `s` (planned by the RAID-5
    /// planner), `written` its data units (bit d = unit d written, `all` the
    /// full mask); `may_mirror = false` rules out an MW; `idle(c)` tells
    /// whether channel c's mirroring chip is idle now. Rewrites `plan` into
    /// an MW when Algorithm 1 says so and returns the action to carry out as
    /// its writes go out; `None` when the plan is a read-modify-write of an
    /// MW stripe and must be made again as a reconstruct-write of whole
    /// units (`replanned = true` then).
    pub fn decide(
        &mut self,
        plan: &mut StripePlan,
        written: u32,
        all: u32,
        may_mirror: bool,
        replanned: bool,
        mut idle: impl FnMut(u32) -> bool,
    ) -> Option<MirrorAction> {
        let s = plan.stripe;
        let mirrored = self.mirrored(s);
        let involved = |p: &StripePlan| {
            let mut m: Vec<u32> = p.writes.iter().map(|w| w.member).collect();
            m.sort_unstable();
            m.dedup();
            m
        };
        if written == all {
            if mirrored != 0 && !replanned {
                return None;
            }
            self.count_writes(&involved(plan), false);
            return Some(if mirrored != 0 { self.consolidated(s) } else { MirrorAction::None });
        }
        let data_channels: Vec<u32> = plan.writes.iter().filter(|w| w.cause == Cause::User).map(|w| w.member).collect();
        if may_mirror && data_channels.iter().all(|&c| self.under_limit(c) && idle(c)) {
            plan.reads.clear();
            plan.parity_bytes = 0;
            plan.writes.retain(|w| w.cause == Cause::User);
            let copies: Vec<_> = plan.writes.iter().map(|w| super::MemberOp { cause: Cause::Mirror, ..*w }).collect();
            plan.writes.extend(copies);
            plan.locks_stripe = true;
            let channels = involved(plan);
            self.count_writes(&channels, true);
            self.mirrored[s as usize] |= written;
            self.mirroring_writes += 1;
            return Some(MirrorAction::Mirror(written));
        }
        if mirrored != 0 && !replanned {
            return None; // replan as a whole-unit reconstruct-write, then decide again
        }
        self.count_writes(&involved(plan), false);
        Some(if mirrored != 0 { self.consolidated(s) } else { MirrorAction::None })
    }

    /// A reconstruction rebuilt stripe `s`'s parity over its current data.
    pub fn parity_rebuilt(&mut self, s: u64) {
        if let Some(m) = self.mirrored.get_mut(s as usize) {
            *m = 0;
        }
    }

    fn consolidated(&mut self, s: u64) -> MirrorAction {
        self.mirrored[s as usize] = 0;
        self.consolidations += 1;
        MirrorAction::Consolidate
    }

    fn count_writes(&mut self, channels: &[u32], mirroring: bool) {
        for &c in channels {
            let ch = &mut self.channels[c as usize];
            ch.writes += 1;
            ch.mirroring_writes += u64::from(mirroring);
        }
    }
}
