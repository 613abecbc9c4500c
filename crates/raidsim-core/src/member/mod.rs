//! The member enum: one array position's device, an SSD (or one channel of
//! an SSD) or a hard disk, behind the [`MemberDevice`] interface with static
//! dispatch. The simulation and the report reach members only through it;
//! `ssd/` and `hdd/` know only the interface in `device/`.

use crate::device::{CauseCounters, DeviceRequest, Dispatch, MemberDevice, Remap};
use crate::engine::Ns;

/// A member of any kind, with static dispatch: the simulation and the
/// report speak to members only through this type.
// Members are few and live as long as the run: boxing the larger variant
// would only add a pointer chase to every submit.
#[allow(clippy::large_enum_variant)]
pub enum Member {
    /// A flash SSD.
    Ssd(crate::ssd::Ssd),
    /// A hard disk.
    Hdd(crate::hdd::Hdd),
}

/// Forwards a call to whichever device a [`Member`] holds.
macro_rules! each_member {
    ($member:expr, $device:ident => $body:expr) => {
        match $member {
            Member::Ssd($device) => $body,
            Member::Hdd($device) => $body,
        }
    };
}

/// Member `index`'s own seed, from the run's: members draw apart.
fn member_seed(seed: u64, index: u32) -> u64 {
    seed ^ u64::from(index).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl Member {
    /// Prefetches an SSD's map entry at byte `offset_bytes`; a disk has none.
    pub fn prefetch_map_at(&self, offset_bytes: u64) {
        if let Member::Ssd(ssd) = self {
            ssd.prefetch_map_at(offset_bytes);
        }
    }

    /// Builds member `index` of `cfg`; `seed` is the run's (a disk's
    /// spindle phase is drawn from it when spindles are not synchronized,
    /// an SSD's random-greedy victims).
    /// An SSD polls `stop` between the pages of a long request; a disk
    /// serves any request in a few steps.
    pub fn new(cfg: &crate::config::MemberConfig, index: u32, seed: u64, stop: &crate::engine::StopFlag) -> Self {
        match cfg {
            crate::config::MemberConfig::Ssd { ssd, geometry } => {
                let mut drive = crate::ssd::Ssd::new(ssd, geometry);
                drive.seed(member_seed(seed, index));
                drive.watch(stop.clone());
                Member::Ssd(drive)
            }
            crate::config::MemberConfig::Hdd { hdd, geometry } => Member::Hdd(crate::hdd::Hdd::new(hdd, geometry, member_seed(seed, index))),
        }
    }

    /// Places the flows' parts of a single drive built from `cfg` (see
    /// [`crate::config::DrivePart`]); none to place is nothing to do.
    pub fn place_flows(&mut self, cfg: &crate::config::MemberConfig, parts: &[crate::config::DrivePart]) -> crate::Result<()> {
        match (self, cfg) {
            _ if parts.is_empty() => Ok(()),
            (Member::Ssd(drive), crate::config::MemberConfig::Ssd { ssd, .. }) => {
                drive.place_flows(&ssd.ftl.static_order, parts);
                Ok(())
            }
            _ => Err(crate::Error::Internal("flows' parts placed on a hard disk".into())),
        }
    }

    /// The page writes of preconditioning; a disk needs none.
    pub fn precondition_plan(&self, cfg: &crate::config::PreconditionConfig) -> crate::ssd::PreconditionPlan {
        match self {
            Member::Ssd(ssd) => ssd.precondition_plan(cfg),
            Member::Hdd(_) => crate::ssd::PreconditionPlan::default(),
        }
    }

    /// Preconditioning writes `writes` (see [`crate::ssd::Ssd::precondition_writes`]).
    pub fn precondition_writes<R: rand::Rng>(
        &mut self,
        writes: std::ops::Range<u64>,
        plan: &crate::ssd::PreconditionPlan,
        rng: &mut R,
    ) -> crate::Result<()> {
        match self {
            Member::Ssd(ssd) => ssd.precondition_writes(writes, plan, rng),
            Member::Hdd(_) if writes.is_empty() => Ok(()),
            Member::Hdd(_) => Err(crate::Error::Internal("preconditioning writes planned for a hard disk".into())),
        }
    }

    /// Preconditioning has written the member's pages: an SSD whose cached
    /// map starts warm fills it (`ssd.ftl.cmt_starts_warm`).
    pub fn warm_mapping_cache(&mut self) -> crate::Result<()> {
        match self {
            Member::Ssd(ssd) => ssd.warm_mapping_cache(),
            Member::Hdd(_) => Ok(()),
        }
    }

    /// Ends preconditioning (or a warm-up): counters restart; wear is kept.
    pub fn restart_counters(&mut self) {
        if let Member::Ssd(ssd) = self {
            ssd.precondition_done();
        }
    }

    /// Adds the member's statistics under `name` (`member[3]`).
    pub fn stats(&self, name: &str, out: &mut crate::metrics::Stats) {
        each_member!(self, d => d.stats(name, out))
    }

    /// Collections the member began itself since it was built (0 for a disk).
    pub fn own_gc_starts(&self) -> u64 {
        match self {
            Member::Ssd(ssd) => ssd.own_gc_starts(),
            Member::Hdd(_) => 0,
        }
    }

    /// Harmonia's forced collection at `now_ns` (see [`Ssd::force_gc`]);
    /// a disk has nothing to collect.
    pub fn force_gc(&mut self, now_ns: crate::engine::Ns, free_fraction: f64) -> crate::error::Result<u64> {
        match self {
            Member::Ssd(ssd) => ssd.force_gc(now_ns, free_fraction),
            Member::Hdd(_) => Ok(0),
        }
    }

    /// Writes that triggered garbage collection (0 for a disk).
    pub fn gc_runs(&self) -> u64 {
        match self {
            Member::Ssd(ssd) => ssd.gc_runs(),
            Member::Hdd(_) => 0,
        }
    }

    /// Media writes per write received: flash pages programmed per page the
    /// host wrote, or 1 for a disk that wrote anything (it writes in place);
    /// 0 when nothing was written.
    pub fn write_amplification(&self) -> f64 {
        match self {
            Member::Ssd(ssd) => ssd.write_amplification(),
            Member::Hdd(hdd) => f64::from(u8::from(hdd.counters().pages_written.iter().any(|&n| n > 0))),
        }
    }

    /// Per-block erase counts (empty for a disk).
    pub fn erase_counts(&self) -> &[u32] {
        match self {
            Member::Ssd(ssd) => ssd.ftl().erase_counts(),
            Member::Hdd(_) => &[],
        }
    }

    /// Pages programmed on each chip, GC aside (empty for a disk).
    pub fn chip_pages_written(&self) -> &[u64] {
        match self {
            Member::Ssd(ssd) => ssd.chip_pages_written(),
            Member::Hdd(_) => &[],
        }
    }

    /// With a drive write buffer: when the flash finished programming the
    /// last page the buffer took (0 without one, and for a disk).
    pub fn flash_programmed_until_ns(&self) -> Ns {
        self.as_ssd().map_or(0, crate::ssd::Ssd::flash_programmed_until_ns)
    }

    /// The end of the run: an SSD books the programs still waiting at its
    /// units (`ssd.scheduling = "reads_first"`).
    pub fn finish(&mut self) -> crate::Result<()> {
        match self {
            Member::Ssd(ssd) => ssd.finish(),
            Member::Hdd(_) => Ok(()),
        }
    }

    /// CR5M: whether the member's mirroring chips are idle at `now_ns`
    /// (false when it has none).
    pub fn mirroring_chips_idle(&self, now_ns: Ns) -> bool {
        self.as_ssd().is_some_and(|ssd| ssd.mirroring_chips_idle(now_ns))
    }

    /// CR5M bookkeeping on the member's mapping (an SSD channel with a mirroring chip).
    pub fn remap(&mut self, remap: Remap, offset_bytes: u64, len_bytes: u64) -> crate::Result<()> {
        match (self, remap) {
            (Member::Ssd(ssd), Remap::KeepAsExpired) => ssd.keep_as_expired(offset_bytes, len_bytes),
            (Member::Ssd(ssd), Remap::DropCopies) => ssd.drop_copies(offset_bytes, len_bytes),
            (Member::Hdd(_), _) => Err(crate::Error::Internal("a mirroring write planned for a hard disk".into())),
        }
    }

    /// Trims `[offset, offset + len)` of the member at `now_ns`. A disk
    /// has no trim, and `config::refuse_trims` stops such a run first.
    pub fn trim(&mut self, now_ns: Ns, offset_bytes: u64, len_bytes: u64) -> crate::Result<()> {
        match self {
            Member::Ssd(ssd) => ssd.trim(now_ns, offset_bytes, len_bytes),
            Member::Hdd(_) => Err(crate::Error::Internal("a trim reached a hard disk".into())),
        }
    }

    /// Chip `chip` of this member (an SSD channel) fails; a spare chip
    /// replaces it. Returns the pages lost.
    pub fn fail_chip(&mut self, chip: u32) -> crate::Result<crate::ftl::ChipLoss> {
        match self {
            Member::Ssd(ssd) => ssd.fail_chip(chip),
            Member::Hdd(_) => Err(crate::Error::Internal("a chip failure planned for a hard disk".into())),
        }
    }

    /// The SSD, if the member is one.
    pub fn as_ssd(&self) -> Option<&crate::ssd::Ssd> {
        match self {
            Member::Ssd(ssd) => Some(ssd),
            Member::Hdd(_) => None,
        }
    }

    /// The disk, if the member is one.
    pub fn as_hdd(&self) -> Option<&crate::hdd::Hdd> {
        match self {
            Member::Hdd(hdd) => Some(hdd),
            Member::Ssd(_) => None,
        }
    }
}

impl MemberDevice for Member {
    fn capacity_bytes(&self) -> u64 {
        each_member!(self, d => d.capacity_bytes())
    }

    #[inline]
    fn submit(&mut self, now_ns: Ns, request: DeviceRequest) -> crate::Result<Option<Dispatch>> {
        each_member!(self, d => d.submit(now_ns, request))
    }

    #[inline]
    fn complete(&mut self, now_ns: Ns) -> crate::Result<Option<Dispatch>> {
        each_member!(self, d => d.complete(now_ns))
    }

    fn wake(&mut self, now_ns: Ns, out: &mut Vec<Dispatch>) -> crate::Result<()> {
        each_member!(self, d => d.wake(now_ns, out))
    }

    #[inline]
    fn wake_request(&mut self, now_ns: Ns) -> crate::Result<Option<Ns>> {
        each_member!(self, d => d.wake_request(now_ns))
    }

    fn counters(&self) -> &CauseCounters {
        each_member!(self, d => d.counters())
    }
}
