//! The timed array controller: executes the planner's stripe plans on the
//! members, and the rebuild onto spares.
//!
//! A host request is planned into one [`StripePlan`] per stripe it touches.
//! Each stripe runs phase 1 (its reads, issued together), the parity
//! computation (`xor_bytes_per_s`, on one engine: computations of
//! concurrent stripes queue for it), then phase 2 (its writes, issued
//! together); the host request is done when its last stripe is. Plans that
//! update parity, read through it or rebuild a stripe are serialized by a
//! stripe lock, as in Linux md (a stripe_head is owned by one update at a
//! time); a plan that waited is planned again when it gets the lock if the
//! array's condition changed meanwhile (a failure, a stripe rebuilt). The
//! stripes of one request run in parallel or in order
//! (`array.stripe_order`).
//!
//! Failures, spares and reconstruction are described in [`super::rebuild`].
//! Members are array positions; `ArrayState::device_of` says which device
//! (the member's own, or the spare that replaced it) serves each.
//!
//! The controller sees devices and time only through an [`ArrayPort`], so
//! it does not know what kind of device a member is, nor the simulation's
//! event type.

mod cr5m;
mod failure;
mod parity_engine;

use failure::RebuildJob;
pub use parity_engine::ComputePurpose;
use parity_engine::ParityEngine;

use super::mirroring::{MirrorAction, MirrorWrites, Remap};
use super::observer::{ArrayObserver, Unobserved, Work};
use super::rebuild::{DataLossEvent, MirroredStrips, RebuildProcess};
use super::verify::{ByteVerifier, RebuildBytes, Verifying};
use super::{ArrayGeometry, ArrayState, MemberOp, PlanOptions, Planner, StripePlan, StripeSet};
use crate::config::{ArrayConfig, RebuildConfig, StripeOrder};
use crate::device::{Cause, DeviceRequest, Op};
use crate::engine::{Ns, Slab};
use crate::error::{Error, Result};
pub use crate::metrics::ArrayPhase;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// What the controller needs of the simulation around it.
pub trait ArrayPort {
    /// Submits `request` to device `device` at `now`; its completion comes
    /// back through [`ArrayController::member_done`] with the request's token.
    fn submit(&mut self, now: Ns, device: u32, request: DeviceRequest) -> Result<()>;
    /// Calls [`ArrayController::parity_ready`] for `stripe_job` at `at`.
    fn parity_ready_at(&mut self, at: Ns, stripe_job: u32);
    /// Calls [`ArrayController::wake`] at `at`.
    fn wake_at(&mut self, at: Ns);
    /// Host job `host_job` is complete at `now`; `served = false` when it
    /// touched lost data and failed.
    fn host_done(&mut self, now: Ns, host_job: u32, served: bool);
    /// The array entered `phase` at `now`.
    fn phase(&mut self, now: Ns, phase: ArrayPhase);
    /// CR5M: whether device `device`'s mirroring chip is idle at `now`.
    fn mirroring_chip_idle(&self, now: Ns, device: u32) -> bool;
    /// CR5M: bookkeeping on device `device`'s mapping of `[offset, offset + len)`.
    fn remap(&mut self, device: u32, remap: Remap, offset_bytes: u64, len_bytes: u64) -> Result<()>;
    /// `cr5`/`cr5m`: chip `chip` of device `device` (an SSD channel) fails
    /// and a spare chip takes its place; returns the pages it took.
    fn fail_chip(&mut self, device: u32, chip: u32) -> Result<crate::ftl::ChipLoss>;
}

/// Stripe jobs in flight; asking for one that is not is an internal error.
#[derive(Default)]
struct StripeJobs(Slab<StripeJob>);

impl StripeJobs {
    fn insert(&mut self, job: StripeJob) -> u32 {
        self.0.insert(job)
    }

    fn get_mut(&mut self, id: u32) -> Result<&mut StripeJob> {
        self.0.get_mut(id).ok_or_else(|| not_in_flight(id))
    }

