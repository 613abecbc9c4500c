//! The array controller's way into the simulation ([`ArrayPort`]): member
//! devices to submit to, the event queue for parity and wake-ups, the host
//! jobs it finished, and the host metrics' phase.

use super::Event;
use crate::array::{ArrayPhase, ArrayPort};
use crate::device::{DeviceRequest, MemberDevice, Remap};
use crate::engine::{EventQueue, Ns};
use crate::error::{Error, Result};
use crate::member::Member;
use crate::metrics::HostMetrics;

/// Schedules the wake member `member` asks for at `now`, if any.
#[inline]
pub(super) fn schedule_wake(queue: &mut EventQueue<Event>, device: &mut Member, member: u32, now: Ns) -> Result<()> {
    if let Some(at) = device.wake_request(now)? {
        queue.schedule(at, Event::MemberWake { member });
    }
    Ok(())
}

/// What the array controller reaches of the simulation: the devices, the
/// event queue, the host jobs it finished (handled after it returns) and
/// the host metrics' phase.
pub(super) struct SimPort<'a> {
    pub members: &'a mut [Member],
    pub queue: &'a mut EventQueue<Event>,
    pub finished_hosts: &'a mut Vec<(Ns, u32, bool)>,
    pub host: &'a mut HostMetrics,
}

impl ArrayPort for SimPort<'_> {
    fn submit(&mut self, now: Ns, member: u32, request: DeviceRequest) -> Result<()> {
        let device = self.members.get_mut(member as usize).ok_or_else(|| Error::Internal(format!("device {member} does not exist")))?;
        if let Some(d) = device.submit(now, request)? {
            self.queue.schedule(d.done_ns, Event::MemberDone { member, token: d.token });
        }
        schedule_wake(self.queue, device, member, now)
    }

    fn parity_ready_at(&mut self, at: Ns, stripe_job: u32) {
        self.queue.schedule(at, Event::ParityReady { stripe_job });
    }

    fn wake_at(&mut self, at: Ns) {
        self.queue.schedule(at, Event::ControllerWake);
    }

    fn host_done(&mut self, now: Ns, host_job: u32, served: bool) {
        self.finished_hosts.push((now, host_job, served));
    }

    fn phase(&mut self, _now: Ns, phase: ArrayPhase) {
        self.host.set_phase(phase);
    }

    fn mirroring_chip_idle(&self, now: Ns, device: u32) -> bool {
        self.members.get(device as usize).is_some_and(|m| m.mirroring_chips_idle(now))
    }

    fn remap(&mut self, device: u32, remap: Remap, offset_bytes: u64, len_bytes: u64) -> Result<()> {
        let member = self.members.get_mut(device as usize).ok_or_else(|| Error::Internal(format!("device {device} does not exist")))?;
        member.remap(remap, offset_bytes, len_bytes)
    }

    fn fail_chip(&mut self, device: u32, chip: u32) -> Result<crate::ftl::ChipLoss> {
        let member = self.members.get_mut(device as usize).ok_or_else(|| Error::Internal(format!("device {device} does not exist")))?;
        member.fail_chip(chip)
    }
}
