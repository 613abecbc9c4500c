//! The parameters of a reliability study: the array's redundancy, how its
//! members fail, how long a rebuild takes, unrecoverable read errors, and
//! the Monte Carlo's size. Every key is declared once, with its unit.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The redundancy of the array, as loss is concerned.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReliabilityLevel {
    /// Striping only: any failure loses data.
    Raid0,
    /// Every member a copy of the others: data is lost when all fail.
    Raid1,
    /// One parity (RAID-4 or RAID-5): two members failed at once lose data.
    Raid5,
    /// Two parities (Reed-Solomon, EVENODD, RDP: any code of distance 3).
    Raid6,
    /// Mirrored groups of `copies` members, striped: data is lost when every
    /// member of one group has failed.
    Raid10,
    /// RAID-5 across the `members` channels of one SSD (Pan & Xie 2018),
    /// each of `chips_per_channel` chips: `mttf_hours` and
    /// `member_capacity_bytes` are a chip's, `spares` are spare chips per
    /// channel, and data is lost when chips of two channels are down at once.
    Cr5,
    /// CR5 with a mirroring chip on each channel besides its
    /// `chips_per_channel` data chips (Pan & Xie 2018, "CR5M"): the pages
    /// mirrored and not yet in parity (`mirrored_fraction` of a data chip's)
    /// are lost when a data chip and its channel's mirroring chip are down
    /// at once.
    Cr5m,
}

impl ReliabilityLevel {
    /// True when the members are the channels of one SSD and fail chip by chip.
    pub fn inside_one_ssd(self) -> bool {
        matches!(self, Self::Cr5 | Self::Cr5m)
    }

    /// The level as a study file names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Raid0 => "raid0",
            Self::Raid1 => "raid1",
            Self::Raid5 => "raid5",
            Self::Raid6 => "raid6",
            Self::Raid10 => "raid10",
            Self::Cr5 => "cr5",
            Self::Cr5m => "cr5m",
        }
    }
}

/// How long a member lives.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LifeDistribution {
    /// Exponential with mean `mttf_hours`: a constant failure rate.
    #[default]
    Exponential,
    /// Weibull with `weibull_shape` and `weibull_scale_hours` (shape > 1:
    /// wear-out, the rate grows with age; < 1: infant mortality).
    Weibull,
}

/// How long a rebuild takes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RebuildDistribution {
    /// Exponential with mean `rebuild_hours` (the Markov models' assumption).
    #[default]
    Exponential,
    /// Always `rebuild_hours`.
    Fixed,
}

/// Which wear rate a member's replacement takes (see `reliability::wear`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplacementWear {
    /// The rate of the member it replaces: its slot's share of the writes
    /// stays with the slot (RAID-4's parity member, a Diff-RAID array that
    /// never reshuffles).
    #[default]
    SameSlot,
    /// Diff-RAID's parity-shifting replacement: the replacement takes the
    /// slowest rate, and every member that wore slower than the one replaced
    /// moves up one rate, so the oldest member always ages fastest.
    Shift,
}

