//! The timed array controller: executes the planner's stripe plans on the
//! members.
//!
//! A host request is planned into one [`StripePlan`] per stripe it touches.
//! Each stripe runs phase 1 (its reads, issued together), the parity
//! computation (`xor_bytes_per_s`), then phase 2 (its writes, issued
//! together); the host request is done when its last stripe is. Concurrent
//! parity updates of one stripe are serialized by a stripe lock, as in Linux
//! md (a stripe_head is owned by one update at a time). The stripes of one
//! request run in parallel or in order (`array.stripe_order`).
//!
//! The controller sees members and time only through an [`ArrayPort`], so
//! it does not know what kind of device a member is, nor the simulation's
//! event type.

use super::{ArrayGeometry, ArrayState, Planner, StripePlan};
use crate::config::{ArrayConfig, StripeOrder};
use crate::device::{DeviceRequest, Op};
use crate::engine::Ns;
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// What the controller needs of the simulation around it.
pub trait ArrayPort {
    /// Submits `request` to member `member` at `now`; its completion comes
    /// back through [`ArrayController::member_done`] with the request's token.
    fn submit(&mut self, now: Ns, member: u32, request: DeviceRequest) -> Result<()>;
    /// Calls [`ArrayController::parity_ready`] for `stripe_job` at `at`.
    fn parity_ready_at(&mut self, at: Ns, stripe_job: u32);
    /// Host job `host_job` is complete at `now`.
    fn host_done(&mut self, now: Ns, host_job: u32);
}

/// A slab: slots reused so the steady state allocates nothing.
struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Self { slots: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    fn insert(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(v);
                i
            }
            None => {
                self.slots.push(Some(v));
                self.slots.len() as u32 - 1
            }
        }
    }

    fn get_mut(&mut self, i: u32) -> Result<&mut T> {
        self.slots.get_mut(i as usize).and_then(Option::as_mut).ok_or_else(|| not_in_flight(i))
    }

    fn remove(&mut self, i: u32) -> Result<T> {
        let v = self.slots.get_mut(i as usize).and_then(Option::take).ok_or_else(|| not_in_flight(i))?;
        self.free.push(i);
        Ok(v)
    }
}

fn not_in_flight(stripe_job: u32) -> Error {
    Error::Internal(format!("stripe job {stripe_job} is not in flight"))
}

/// One stripe of a host request being executed.
struct StripeJob {
    host: u32,
    plan: StripePlan,
    in_writes: bool,
    outstanding: u32,
}

/// The array controller's run-time state.
pub struct ArrayController {
    planner: Planner,
    state: ArrayState,
    order: StripeOrder,
    overhead_ns: Ns,
    xor_bytes_per_s: u64,
    stripe_jobs: Slab<StripeJob>,
    /// Per host job (indexed by its id): stripes not finished yet.
    stripes_left: Vec<u32>,
    /// Stripes with a parity update in progress, and the stripe jobs waiting for each.
    locks: FxHashMap<u64, VecDeque<u32>>,
    /// Sequential stripe order: each host job's plans not started yet.
    waiting: FxHashMap<u32, VecDeque<StripePlan>>,
    plans: Vec<StripePlan>,
    /// Finished plans, whose buffers the planner reuses.
    pool: Vec<StripePlan>,
}

impl ArrayController {
    /// A controller for `cfg` over members of `member_capacity_bytes` each,
    /// counting pages of `page_bytes`.
    pub fn new(cfg: &ArrayConfig, member_capacity_bytes: u64, page_bytes: u64) -> Result<Self> {
        let geometry = ArrayGeometry::new(cfg, member_capacity_bytes);
        Ok(Self {
            planner: Planner::new(cfg, geometry, page_bytes)?,
            state: ArrayState::new(cfg.members),
            order: cfg.stripe_order,
            overhead_ns: cfg.controller_overhead_ns,
            xor_bytes_per_s: cfg.xor_bytes_per_s,
            stripe_jobs: Slab::default(),
            stripes_left: Vec::new(),
            locks: FxHashMap::default(),
            waiting: FxHashMap::default(),
            plans: Vec::new(),
            pool: Vec::new(),
        })
    }

    /// Time the controller spends on a request before planning it, ns.
    pub fn overhead_ns(&self) -> Ns {
        self.overhead_ns
    }

    /// Member `member` fails: operations already planned run to completion;
    /// later plans avoid it.
    pub fn fail_member(&mut self, member: u32) -> Result<()> {
        let slot = self.state.failed.get_mut(member as usize).ok_or_else(|| Error::Internal(format!("member {member} does not exist")))?;
        *slot = true;
        Ok(())
    }