    fn remove(&mut self, id: u32) -> Result<StripeJob> {
        self.0.remove(id).ok_or_else(|| not_in_flight(id))
    }
}

fn not_in_flight(stripe_job: u32) -> Error {
    Error::Internal(format!("stripe job {stripe_job} is not in flight"))
}

/// Whose a stripe job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// One stripe of host job `u32`, covering host bytes `[offset, offset + len)`.
    Host { job: u32, op: Op, offset: u64, len: u64 },
    /// A stripe reconstruction.
    Rebuild(RebuildJob),
}

/// One stripe of a host request, or one stripe reconstruction, being executed.
struct StripeJob {
    owner: Owner,
    plan: StripePlan,
    /// The array condition the plan was made for.
    epoch: u64,
    /// It holds its stripe's lock (a replanned job keeps the lock it took,
    /// whatever its new plan needs).
    holds_lock: bool,
    /// It holds one of the controller's `parity_updates_at_once` slots.
    holds_parity_slot: bool,
    in_writes: bool,
    outstanding: u32,
    /// CR5M: what its writes do to the stripe's mirror state, once decided.
    mirror: Option<MirrorAction>,
}

/// The array controller's run-time state.
pub struct ArrayController {
    planner: Planner,
    state: ArrayState,
    order: StripeOrder,
    /// The parity engine: one computation at a time.
    engine: ParityEngine,
    /// `array.controller.parity_updates_at_once` (0 = no limit), the slots
    /// taken, and the host stripe writes waiting for one, in order.
    parity_slots: (u32, u32, VecDeque<u32>),
    stripe_jobs: StripeJobs,
    /// Per host job (indexed by its id): stripes not finished yet, and
    /// whether it touched lost data.
    stripes_left: Vec<(u32, bool)>,
    /// Host jobs planned and not finished.
    host_jobs: u32,
    /// Stripes locked by a plan in progress, and the stripe jobs waiting for each.
    locks: FxHashMap<u64, VecDeque<u32>>,
    /// Sequential stripe order: each host job's plans not started yet.
    waiting: FxHashMap<u32, VecDeque<(Owner, StripePlan, u64)>>,
    plans: Vec<StripePlan>,
    /// Finished plans, whose buffers the planner reuses.
    pool: Vec<StripePlan>,
    /// Changes whenever failures or rebuilt stripes change what a plan reads.
    epoch: u64,
    rebuild: RebuildProcess,
    phase: ArrayPhase,
    /// Follows the members' bytes: `sim.verify`'s verifier, or no one.
    observer: Box<dyn ArrayObserver>,
    /// CR5M's mirroring writes (`array.level = "cr5m"`).
    mirroring: Option<MirrorWrites>,
    /// Bytes of a member's flash page (a chip failure loses pages).
    page_bytes: u64,
    /// CR5M: what chip failures left to copy or consolidate.
    chip_work: Vec<MirroredStrips>,
    /// Host writes whose drive writes began since the last take, when
    /// someone tracks them (the controller's read-ahead drops what they overlap).
    write_starts: Option<Vec<(u64, u64)>>,
}

impl ArrayController {
    /// The parity engine's work since the counters restarted, per purpose:
    /// (busy ns, bytes XORed, bytes multiplied in GF(2^8)).
    pub fn parity_compute_tally(&self) -> [(ComputePurpose, (u64, u64, u64)); 3] {
        ComputePurpose::ALL.map(|p| (p, self.engine.tally[p as usize]))
    }

    /// From now on, remembers each host write whose drive writes begin (see [`Self::take_write_starts`]).
    pub fn track_write_starts(&mut self) {
        self.write_starts.get_or_insert_with(Vec::new);
    }