/// A reliability study (`raidsim reliability`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ReliabilityConfig {
    /// The array's redundancy.
    pub level: ReliabilityLevel,
    /// Members of the array (hot spares not included).
    pub members: u32,
    /// RAID-10: members in each mirrored group (the array has
    /// `members / copies` groups).
    pub copies: u32,
    /// `cr5`/`cr5m`: data chips on each channel (the members are the
    /// channels; `cr5m` adds a mirroring chip to each).
    pub chips_per_channel: u32,
    /// `cr5m`: the share of a data chip's pages whose newest version is
    /// mirrored and not yet folded into parity at any time (a CR5M run's
    /// mirrored pages over its data pages), lost when the chip and its
    /// channel's mirroring chip are down at once.
    pub mirrored_fraction: f64,
    /// Bytes each member holds: what a rebuild reads from each survivor.
    pub member_capacity_bytes: u64,
    /// Hot spares on hand at the start: a rebuild onto one starts at once.
    pub spares: u32,
    /// When a rebuild needs a drive and no spare is on hand, the wait for a
    /// new one, hours; a spare used is also replenished after this long.
    pub replacement_hours: f64,
    /// The members' life distribution.
    pub life: LifeDistribution,
    /// Exponential life: the mean time to failure, hours.
    pub mttf_hours: f64,
    /// Weibull life: the shape (> 0).
    pub weibull_shape: f64,
    /// Weibull life: the scale, hours (> 0).
    pub weibull_scale_hours: f64,
    /// Wear-out: each member's hours from new to its rated P/E cycles
    /// under the workload (`raidsim endurance` projects them from a run;
    /// `raidsim reliability --from-run` reads them off one), one per member
    /// in member order, 0 for a member that does not wear; empty: no
    /// wear-out. A member fails at the earlier of its random life and its
    /// wear-out; its replacement starts new when its rebuild ends, wearing
    /// at the rate `replacement_wear` gives it.
    pub wear_out_hours: Vec<f64>,
    /// Wear-out is no sharp instant: each member's is drawn uniformly
    /// within ± this fraction of its `wear_out_hours` (0: exactly then).
    pub wear_out_spread: f64,
    /// Which wear rate a replacement takes: its slot's, or the slowest with
    /// the others shifted up (Diff-RAID).
    pub replacement_wear: ReplacementWear,
    /// Common-cause events per group of members per hour (a Poisson
    /// process; 0: none): each fails every member of one group at once, as
    /// a shared enclosure, power or firmware fault or a bad batch does
    /// (field studies find failures correlated within RAID groups: Schroeder
    /// & Gibson, FAST'07; Maneas et al., FAST'20). A β-factor model (IEC
    /// 61508) sets it to β / `mttf_hours` and `mttf_hours` to the members'
    /// own mean life over (1 − β).
    pub group_failures_per_hour: f64,
    /// The rebuild's duration distribution.
    pub rebuild: RebuildDistribution,
    /// The mean (exponential) or the (fixed) rebuild duration, hours: from
    /// a member's failure (or a replacement's arrival) to its redundancy
    /// restored. Each failed member is rebuilt on its own, at once.
    pub rebuild_hours: f64,
    /// Unrecoverable bit errors per bit read (0: none), of a new member; a
    /// rebuild that reads the survivors without redundancy left loses a
    /// sector per error.
    pub uber: f64,
    /// UBER of a member at its rated P/E cycles (its wear-out): a member
    /// `x` of the way there reads with `uber × (uber_worn / uber)^x`, error
    /// rates growing exponentially with wear; 0: no growth.
    pub uber_worn: f64,
    /// Latent sector errors each member develops per hour (a Poisson
    /// process; 0: none): sectors gone bad unnoticed, found and repaired by
    /// the next scrub while redundancy is there, lost when a rebuild without
    /// redundancy left reads them first (Bairavasundaram et al., SIGMETRICS
    /// 2007; Elerath & Pecht, IEEE Trans. Computers 2009).
    pub latent_errors_per_hour: f64,
    /// Hours between two scrubs of a member, from its installation (0: never
    /// scrubbed, its latent errors stay until it is replaced).
    pub scrub_interval_hours: f64,
    /// Bytes one unrecoverable or latent error loses.
    pub sector_bytes: u64,
    /// The service life simulated, years (of 8,766 hours).
    pub mission_years: u32,
    /// Array lifetimes simulated.
    pub lifetimes: u64,
    /// Lifetimes run to the array's loss, without a mission bound, to
    /// estimate the mean time to data loss (0: none).
    pub mttdl_lifetimes: u64,
    /// Importance sampling: while a member is being rebuilt, the chance
    /// given to the next event being a failure (balanced failure biasing,
    /// each lifetime weighted by its likelihood ratio), so that rare losses
    /// are seen often; 0: off. Exponential life and rebuild, no
    /// replacement wait, no spares limit.
    pub failure_biasing: f64,
    /// Seed of the random streams.
    pub seed: u64,
}