    /// Plans host job `host` (its overhead spent) and starts its stripes.
    pub fn start_job<P: ArrayPort>(&mut self, port: &mut P, now: Ns, host: u32, op: Op, offset_bytes: u64, len_bytes: u64) -> Result<()> {
        self.plans.clear();
        self.planner.plan_reusing(op, offset_bytes, len_bytes, &mut self.state, &mut self.plans, &mut self.pool)?;
        let h = host as usize;
        if self.stripes_left.len() <= h {
            self.stripes_left.resize(h + 1, 0);
        }
        self.stripes_left[h] = self.plans.len() as u32;
        if self.plans.is_empty() {
            return Err(Error::Internal(format!("host job {host} planned to no stripes")));
        }
        let mut plans = std::mem::take(&mut self.plans);
        match self.order {
            StripeOrder::Parallel => {
                for plan in plans.drain(..) {
                    self.start_stripe(port, now, host, plan)?;
                }
            }
            StripeOrder::Sequential => {
                let mut rest: VecDeque<StripePlan> = plans.drain(..).collect();
                let first = rest.pop_front();
                if !rest.is_empty() {
                    self.waiting.insert(host, rest);
                }
                if let Some(plan) = first {
                    self.start_stripe(port, now, host, plan)?;
                }
            }
        }
        self.plans = plans;
        Ok(())
    }

    /// Starts a stripe job, or queues it behind the stripe's lock.
    fn start_stripe<P: ArrayPort>(&mut self, port: &mut P, now: Ns, host: u32, plan: StripePlan) -> Result<()> {
        let (stripe, locks) = (plan.stripe, plan.updates_parity);
        let id = self.stripe_jobs.insert(StripeJob { host, plan, in_writes: false, outstanding: 0 });
        if locks {
            if let Some(waiters) = self.locks.get_mut(&stripe) {
                waiters.push_back(id);
                return Ok(());
            }
            self.locks.insert(stripe, VecDeque::new());
        }
        self.run_phase(port, now, id, false)
    }

    /// Stripe job `stripe_job` has computed its parity: issue its writes.
    pub fn parity_ready<P: ArrayPort>(&mut self, port: &mut P, now: Ns, stripe_job: u32) -> Result<()> {
        self.run_phase(port, now, stripe_job, true)
    }

    /// Issues the reads (`writes = false`) or writes of a stripe job; moves on when a phase is empty.
    fn run_phase<P: ArrayPort>(&mut self, port: &mut P, now: Ns, id: u32, writes: bool) -> Result<()> {
        let sj = self.stripe_jobs.get_mut(id)?;
        sj.in_writes = writes;
        let ops = if writes { &sj.plan.writes } else { &sj.plan.reads };
        sj.outstanding = ops.len() as u32;
        if ops.is_empty() {
            return self.phase_done(port, now, id);
        }
        for op in ops {
            self.state.outstanding[op.member as usize] += 1;
            let req = DeviceRequest { token: u64::from(id), op: op.op, offset_bytes: op.offset_bytes, len_bytes: op.len_bytes, cause: op.cause };
            port.submit(now, op.member, req)?;
        }
        Ok(())
    }

    /// Member `member` finished a request of stripe job `token`.
    pub fn member_done<P: ArrayPort>(&mut self, port: &mut P, now: Ns, member: u32, token: u64) -> Result<()> {
        let outstanding =
            self.state.outstanding.get_mut(member as usize).ok_or_else(|| Error::Internal(format!("member {member} does not exist")))?;
        *outstanding = outstanding.checked_sub(1).ok_or_else(|| Error::Internal(format!("member {member} finished more than it was given")))?;
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
        if !sj.in_writes {
            let parity = sj.plan.parity_bytes;
            if parity > 0 && self.xor_bytes_per_s > 0 {
                port.parity_ready_at(now + crate::config::transfer_ns(parity, self.xor_bytes_per_s), id);
                return Ok(());
            }
            return self.run_phase(port, now, id, true);
        }
        let sj = self.stripe_jobs.remove(id)?;
        let (host, stripe, locked) = (sj.host, sj.plan.stripe, sj.plan.updates_parity);
        self.pool.push(sj.plan);
        if locked {
            match self.locks.get_mut(&stripe).and_then(VecDeque::pop_front) {
                Some(waiter) => self.run_phase(port, now, waiter, false)?,
                None => {
                    self.locks.remove(&stripe);
                }
            }
        }
        let left = self.stripes_left.get_mut(host as usize).filter(|l| **l > 0);
        let left = left.ok_or_else(|| Error::Internal(format!("host job {host} of a finished stripe is not in flight")))?;
        *left -= 1;
        if *left == 0 {
            self.waiting.remove(&host);
            port.host_done(now, host);
        } else if let Some(plan) = self.waiting.get_mut(&host).and_then(VecDeque::pop_front) {
            self.start_stripe(port, now, host, plan)?;
        }
        Ok(())
    }
}
