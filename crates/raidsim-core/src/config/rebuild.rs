//! Parameters of reconstruction: how a failed member's contents are rebuilt
//! onto a hot spare (`array.spares`), and how the rebuild competes with the
//! host's I/O.
//!
//! Holland & Gibson's disk-oriented reconstruction (DOR) keeps every
//! surviving member busy reading ahead, bounded by a buffer of stripes; the
//! CR5M paper (Luo et al., §3.2) uses it as the baseline its MCR improves
//! on. Stripe-oriented reconstruction (SOR) rebuilds one stripe at a time.
//! The rate limit and idle-only switch are the classic knobs that trade
//! rebuild time against user response during rebuild (Linux md's
//! `speed_limit_max`, and rebuilding in idle time).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How the stripes of a failed member are scheduled for reconstruction.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RebuildPolicy {
    /// Disk-oriented: up to `buffer_stripes` stripes in reconstruction at
    /// once, so each survivor reads ahead of the spare's writes.
    Dor,
    /// Stripe-oriented: one stripe at a time, reads of the next stripe wait
    /// for the previous stripe's write.
    Sor,
    /// `cr5`/`cr5m`: mirroring-assisted channel-level reconstruction (the
    /// CR5M paper's Algorithm 2): DOR's buffer, but strips whose current
    /// data the mirroring chip holds are copied from it last, and skipped
    /// when the host rewrote them meanwhile. With no mirrored strip it is DOR.
    Mcr,
}

/// `[rebuild]`: reconstruction onto hot spares.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RebuildConfig {
    /// Scheduling of stripe reconstructions.
    pub policy: RebuildPolicy,
    /// Time from a failure to the start of its rebuild (a spare being
    /// available), ns.
    pub delay_ns: u64,
    /// DOR: stripes in reconstruction at once (the buffer of Holland's
    /// reader processes). SOR uses 1 whatever this says.
    pub buffer_stripes: u32,
    /// Most reconstructed bytes written to spares per second; 0 = no limit.
    /// It paces stripe *starts*: the i-th stripe (from 0) starts no sooner
    /// than i stripes' bytes at this rate after the first, so over a
    /// rebuild of N stripes that each take less than their slot the
    /// measured `recovery_bytes_per_s` can exceed it by up to N/(N−1).
    pub max_bytes_per_s: u64,
    /// Start a stripe's reconstruction only while no host request is being
    /// served by the array (rebuild in idle time).
    pub only_when_idle: bool,
}

impl Default for RebuildConfig {
    fn default() -> Self {
        Self { policy: RebuildPolicy::Dor, delay_ns: 0, buffer_stripes: 8, max_bytes_per_s: 0, only_when_idle: false }
    }
}

impl RebuildConfig {
    /// Stripes reconstructed at once under the policy.
    pub fn stripes_in_flight(&self) -> u32 {
        match self.policy {
            RebuildPolicy::Dor | RebuildPolicy::Mcr => self.buffer_stripes,
            RebuildPolicy::Sor => 1,
        }
    }

    /// Checks the parameters (`level`: the array's, which `mcr` needs to be cr5/cr5m).
    pub fn validate(&self, level: crate::config::RaidLevel) -> Result<()> {
        if self.policy == RebuildPolicy::Mcr && !level.inside_one_ssd() {
            return Err(Error::config(
                "rebuild.policy",
                format!("\"mcr\" rebuilds a chip of a cr5/cr5m SSD, not a {level:?} member: use \"dor\" or \"sor\""),
            ));
        }
        if self.buffer_stripes == 0 || self.buffer_stripes > 1 << 20 {
            return Err(Error::config("rebuild.buffer_stripes", format!("{}: must lie in 1..=1048576", self.buffer_stripes)));
        }
        Ok(())
    }
}