impl Default for ReliabilityConfig {
    fn default() -> Self {
        Self {
            level: ReliabilityLevel::Raid5,
            members: 8,
            copies: 2,
            chips_per_channel: 4,
            mirrored_fraction: 0.0,
            member_capacity_bytes: 4_000_000_000_000,
            spares: 0,
            replacement_hours: 0.0,
            life: LifeDistribution::Exponential,
            mttf_hours: 1_500_000.0,
            weibull_shape: 1.0,
            weibull_scale_hours: 1_500_000.0,
            wear_out_hours: Vec::new(),
            wear_out_spread: 0.1,
            replacement_wear: ReplacementWear::SameSlot,
            group_failures_per_hour: 0.0,
            rebuild: RebuildDistribution::Exponential,
            rebuild_hours: 24.0,
            uber: 1e-17,
            uber_worn: 0.0,
            latent_errors_per_hour: 0.0,
            scrub_interval_hours: 0.0,
            sector_bytes: 4096,
            mission_years: 5,
            lifetimes: 1_000_000,
            mttdl_lifetimes: 0,
            failure_biasing: 0.0,
            seed: 1,
        }
    }
}

/// Hours in a year of 365.25 days.
pub const HOURS_PER_YEAR: f64 = 8_766.0;

/// The most member failures a lifetime may expect for importance sampling
/// to be offered (see `validate_biasing`).
pub const MAX_BIASED_FAILURES: f64 = 1.0;

/// The most lifetimes one study runs: a run past it would take hours.
pub const MAX_LIFETIMES: u64 = 1_000_000_000;

fn positive(key: &str, v: f64) -> Result<()> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(Error::config(key, format!("{v} must be a finite number > 0")))
    }
}

impl ReliabilityConfig {
    /// Checks every parameter, naming the key of the first that is wrong.
    pub fn validate(&self) -> Result<()> {
        self.validate_array()?;
        match self.life {
            LifeDistribution::Exponential => positive("mttf_hours", self.mttf_hours)?,
            LifeDistribution::Weibull => {
                positive("weibull_shape", self.weibull_shape)?;
                positive("weibull_scale_hours", self.weibull_scale_hours)?;
            }
        }
        positive("rebuild_hours", self.rebuild_hours)?;
        self.validate_wear_out()?;
        if !(self.replacement_hours >= 0.0 && self.replacement_hours.is_finite()) {
            return Err(Error::config("replacement_hours", format!("{} must be a finite number >= 0", self.replacement_hours)));
        }
        if !(0.0..1.0).contains(&self.uber) {
            return Err(Error::config("uber", format!("{} must lie in [0, 1): errors per bit read", self.uber)));
        }
        if self.uber_worn != 0.0 && !(self.uber_worn >= self.uber && self.uber_worn < 1.0 && self.uber > 0.0) {
            return Err(Error::config(
                "uber_worn",
                format!("{} must lie in [uber, 1) with uber > 0 (uber = {}), or be 0 (no growth)", self.uber_worn, self.uber),
            ));
        }
        if !(self.group_failures_per_hour >= 0.0 && self.group_failures_per_hour.is_finite()) {
            return Err(Error::config("group_failures_per_hour", format!("{} must be a finite number >= 0", self.group_failures_per_hour)));
        }
        if !(0.0..=1.0).contains(&self.latent_errors_per_hour) {
            return Err(Error::config(
                "latent_errors_per_hour",
                format!("{} must lie in [0, 1]: a sector gone bad per member per hour is past any drive observed", self.latent_errors_per_hour),
            ));
        }
        if !(self.scrub_interval_hours >= 0.0 && self.scrub_interval_hours.is_finite()) {
            return Err(Error::config("scrub_interval_hours", format!("{} must be a finite number >= 0 (0: never)", self.scrub_interval_hours)));
        }
        if self.sector_bytes == 0 {
            return Err(Error::config("sector_bytes", "must be at least 1"));
        }
        if self.mission_years == 0 || self.mission_years > 100 {
            return Err(Error::config("mission_years", format!("{} must lie in 1..=100", self.mission_years)));
        }
        if self.lifetimes == 0 || self.lifetimes > MAX_LIFETIMES {
            return Err(Error::config("lifetimes", format!("{} must lie in 1..={MAX_LIFETIMES}", self.lifetimes)));
        }
        if self.mttdl_lifetimes == 1 || self.mttdl_lifetimes > MAX_LIFETIMES {
            return Err(Error::config(
                "mttdl_lifetimes",
                format!("{} must be 0 (none) or lie in 2..={MAX_LIFETIMES}: an interval needs two lifetimes", self.mttdl_lifetimes),
            ));
        }
        self.validate_biasing()
    }