    /// The host writes `(offset, len)` whose drive writes began since the last call.
    pub fn take_write_starts(&mut self) -> Vec<(u64, u64)> {
        self.write_starts.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Restarts the parity engine's counters (the warm-up is over).
    pub fn restart_parity_compute_tally(&mut self) {
        self.engine.tally = [(0, 0, 0); 3];
    }

    /// A controller for `cfg` over members of `member_capacity_bytes` each,
    /// counting pages of `page_bytes`; `cr5m_data_chips` is the data chips
    /// of each channel when the level is `cr5m`.
    pub fn new(
        cfg: &ArrayConfig,
        rebuild: &RebuildConfig,
        member_capacity_bytes: u64,
        page_bytes: u64,
        verify: bool,
        cr5m_data_chips: Option<u32>,
    ) -> Result<Self> {
        let geometry = ArrayGeometry::new(cfg, member_capacity_bytes);
        let code = match (cfg.xor_code(), cfg.level.code_level()) {
            (Some((code, p)), _) => Some((code, p.or_else(|| raidsim_codes::default_prime(code, geometry.data_units as usize)))),
            (None, crate::config::RaidLevel::Raid6) => Some((raidsim_codes::Code::Rs, None)),
            (None, _) => None,
        };
        let observer: Box<dyn ArrayObserver> = match verify {
            true => {
                let v = ByteVerifier::new(geometry.clone(), code);
                Box::new(Verifying::new(if cr5m_data_chips.is_some() { v.with_mirroring_chips(page_bytes) } else { v }))
            }
            false => Box::new(Unobserved),
        };
        let planner = Planner::new(cfg, geometry, page_bytes)?;
        let stripes = planner.geometry().stripes();
        let rebuild = RebuildProcess::new(rebuild, stripes, planner.member_stripe_bytes(), cfg.members, cfg.spares);
        let data_units = planner.geometry().data_units;
        let mirroring = cr5m_data_chips.map(|chips| MirrorWrites::new(cfg.mw_limit, chips, cfg.members, stripes, data_units)).transpose()?;
        Ok(Self {
            planner,
            state: ArrayState::with_spares(cfg.members, cfg.spares),
            order: cfg.stripe_order,
            engine: ParityEngine::new(&cfg.controller),
            parity_slots: (cfg.controller.parity_updates_at_once, 0, VecDeque::new()),
            stripe_jobs: StripeJobs::default(),
            stripes_left: Vec::new(),
            host_jobs: 0,
            locks: FxHashMap::default(),
            waiting: FxHashMap::default(),
            plans: Vec::new(),
            pool: Vec::new(),
            epoch: 0,
            rebuild,
            phase: ArrayPhase::Healthy,
            observer,
            mirroring,
            page_bytes,
            chip_work: Vec::new(),
            write_starts: None,
        })
    }

    /// CR5M's mirror state (absent for other levels).
    pub fn mirroring(&self) -> Option<&MirrorWrites> {
        self.mirroring.as_ref()
    }

    /// The rebuild's record: failures, rebuild times, data lost.
    pub fn rebuild(&self) -> &RebuildProcess {
        &self.rebuild
    }

    /// The array's condition now.
    pub fn state(&self) -> &ArrayState {
        &self.state
    }

    /// The planner (its geometry).
    pub fn planner(&self) -> &Planner {
        &self.planner
    }

    /// Test-only fault: read-modify-write updates leave parity unwritten,
    /// so that `sim.verify` can be shown to catch a broken parity update.
    #[doc(hidden)]
    pub fn inject_fault_skip_rmw_parity(&mut self) {
        self.planner.fault_skip_rmw_parity = true;
    }

    /// `sim.verify`: the version of each sector of host bytes `[offset,
    /// offset + len)` (absent when it is off).
    pub fn verify_versions(&self, offset: u64, len: u64) -> Option<Vec<u64>> {
        self.observer.versions(offset, len)
    }

    /// `sim.verify`: a host read answered from the controller's cache,
    /// which held its sectors at `versions`, is checked against the last writes.
    pub fn verify_cached_read(&mut self, offset: u64, len: u64, versions: &[u64]) {
        self.observer.cached_read(offset, len, versions);
    }

    /// `sim.verify`: a host trim reached the member ranges `ranges`.
    pub fn verify_trim(&mut self, ranges: &[crate::array::trim::MemberTrim]) -> Result<()> {
        self.observer.trimmed(&self.state, ranges)
    }

    /// `sim.verify`: what the byte check found (absent when it is off).
    pub fn verify_report(&self) -> Option<super::verify::VerifyReport> {
        let deferred = |s: u64| self.mirroring.as_ref().is_some_and(|mw| mw.mirrored(s) != 0);
        self.observer.report(&self.state, &self.rebuild.lost, &deferred)
    }

    /// Plans host job `host` (its overhead spent) and starts its stripes.
    pub fn start_job<P: ArrayPort>(&mut self, port: &mut P, now: Ns, host: u32, op: Op, offset_bytes: u64, len_bytes: u64) -> Result<()> {
        let h = host as usize;
        if self.stripes_left.len() <= h {
            self.stripes_left.resize(h + 1, (0, false));
        }
        let w = self.planner.geometry().stripe_data_bytes();
        let end = offset_bytes.checked_add(len_bytes).filter(|&e| e <= self.planner.geometry().capacity_bytes());
        let Some(end) = end.filter(|_| len_bytes > 0) else {
            return Err(Error::Workload(format!("array request [{offset_bytes}, +{len_bytes}) outside the array's bytes")));
        };
        if !self.rebuild.lost.is_empty() && (offset_bytes / w..=(end - 1) / w).any(|s| self.rebuild.lost.contains(s)) {
            port.host_done(now, host, false);
            return Ok(());
        }
        self.observer.planned(host, op, offset_bytes, len_bytes)?;
        self.plans.clear();
        let opts = self.planner.options();
        self.planner.plan_reusing((op, offset_bytes, len_bytes), opts, &self.state, &mut self.plans, &mut self.pool)?;
        self.state.commit(&self.plans);
        if self.plans.is_empty() {
            return Err(Error::Internal(format!("host job {host} planned to no stripes")));
        }
        self.stripes_left[h] = (self.plans.len() as u32, false);
        self.host_jobs += 1;
        let owner = |plan: &StripePlan| {
            let (lo, hi) = (plan.stripe * w, (plan.stripe + 1) * w);
            let (a, b) = (offset_bytes.max(lo), end.min(hi));
            Owner::Host { job: host, op, offset: a, len: b - a }
        };
        let mut plans = std::mem::take(&mut self.plans);
        let epoch = self.epoch;
        match self.order {
            StripeOrder::Parallel => {
                for plan in plans.drain(..) {
                    self.start_stripe(port, now, owner(&plan), plan, epoch, None)?;
                }
            }
            StripeOrder::Sequential => {
                let mut rest: VecDeque<(Owner, StripePlan, u64)> = plans.drain(..).map(|p| (owner(&p), p, epoch)).collect();
                let first = rest.pop_front();
                if !rest.is_empty() {
                    self.waiting.insert(host, rest);
                }
                if let Some((owner, plan, epoch)) = first {
                    self.start_stripe(port, now, owner, plan, epoch, None)?;
                }
            }
        }
        self.plans = plans;
        Ok(())
    }

    /// Starts a stripe job planned at `epoch`, or queues it behind the stripe's lock.
    fn start_stripe<P: ArrayPort>(
        &mut self,
        port: &mut P,
        now: Ns,
        owner: Owner,
        plan: StripePlan,
        epoch: u64,
        mirror: Option<MirrorAction>,
    ) -> Result<()> {
        let (stripe, locks) = (plan.stripe, plan.locks_stripe);
        let job = StripeJob { owner, plan, epoch, holds_lock: locks, holds_parity_slot: false, in_writes: false, outstanding: 0, mirror };
        let id = self.stripe_jobs.insert(job);
        if locks {
            if let Some(waiters) = self.locks.get_mut(&stripe) {
                waiters.push_back(id);
                return Ok(());
            }
            self.locks.insert(stripe, VecDeque::new());
        }
        self.begin(port, now, id)
    }

    /// Runs stripe job `id`'s first phase, planned again if the array's
    /// condition changed since it was planned.
    fn begin<P: ArrayPort>(&mut self, port: &mut P, now: Ns, id: u32) -> Result<()> {
        if !self.take_parity_slot(id)? {
            return Ok(());
        }
        let epoch = self.epoch;
        let sj = self.stripe_jobs.get_mut(id)?;
        if sj.epoch != epoch {
            sj.epoch = epoch;
            let s = sj.plan.stripe;
            match sj.owner {
                Owner::Rebuild(_) if self.rebuild.lost.contains(s) => sj.plan.reset(s),
                Owner::Rebuild(job) => {
                    let mut plan = std::mem::take(&mut sj.plan);
                    let planned = self.plan_rebuild_job(job, s, &mut plan);
                    self.stripe_jobs.get_mut(id)?.plan = plan;
                    planned?;
                }
                Owner::Host { job, op, offset, len } => {
                    if self.rebuild.lost.contains(s) {
                        // The stripe was lost while the job waited: it fails, doing nothing.
                        sj.plan.reset(s);
                        self.stripes_left[job as usize].1 = true;
                    } else {
                        // CR5M: a write already decided as a mirroring write or
                        // an MW stripe's update is made again as the update
                        // (a mirroring write planned anew could skip a lost strip).
                        let mw_stripe = op == Op::Write && matches!(sj.mirror, Some(MirrorAction::Mirror(_) | MirrorAction::Consolidate));
                        if mw_stripe {
                            sj.mirror = Some(MirrorAction::Consolidate);
                            if let Some(mw) = self.mirroring.as_mut() {
                                mw.parity_rebuilt(s);
                            }
                        }
                        let fresh = self.replan_host_stripe(op, offset, len, s, mw_stripe)?;
                        let sj = self.stripe_jobs.get_mut(id)?;
                        let old = std::mem::replace(&mut sj.plan, fresh);
                        self.pool.push(old);
                    }
                }
            }
        }
        let sj = self.stripe_jobs.get_mut(id)?;
        if sj.plan.locks_stripe && !sj.holds_lock {
            // Replanned into a plan that needs the lock (a read that became degraded).
            sj.holds_lock = true;
            let s = sj.plan.stripe;
            if let Some(waiters) = self.locks.get_mut(&s) {
                waiters.push_back(id);
                return Ok(());
            }
            self.locks.insert(s, VecDeque::new());
        }
        if self.mirroring.is_some() {
            self.decide_mirroring(port, now, id)?;
        }
        self.run_phase(port, now, id, false)
    }

    /// `array.controller.parity_updates_at_once`: whether host stripe write
    /// `id` may go on (it has, or now takes, a slot, or needs none: a
    /// full-stripe write has no pre-reads), or waits for a slot (queued).
    fn take_parity_slot(&mut self, id: u32) -> Result<bool> {
        let (limit, taken, waiting) = &mut self.parity_slots;
        let sj = self.stripe_jobs.get_mut(id)?;
        // Only an update that reads before it writes (read-modify-write or
        // reconstruct-write) holds the engine while its pre-reads run.
        let plan = &sj.plan;
        let needs = *limit > 0
            && !sj.holds_parity_slot
            && matches!(sj.owner, Owner::Host { op: Op::Write, .. })
            && plan.parity_bytes > 0
            && !plan.reads.is_empty();
        if !needs {
            return Ok(true);
        }
        if *taken >= *limit {
            waiting.push_back(id);
            return Ok(false);
        }
        *taken += 1;
        sj.holds_parity_slot = true;
        Ok(true)
    }

    /// A stripe job that held a parity slot is done: the next waiting one goes.
    fn release_parity_slot<P: ArrayPort>(&mut self, port: &mut P, now: Ns) -> Result<()> {
        let (_, taken, waiting) = &mut self.parity_slots;
        *taken = taken.checked_sub(1).ok_or_else(|| Error::Internal("a parity slot released twice".into()))?;
        match waiting.pop_front() {
            Some(next) => self.begin(port, now, next),
            None => Ok(()),
        }
    }

    /// Plans host stripe `s` (host bytes `[offset, offset + len)`) anew; an
    /// MW stripe's update (`mw_stripe`) as a reconstruct-write of whole
    /// units, so that parity covers the current pages before the old go.
    fn replan_host_stripe(&mut self, op: Op, offset: u64, len: u64, s: u64, mw_stripe: bool) -> Result<StripePlan> {
        self.plans.clear();
        let opts = match mw_stripe {
            true => PlanOptions { write_method: crate::config::WriteMethod::Rcw, granularity: crate::config::ParityGranularity::WholeUnit },
            false => self.planner.options(),
        };
        self.planner.plan_reusing((op, offset, len), opts, &self.state, &mut self.plans, &mut self.pool)?;
        self.state.commit(&self.plans);
        let fresh = self.plans.pop().filter(|p| p.stripe == s && self.plans.is_empty());
        fresh.ok_or_else(|| Error::Internal(format!("replanning stripe {s} gave other stripes")))
    }

    /// Stripe job `stripe_job` has computed its parity: issue its writes.
    pub fn parity_ready<P: ArrayPort>(&mut self, port: &mut P, now: Ns, stripe_job: u32) -> Result<()> {
        self.run_phase(port, now, stripe_job, true)
    }

    /// Issues the reads (`writes = false`) or writes of a stripe job; moves on when a phase is empty.
    fn run_phase<P: ArrayPort>(&mut self, port: &mut P, now: Ns, id: u32, writes: bool) -> Result<()> {
        if writes {
            let sj = self.stripe_jobs.get_mut(id)?;
            if !self.chip_work.is_empty() && matches!(sj.owner, Owner::Host { op: Op::Write, .. }) {
                let consolidates = sj.mirror == Some(MirrorAction::Consolidate);
                let mut plan = std::mem::take(&mut sj.plan);
                self.host_write_meets_chip_work(&mut plan, consolidates);
                self.stripe_jobs.get_mut(id)?.plan = plan;
            }
            self.verify_writes(id)?;
            if let (Some(starts), Owner::Host { op: Op::Write, offset, len, .. }) = (self.write_starts.as_mut(), self.stripe_jobs.get_mut(id)?.owner)
            {
                starts.push((offset, len));
            }
            if self.mirroring.is_some() {
                self.remap_for_mirroring(port, id)?;
            }
        }
        let sj = self.stripe_jobs.get_mut(id)?;
        sj.in_writes = writes;
        let ops = if writes { &sj.plan.writes } else { &sj.plan.reads };
        sj.outstanding = ops.len() as u32;
        if ops.is_empty() {
            return self.phase_done(port, now, id);
        }
        for op in ops {
            let device = self.state.device_of[op.member as usize];
            self.state.outstanding[device as usize] += 1;
            let req =
                DeviceRequest { token: u64::from(id), op: op.op, offset_bytes: op.offset_bytes, len_bytes: op.len_bytes, cause: op.cause, stream: 0 };
            port.submit(now, device, req)?;
        }
        Ok(())
    }

    /// `sim.verify`: stripe job `id`'s writes land on the devices they are
    /// issued to, so the verifier stores them now: a member that fails
    /// before they complete takes them down with it, and a spare that
    /// replaces it later does not hold them.
    fn verify_writes(&mut self, id: u32) -> Result<()> {
        let sj = self.stripe_jobs.get_mut(id)?;
        if self.rebuild.lost.contains(sj.plan.stripe) {
            return Ok(());
        }
        self.observer.writes_issued(&self.state, &sj.plan, work_of(sj.owner, id))
    }

    /// Device `device` finished a request of stripe job `token`.
    pub fn member_done<P: ArrayPort>(&mut self, port: &mut P, now: Ns, device: u32, token: u64) -> Result<()> {
        let outstanding =
            self.state.outstanding.get_mut(device as usize).ok_or_else(|| Error::Internal(format!("device {device} does not exist")))?;
        *outstanding = outstanding.checked_sub(1).ok_or_else(|| Error::Internal(format!("device {device} finished more than it was given")))?;
        let id = u32::try_from(token).map_err(|_| Error::Internal(format!("token {token} is not a stripe job")))?;
        let sj = self.stripe_jobs.get_mut(id)?;
        sj.outstanding -= 1;
        if sj.outstanding == 0 {
            self.phase_done(port, now, id)?;
        }
        Ok(())
    }

    /// A phase of stripe job `id` has finished.
    fn phase_done<P: ArrayPort>(&mut self, port: &mut P, now: Ns, id: u32) -> Result<()> {
        let sj = self.stripe_jobs.get_mut(id)?;
        // A read from a member that failed meanwhile returns an error, not
        // data: the stripe is planned again (degraded) and read again.
        let s = sj.plan.stripe;
        if !sj.in_writes && sj.epoch != self.epoch && sj.plan.reads.iter().any(|r| !self.state.alive(r.member, s)) {
            return self.begin(port, now, id);
        }
        // A stripe lost meanwhile holds no data to check (its host job fails or failed).
        if !self.rebuild.lost.contains(s) && !sj.in_writes {
            self.observer.reads_done(&self.state, &sj.plan, work_of(sj.owner, id));
        }
        if !sj.in_writes {
            let purpose = match sj.owner {
                Owner::Host { op: Op::Write, .. } => ComputePurpose::HostWrite,
                Owner::Host { op: Op::Read, .. } => ComputePurpose::HostRead,
                Owner::Rebuild(_) => ComputePurpose::Rebuild,
            };
            return match self.engine.book(now, &sj.plan, purpose) {
                Some(at) => {
                    port.parity_ready_at(at, id);
                    Ok(())
                }
                None => self.run_phase(port, now, id, true),
            };
        }
        let sj = self.stripe_jobs.remove(id)?;
        let (owner, stripe, locked) = (sj.owner, sj.plan.stripe, sj.holds_lock);
        if let Owner::Rebuild(job) = owner {
            self.rebuilt(job, &sj.plan);
        }
        self.pool.push(sj.plan);
        if sj.holds_parity_slot {
            self.release_parity_slot(port, now)?;
        }
        if locked {
            match self.locks.get_mut(&stripe).and_then(VecDeque::pop_front) {
                Some(waiter) => self.begin(port, now, waiter)?,
                None => {
                    self.locks.remove(&stripe);
                }
            }
        }
        if let Owner::Host { job, .. } = owner {
            self.host_stripe_done(port, now, job)?;
        }
        if !self.rebuild.is_idle() {
            self.pump(port, now)?;
        } else if self.rebuild.unsettled() {
            // The stripe just finished was the rebuild's last (its targets
            // may have ended earlier, giving up stripes lost meanwhile).
            self.rebuild.settle(now);
            self.set_phase(port, now);
        }
        Ok(())
    }

    fn host_stripe_done<P: ArrayPort>(&mut self, port: &mut P, now: Ns, host: u32) -> Result<()> {
        let left = self.stripes_left.get_mut(host as usize).filter(|l| l.0 > 0);
        let left = left.ok_or_else(|| Error::Internal(format!("host job {host} of a finished stripe is not in flight")))?;
        left.0 -= 1;
        if left.0 == 0 {
            let failed = left.1;
            self.waiting.remove(&host);
            self.host_jobs -= 1;
            self.observer.host_done(host);
            port.host_done(now, host, !failed);
        } else if let Some((owner, plan, epoch)) = self.waiting.get_mut(&host).and_then(VecDeque::pop_front) {
            return self.start_stripe(port, now, owner, plan, epoch, None);
        }
        Ok(())
    }
}

/// What the observer needs of stripe job `id`'s owner.
fn work_of(owner: Owner, id: u32) -> Work {
    match owner {
        Owner::Host { job, op, offset, len } => Work::Host { host: job, op, offset, len },
        Owner::Rebuild(job) => Work::Rebuild { stripe_job: id, bytes: job.bytes() },
    }
}
