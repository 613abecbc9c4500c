//! The array controller: RAID 0/1/10/4/5/6 over member devices.
//!
//! [`geometry`] maps host bytes to member units (Linux md's layouts);
//! [`planner`] turns a request into phases of member operations tagged with
//! their cause; [`count`] runs the planner without timing and gives exact
//! page counts (the stripe-unit paper's Tables 3 and 4 come out of it);
//! [`controller`] executes plans on the members in simulated time;
//! [`rebuild`] reconstructs failed members onto spares; [`mirroring`] is
//! CR5M's mirroring write; [`verify`] checks every byte; [`cache`] is a
//! hardware controller's write-back cache, [`read_ahead`] its read-ahead.

pub mod cache;
pub mod controller;
pub mod count;
pub mod mirroring;
pub mod observer;
pub mod planner;
pub mod read_ahead;
pub mod rebuild;
pub mod trim;
pub mod verify;

pub use crate::config::{ArrayGeometry, UnitCopy};
pub use controller::{ArrayController, ArrayPhase, ArrayPort};
pub use count::{count_pages, MemberPages};
pub use planner::{pages_touched, pages_touched_sum, ArrayState, MemberOp, PlanOptions, Planner, StripePlan, StripeSet};