    fn validate_array(&self) -> Result<()> {
        let least = match self.level {
            ReliabilityLevel::Raid0 => 1,
            ReliabilityLevel::Raid1 | ReliabilityLevel::Raid5 => 2,
            ReliabilityLevel::Raid6 => 3,
            ReliabilityLevel::Raid10 => 2,
            ReliabilityLevel::Cr5 | ReliabilityLevel::Cr5m => 2,
        };
        if self.members < least || self.members > 4096 {
            return Err(Error::config("members", format!("{} members: {} needs {least} to 4096", self.members, self.level.name())));
        }
        if self.level == ReliabilityLevel::Raid10 && (self.copies < 2 || self.members % self.copies != 0) {
            return Err(Error::config("copies", format!("{} copies: RAID-10 needs at least 2, dividing members ({})", self.copies, self.members)));
        }
        if self.member_capacity_bytes == 0 {
            return Err(Error::config("member_capacity_bytes", "must be at least 1"));
        }
        if self.level.inside_one_ssd() {
            self.validate_cr5()?;
        }
        Ok(())
    }

    fn validate_cr5(&self) -> Result<()> {
        if self.chips_per_channel == 0 || u64::from(self.chips_per_channel) * u64::from(self.members) > 1 << 20 {
            return Err(Error::config("chips_per_channel", format!("{} must lie in 1..: at most 2^20 chips in all", self.chips_per_channel)));
        }
        if !(0.0..=1.0).contains(&self.mirrored_fraction) {
            return Err(Error::config("mirrored_fraction", format!("{} must lie in [0, 1]", self.mirrored_fraction)));
        }
        let why = if self.replacement_hours > 0.0 {
            Some(("replacement_hours", "a chip inside an SSD is never replaced: give spare chips per channel (spares)"))
        } else if !self.wear_out_hours.is_empty() {
            Some(("wear_out_hours", "wear-out of chips inside one SSD is not modelled"))
        } else if self.latent_errors_per_hour > 0.0 {
            Some(("latent_errors_per_hour", "latent errors of chips inside one SSD are not modelled"))
        } else {
            None
        };
        match why {
            Some((key, why)) => Err(Error::config(key, format!("level = \"{}\": {why}", self.level.name()))),
            None => Ok(()),
        }
    }

    fn validate_wear_out(&self) -> Result<()> {
        if !(0.0..1.0).contains(&self.wear_out_spread) {
            return Err(Error::config("wear_out_spread", format!("{} must lie in [0, 1)", self.wear_out_spread)));
        }
        if self.wear_out_hours.is_empty() {
            return Ok(());
        }
        if self.wear_out_hours.len() != self.members as usize {
            return Err(Error::config(
                "wear_out_hours",
                format!("{} values for {} members: give one per member (0 for a member that does not wear)", self.wear_out_hours.len(), self.members),
            ));
        }
        if let Some(i) = self.wear_out_hours.iter().position(|h| !(*h >= 0.0 && h.is_finite())) {
            return Err(Error::config(format!("wear_out_hours[{i}]"), format!("{} must be a finite number >= 0", self.wear_out_hours[i])));
        }
        if self.replacement_wear == ReplacementWear::Shift {
            if self.level == ReliabilityLevel::Raid0 {
                return Err(Error::config("replacement_wear", "\"shift\" moves rates on a replacement, and RAID-0 is lost at its first failure"));
            }
            if let Some(i) = self.wear_out_hours.iter().position(|&h| h == 0.0) {
                return Err(Error::config(
                    format!("wear_out_hours[{i}]"),
                    "0 (a member that never wears) with replacement_wear = \"shift\", which passes each rate on to another member: \
                     give every member its hours, or keep each slot's rate (\"same_slot\")",
                ));
            }
        }
        Ok(())
    }

