//! The arm and the platters: seeks, head switches, rotational waits and
//! sectors passing under the head, track by track.
//!
//! A seek over `x` cylinders takes the fitted curve `a·sqrt(x−1) + b·(x−1) + c`
//! (Chen & Lee, Table 1) or a measured table interpolated linearly (DiskSim's
//! extracted seek curves, `diskmodel/mech_g1_seektime.c`); a move to another
//! cylinder and head takes the longer of the seek and the head switch, and a
//! write adds the settle time to any move (DiskSim's "write settling delay").

use super::layout::{Chs, Layout};
use crate::device::Op;
use crate::engine::Ns;
use crate::error::{Error, Result};

/// How long a seek takes.
#[derive(Clone, Debug)]
pub enum SeekModel {
    /// `a·sqrt(x−1) + b·(x−1) + c`, ns.
    Curve {
        /// The `sqrt` term's factor, ns.
        a: f64,
        /// ns per cylinder.
        b: f64,
        /// The single-cylinder seek, ns.
        c: f64,
    },
    /// Measured `[cylinders, ns]` points, rising in distance from 1.
    Table(Vec<[u64; 2]>),
}

impl SeekModel {
    /// Seek time over `distance` cylinders, ns.
    pub fn seek_ns(&self, distance: u32) -> u64 {
        if distance == 0 {
            return 0;
        }
        match self {
            SeekModel::Curve { a, b, c } => {
                let x = f64::from(distance - 1);
                (a * x.sqrt() + b * x + c).round() as u64
            }
            SeekModel::Table(points) => crate::config::seek_table_ns(points, distance),
        }
    }
}

/// Where the head is: over which cylinder, on which surface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadPosition {
    /// Cylinder.
    pub cylinder: u32,
    /// Head.
    pub head: u32,
}

/// What one pass of the head over a run of sectors took.
#[derive(Clone, Copy, Debug)]
pub struct MediaPass {
    /// When the first sector came under the head.
    pub first_under_head: Ns,
    /// When the last sector passed (or the deadline, if that came first).
    pub media_done_ns: Ns,
    /// The sector after the last one that passed.
    pub reached: u64,
    /// (seek, rotational wait) before the first sector, ns.
    pub lead: (u64, u64),
    /// (seek or head switch, rotational wait) between tracks after it, ns.
    pub within: (u64, u64),
    /// Where the head ended.
    pub head: HeadPosition,
}

/// The moving parts of one disk.
#[derive(Clone, Debug)]
pub struct Mechanism {
    /// The sector map.
    pub layout: Layout,
    seek: SeekModel,
    head_switch_ns: u64,
    write_settle_ns: u64,
    phase_ns: u64,
}

impl Mechanism {
    /// A mechanism over `layout`.
    pub fn new(layout: Layout, seek: SeekModel, head_switch_ns: u64, write_settle_ns: u64, phase_ns: u64) -> Self {
        Self { layout, seek, head_switch_ns, write_settle_ns, phase_ns }
    }

    /// Seek time over `distance` cylinders, ns.
    pub fn seek_ns(&self, distance: u32) -> u64 {
        self.seek.seek_ns(distance)
    }

    /// Time to move the head from `from` to the track of `to` for `op`, ns.
    pub fn move_ns(&self, from: HeadPosition, to: Chs, op: Op) -> u64 {
        let seek = if to.cylinder != from.cylinder { self.seek_ns(to.cylinder.abs_diff(from.cylinder)) } else { 0 };
        let switch = if to.head != from.head { self.head_switch_ns } else { 0 };
        let moving = seek.max(switch);
        if moving > 0 && op == Op::Write {
            moving + self.write_settle_ns
        } else {
            moving
        }
    }

    /// Time from `t` until angle `angle` is under the head, ns.
    pub fn rotational_wait(&self, t: Ns, angle: u64) -> u64 {
        let rev = self.layout.revolution_ns();
        let now = ((u128::from(t) + u128::from(self.phase_ns)) % u128::from(rev)) as u64;
        (angle + rev - now) % rev
    }

    /// Seek plus rotational wait from `from` at `t` until sector `lba` is
    /// under the head, ns.
    pub fn positioning_ns(&self, from: HeadPosition, t: Ns, lba: u64, op: Op) -> u64 {
        let at = self.layout.locate(lba);
        let moving = self.move_ns(from, at, op);
        moving + self.rotational_wait(t.saturating_add(moving), self.layout.angle_ns(at))
    }

    /// Moves the head from `from` over sectors `first..end` from `t`,
    /// track by track, stopping early at `deadline` (a new command stops a
    /// read-ahead): seeks, head switches, rotational waits and transfer.
    pub fn pass(&self, from: HeadPosition, mut t: Ns, first: u64, end: u64, op: Op, deadline: Ns) -> Result<MediaPass> {
        let later = |t: Ns, d: u64| t.checked_add(d).ok_or_else(|| Error::Device(format!("a disk request runs past 2^64 ns (at {t} ns)")));
        let mut pass = MediaPass { first_under_head: t, media_done_ns: t, reached: first, lead: (0, 0), within: (0, 0), head: from };
        let mut lba = first;
        while lba < end && t < deadline {
            let at = self.layout.locate(lba);
            let run = (at.sectors_per_track - at.sector).min(end - lba);
            let moving = self.move_ns(pass.head, at, op);
            let wait = self.rotational_wait(later(t, moving)?, self.layout.angle_ns(at));
            let arrive = later(t, moving + wait)?;
            if arrive >= deadline {
                break;
            }
            t = arrive;
            let part = if lba == first {
                pass.first_under_head = t;
                &mut pass.lead
            } else {
                &mut pass.within
            };
            (part.0, part.1) = (part.0 + moving, part.1 + wait);
            pass.head = HeadPosition { cylinder: at.cylinder, head: at.head };
            let sweep = self.layout.sweep_ns(at, run);
            if later(t, sweep)? > deadline {
                // Only whole sectors count as read.
                let done = self.sectors_by(at, run, deadline - t);
                t = later(t, self.layout.sweep_ns(at, done))?;
                lba += done;
                break;
            }
            t = later(t, sweep)?;
            lba += run;
        }
        pass.media_done_ns = t;
        pass.reached = lba;
        Ok(pass)
    }

    /// Whole sectors of a run of `run` from `at` that pass in `span` ns.
    fn sectors_by(&self, at: Chs, run: u64, span: u64) -> u64 {
        let (mut lo, mut hi) = (0, run);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.layout.sweep_ns(at, mid) <= span {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }
}