    fn validate_biasing(&self) -> Result<()> {
        if self.failure_biasing == 0.0 {
            return Ok(());
        }
        if !(self.failure_biasing > 0.0 && self.failure_biasing < 1.0) {
            return Err(Error::config("failure_biasing", format!("{} must lie in (0, 1), or be 0 (off)", self.failure_biasing)));
        }
        let why = if self.life != LifeDistribution::Exponential {
            Some("life = \"exponential\"")
        } else if self.rebuild != RebuildDistribution::Exponential {
            Some("rebuild = \"exponential\"")
        } else if self.replacement_hours > 0.0 {
            Some("replacement_hours = 0")
        } else if !self.wear_out_hours.is_empty() {
            Some("no wear_out_hours")
        } else if self.level.inside_one_ssd() {
            Some("a level other than cr5 and cr5m (their chains count channels, not members)")
        } else if self.group_failures_per_hour > 0.0 {
            Some("group_failures_per_hour = 0 (a common-cause event is no rare path to bias towards)")
        } else if self.latent_errors_per_hour > 0.0 {
            Some("latent_errors_per_hour = 0 (latent errors depend on when each member was last scrubbed)")
        } else {
            None
        };
        if let Some(need) = why {
            return Err(Error::config(
                "failure_biasing",
                format!("weights a Markov chain's transitions, so it needs {need}; set failure_biasing = 0 to simulate this array as it is"),
            ));
        }
        // Every rebuild under biasing multiplies a lifetime's weight by about 1 / (1 - failure_biasing): over
        // lifetimes with many failures the weights scatter over orders of magnitude and the estimate, though
        // unbiased, is mostly far too low with an interval that does not know it.
        let failures = f64::from(self.members) * f64::from(self.mission_years) * HOURS_PER_YEAR / self.mttf_hours;
        if failures > MAX_BIASED_FAILURES {
            return Err(Error::config(
                "failure_biasing",
                format!(
                    "each lifetime sees about {failures:.1} member failures (members × mission / mttf_hours), and biasing \
                     weights every rebuild, so the weights would scatter and the estimate mislead; losses this frequent \
                     need no biasing: set failure_biasing = 0"
                ),
            ));
        }
        Ok(())
    }

    /// The mirrored groups (or the one group) the members form: how many, of
    /// how many members, each surviving how many failures.
    pub fn groups(&self) -> (u32, u32, u32) {
        match self.level {
            ReliabilityLevel::Raid0 => (1, self.members, 0),
            ReliabilityLevel::Raid1 => (1, self.members, self.members - 1),
            ReliabilityLevel::Raid5 => (1, self.members, 1),
            ReliabilityLevel::Raid6 => (1, self.members, 2),
            ReliabilityLevel::Raid10 => (self.members / self.copies, self.copies, self.copies - 1),
            // One group of every chip; its tolerance counts channels (`reliability::channels`).
            ReliabilityLevel::Cr5 => (1, self.members * self.chips_per_channel, 1),
            ReliabilityLevel::Cr5m => (1, self.members * (self.chips_per_channel + 1), 1),
        }
    }

    /// Bytes of user data the array holds: what losing it loses.
    pub fn data_bytes(&self) -> f64 {
        let (groups, size, tolerance) = self.groups();
        let data_members = match self.level {
            ReliabilityLevel::Raid1 | ReliabilityLevel::Raid10 => groups,
            ReliabilityLevel::Cr5 | ReliabilityLevel::Cr5m => (self.members - 1) * self.chips_per_channel,
            _ => size - tolerance,
        };
        f64::from(data_members) * self.member_capacity_bytes as f64
    }
}
