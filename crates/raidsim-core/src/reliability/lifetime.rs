//! One array lifetime, event by event: each member's failure drawn from its
//! life distribution (a new member starts at age 0), each failed member
//! rebuilt on its own, unrecoverable read errors drawn when a rebuild must
//! read the survivors with no redundancy left.

use super::channels::Channels;
use super::config::{LifeDistribution, RebuildDistribution, ReliabilityConfig, ReliabilityLevel, ReplacementWear};
use super::wear::Wear;
use rand_distr::{Distribution, Exp, Poisson, Weibull};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What befell one lifetime. Each loss carries the lifetime's likelihood
/// ratio at that instant (1 without importance sampling), by which it
/// counts in the estimates.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The first loss of data of any kind: hours, weight.
    pub first_loss: Option<(f64, f64)>,
    /// The array's loss (failures beyond its tolerance): hours, weight.
    pub array_loss: Option<(f64, f64)>,
    /// Rebuilds that met unrecoverable read errors, weighted.
    pub error_losses: f64,
    /// Rebuilds that met latent sector errors, weighted.
    pub latent_losses: f64,
    /// CR5M: times a data chip and its channel's mirroring chip were down at once.
    pub mirrored_losses: f64,
    /// Bytes lost, weighted: sectors to read errors, and the whole array's data when it is lost.
    pub bytes_lost: f64,
    /// Bytes lost before the array was, unweighted (part of its data when it is lost).
    bytes_lost_before: f64,
    /// Member failures, weighted by the lifetime's likelihood ratio at its end.
    pub failures: f64,
    /// Of those, wear-outs.
    pub wear_outs: f64,
    /// The failure that lost the array was a wear-out.
    pub lost_to_wear_out: bool,
    /// The array was lost to a common-cause event.
    pub lost_to_common_cause: bool,
    /// The likelihood ratio at the lifetime's end (1 without importance
    /// sampling): its mean over lifetimes is 1 when the weights behave.
    pub final_weight: f64,
    /// Run without a horizon, the lifetime had not lost the array after
    /// [`MAX_MEMBER_EVENTS_TO_LOSS`] member-events, and was stopped.
    pub censored: bool,
}

impl Outcome {
    /// The array is lost at `now`, the lifetime's weight then `weight`: all
    /// its data, of which the sectors and pages lost before are part.
    pub(super) fn array_lost(&mut self, now: f64, weight: f64, data_bytes: f64) {
        self.array_loss = Some((now, weight));
        self.first_loss.get_or_insert((now, weight));
        self.bytes_lost += weight * (data_bytes - self.bytes_lost_before).max(0.0);
    }

    /// CR5M at `now`: a data chip and its channel's mirroring chip are down
    /// at once, and the pages mirrored and not yet in parity (`bytes`) with them.
    pub(super) fn mirrored_pages_lost(&mut self, now: f64, chips: u32, bytes: f64) {
        self.mirrored_losses += f64::from(chips);
        self.bytes_lost += f64::from(chips) * bytes;
        self.bytes_lost_before += f64::from(chips) * bytes;
        self.first_loss.get_or_insert((now, 1.0));
    }

    /// A rebuild with no redundancy left reads its survivors whole at `now`:
    /// `survivors` of them counted by their UBER over a new member's, and
    /// `latent` latent errors expected among them; each error met loses
    /// its sector.
    pub(super) fn read_survivors(&mut self, survivors: f64, latent: f64, now: f64, weight: f64, d: &Draws, rng: &mut Xoshiro256PlusPlus) {
        let errors = d.read_errors(survivors, rng);
        let found = if latent > 0.0 { poisson(latent, rng) } else { 0 };
        if errors > 0 {
            self.error_losses += weight;
        }
        if found > 0 {
            self.latent_losses += weight;
        }
        if errors + found > 0 {
            self.bytes_lost += weight * (errors + found) as f64 * d.sector_bytes;
            self.bytes_lost_before += (errors + found) as f64 * d.sector_bytes;
            self.first_loss.get_or_insert((now, weight));
        }
    }
}

/// The most failures and rebuilds a lifetime run to the array's loss may
/// take, times its members (each event looks at every member; about a
/// second): an array whose members wear out in turn, each rebuilt long
/// before the next goes, may take longer than f64 can count.
pub const MAX_MEMBER_EVENTS_TO_LOSS: u64 = 100_000_000;

/// The most failures and rebuilds a lifetime of `shape` run to the loss
/// may take: each scans every member, so the budget is of member-events.
pub(super) fn max_events_to_loss(shape: Shape) -> u64 {
    MAX_MEMBER_EVENTS_TO_LOSS / (u64::from(shape.groups) * u64::from(shape.size)).max(1)
}

/// The random draws of a lifetime, built once per study.
pub(super) struct Draws {
    life: Life,
    /// Each member's hours from new to its wear-out at its first rank
    /// (infinite: never); none when no member wears.
    wear_out_hours: Option<Vec<f64>>,
    wear_out_spread: f64,
    replacement_wear: ReplacementWear,
    /// ln(uber_worn / uber): how a worn member's error rate has grown (0: not).
    uber_growth: f64,
    rebuild: Rebuild,
    /// The first common-cause event of any group (none: they do not happen).
    group_event: Option<Exp<f64>>,
    replacement_hours: f64,
    /// Expected read errors when a rebuild reads one survivor whole.
    errors_per_survivor: f64,
    /// CR5M: the bytes lost when a data chip and its mirroring chip are down at once.
    mirrored_bytes: f64,
    /// Latent errors a member develops per hour, and the hours between its scrubs (0: never).
    latent_per_hour: f64,
    scrub_interval_hours: f64,
    sector_bytes: f64,
    pub(super) data_bytes: f64,
}

enum Life {
    Exponential(Exp<f64>),
    Weibull(Weibull<f64>),
}

enum Rebuild {
    Exponential(Exp<f64>),
    Fixed(f64),
}

impl Draws {
    pub(super) fn new(c: &ReliabilityConfig) -> Option<Self> {
        let life = match c.life {
            LifeDistribution::Exponential => Life::Exponential(Exp::new(1.0 / c.mttf_hours).ok()?),
            LifeDistribution::Weibull => Life::Weibull(Weibull::new(c.weibull_scale_hours, c.weibull_shape).ok()?),
        };
        let rebuild = match c.rebuild {
            RebuildDistribution::Exponential => Rebuild::Exponential(Exp::new(1.0 / c.rebuild_hours).ok()?),
            RebuildDistribution::Fixed => Rebuild::Fixed(c.rebuild_hours),
        };
        let wear_out_hours = match c.wear_out_hours.as_slice() {
            [] => None,
            given => Some(given.iter().map(|&h| if h > 0.0 { h } else { f64::INFINITY }).collect()),
        };
        Some(Self {
            life,
            wear_out_hours,
            wear_out_spread: c.wear_out_spread,
            replacement_wear: c.replacement_wear,
            uber_growth: if c.uber_worn > 0.0 { (c.uber_worn / c.uber).ln() } else { 0.0 },
            rebuild,
            replacement_hours: c.replacement_hours,
            group_event: if c.group_failures_per_hour > 0.0 {
                Some(Exp::new(c.group_failures_per_hour * f64::from(c.groups().0)).ok()?)
            } else {
                None
            },
            errors_per_survivor: c.uber * c.member_capacity_bytes as f64 * 8.0,
            latent_per_hour: c.latent_errors_per_hour,
            mirrored_bytes: c.mirrored_fraction * c.member_capacity_bytes as f64,
            scrub_interval_hours: c.scrub_interval_hours,
            sector_bytes: c.sector_bytes as f64,
            data_bytes: c.data_bytes(),
        })
    }

    /// A member's random life from new, hours (its wear-out is [`Wear`]'s).
    fn random_life(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        match &self.life {
            Life::Exponential(e) => e.sample(rng),
            Life::Weibull(w) => w.sample(rng),
        }
    }

    /// Latent errors expected on a member installed at `installed` and last
    /// read whole by a rebuild at `read_whole`, when it is read at `now`:
    /// those since the later of its last scrub and that read, which found
    /// (and repaired, or lost) the ones before.
    fn latent_errors(&self, installed: f64, read_whole: f64, now: f64) -> f64 {
        let age = now - installed;
        let since_scrub = if self.scrub_interval_hours > 0.0 { age % self.scrub_interval_hours } else { age };
        self.latent_per_hour * since_scrub.min(now - read_whole)
    }

    /// The members' wear, when any wears.
    fn wear(&self) -> Option<Wear> {
        self.wear_out_hours.as_ref().map(|h| Wear::new(h, self.wear_out_spread, self.replacement_wear, self.uber_growth))
    }

    fn rebuild(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        match &self.rebuild {
            Rebuild::Exponential(e) => e.sample(rng),
            Rebuild::Fixed(h) => *h,
        }
    }

    /// Read errors met reading whole members, `survivors` of them counted
    /// by their UBER over a new member's: Poisson, with P(at least one) =
    /// 1 - exp(-UBER x bits read).
    fn read_errors(&self, survivors: f64, rng: &mut Xoshiro256PlusPlus) -> u64 {
        let mean = self.errors_per_survivor * survivors;
        if mean <= 0.0 {
            return 0;
        }
        poisson(mean, rng)
    }
}

/// The array's shape, as loss is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Groups of members that fail independently of each other's redundancy (RAID-10's mirrors; else 1).
    pub groups: u32,
    /// Members in each group.
    pub size: u32,
    /// Failures a group survives.
    pub tolerance: u32,
    /// Hot spares at the start.
    pub spares: u32,
}

/// The array's chips by channel, when its members are the channels of one
/// SSD (CR5); none for arrays of drives.
pub(super) fn channels_of(c: &ReliabilityConfig) -> Option<Channels> {
    let (chips, m) = (c.chips_per_channel as usize, c.members as usize);
    match c.level {
        ReliabilityLevel::Cr5 => Some(Channels::new(m, chips, c.spares, false)),
        ReliabilityLevel::Cr5m => Some(Channels::new(m, chips + 1, c.spares, true)),
        _ => None,
    }
}

/// Per-lifetime state, reused from one lifetime to the next.
pub(super) struct Lifetime {
    shape: Shape,
    /// Each member's next failure, hours (infinite while it is failed).
    fails_at: Vec<f64>,
    /// Each member's random failure, hours (its wear-out may come sooner).
    random_at: Vec<f64>,
    /// Whether its next failure is its wear-out.
    wears_out: Vec<bool>,
    /// Each failed member's rebuild end, hours (infinite while healthy).
    rebuilt_at: Vec<f64>,
    failed_in_group: Vec<u32>,
    /// When each spare used is replenished, hours.
    restocks: Vec<f64>,
    /// The members' wear, when any wears.
    pub(super) wear: Option<Wear>,
    /// When each member's drive was installed, hours (scrubs count from it).
    installed_at: Vec<f64>,
    /// When a rebuild last read each member whole, hours.
    read_whole_at: Vec<f64>,
    /// CR5: the chips by channel (the group's tolerance then counts channels).
    channels: Option<Channels>,
    scratch: Vec<f64>,
}

impl Lifetime {
    pub(super) fn new(shape: Shape, d: &Draws, channels: Option<Channels>) -> Self {
        let n = (shape.groups * shape.size) as usize;
        Self {
            shape,
            fails_at: vec![0.0; n],
            random_at: vec![0.0; n],
            wears_out: vec![false; n],
            rebuilt_at: vec![f64::INFINITY; n],
            failed_in_group: vec![0; shape.groups as usize],
            restocks: Vec::new(),
            wear: d.wear(),
            installed_at: vec![0.0; n],
            read_whole_at: vec![0.0; n],
            channels,
            scratch: Vec::with_capacity(n),
        }
    }

    /// Runs one lifetime up to `horizon_hours` (infinite: to the array's loss).
    pub(super) fn run(&mut self, d: &Draws, horizon_hours: f64, rng: &mut Xoshiro256PlusPlus) -> Outcome {
        if let Some(w) = self.wear.as_mut() {
            w.reset();
        }
        for m in 0..self.fails_at.len() {
            self.random_at[m] = d.random_life(rng);
            if let Some(w) = self.wear.as_mut() {
                w.install(m, 0.0, rng);
            }
            self.next_failure(m);
        }
        self.rebuilt_at.fill(f64::INFINITY);
        self.installed_at.fill(0.0);
        self.read_whole_at.fill(0.0);
        if let Some(c) = self.channels.as_mut() {
            c.reset();
        }
        self.failed_in_group.fill(0);
        self.restocks.clear();
        let mut spares = self.shape.spares;
        let mut out = Outcome { final_weight: 1.0, ..Outcome::default() };
        // A common-cause event fails a whole group, beyond any tolerance: the first one ends the lifetime.
        let common_at = d.group_event.as_ref().map_or(f64::INFINITY, |e| e.sample(rng));
        let mut events = 0u64;
        loop {
            events += 1;
            if horizon_hours.is_infinite() && events > max_events_to_loss(self.shape) {
                out.censored = true;
                return out;
            }
            let (fail_at, failing) = min_at(&self.fails_at);
            let (rebuilt_at, rebuilt) = min_at(&self.rebuilt_at);
            let now = fail_at.min(rebuilt_at);
            if common_at <= now.min(horizon_hours) {
                out.array_lost(common_at, 1.0, d.data_bytes);
                out.lost_to_common_cause = true;
                return out;
            }
            // Infinite: nothing will ever happen (every life drawn past f64's range), even without a horizon.
            if now > horizon_hours || now.is_infinite() {
                return out;
            }
            // Spares that arrived by now are on hand again.
            let before = self.restocks.len();
            self.restocks.retain(|&t| t > now);
            spares += (before - self.restocks.len()) as u32;
            if rebuilt_at <= fail_at {
                self.rebuilt(rebuilt, now, d, rng);
                continue;
            }
            out.failures += 1.0;
            if self.failed(failing, now, d, &mut spares, rng, &mut out) {
                return out;
            }
        }
    }

    /// Member `m`'s next failure: its random one, or its wear-out if sooner.
    fn next_failure(&mut self, m: usize) {
        let worn = self.wear.as_ref().map_or(f64::INFINITY, |w| w.wear_out_at(m));
        (self.fails_at[m], self.wears_out[m]) = if worn < self.random_at[m] { (worn, true) } else { (self.random_at[m], false) };
    }

    fn rebuilt(&mut self, m: usize, now: f64, d: &Draws, rng: &mut Xoshiro256PlusPlus) {
        self.rebuilt_at[m] = f64::INFINITY;
        // A CR5 channel with other chips still down stays degraded.
        if self.channels.as_mut().map_or(true, |c| c.rebuilt(m)) {
            self.failed_in_group[m / self.shape.size as usize] -= 1;
        }
        (self.installed_at[m], self.read_whole_at[m]) = (now, now);
        self.random_at[m] = now + d.random_life(rng);
        let Some(w) = self.wear.as_mut() else {
            return self.next_failure(m);
        };
        w.replaced(m, now, rng);
        if !w.shifts() {
            return self.next_failure(m);
        }
        // The others' rates changed: so did their wear-outs (a member still failed keeps none).
        for i in 0..self.fails_at.len() {
            if self.rebuilt_at[i].is_infinite() {
                self.next_failure(i);
            }
        }
    }

    /// Member `m` fails at `now`: true when the array is lost.
    fn failed(&mut self, m: usize, now: f64, d: &Draws, spares: &mut u32, rng: &mut Xoshiro256PlusPlus, out: &mut Outcome) -> bool {
        let g = m / self.shape.size as usize;
        self.fails_at[m] = f64::INFINITY;
        let (new_failure, chip_spare) = self.channels.as_mut().map_or((true, None), |c| {
            let (new_channel, spare) = c.fail(m);
            (new_channel, Some(spare))
        });
        self.failed_in_group[g] += u32::from(new_failure);
        let exposed = self.channels.as_ref().map_or(0, |c| c.data_chips_losing_mirrored_pages(m));
        if exposed > 0 && d.mirrored_bytes > 0.0 {
            out.mirrored_pages_lost(now, exposed, d.mirrored_bytes);
        }
        out.wear_outs += f64::from(u8::from(self.wears_out[m]));
        if let Some(w) = self.wear.as_mut() {
            if self.wears_out[m] {
                w.wore_out(now, &mut self.scratch);
            }
            w.down(m, now);
        }
        let failed = self.failed_in_group[g];
        if failed > self.shape.tolerance {
            out.array_lost(now, 1.0, d.data_bytes);
            out.lost_to_wear_out = self.wears_out[m];
            return true;
        }
        let start = match chip_spare {
            Some(true) => now,
            // A chip with no spare left on its channel stays down: its channel is degraded for good.
            Some(false) => f64::INFINITY,
            None => self.replacement(now, d, spares),
        };
        self.rebuilt_at[m] = start + d.rebuild(rng);
        // A mirroring chip's copies come back from the data chips, not through parity: no survivor is decoded.
        let decoded = self.channels.as_ref().map_or(true, |c| !c.is_mirror(m));
        if failed == self.shape.tolerance && start.is_finite() && decoded {
            let survivors = self.survivors_read(g, now);
            let latent = self.latent_errors(g, now, d);
            out.read_survivors(survivors, latent, now, 1.0, d, rng);
        }
        if start.is_finite() && d.latent_per_hour > 0.0 {
            self.read_whole(g, now);
        }
        false
    }

    /// A rebuild reads the healthy members of group `g` whole: the latent
    /// errors on them are found, repaired where redundancy is left (lost,
    /// and counted above, where not).
    fn read_whole(&mut self, g: usize, now: f64) {
        for i in healthy(&self.rebuilt_at, self.shape, g) {
            self.read_whole_at[i] = now;
        }
    }

    /// When a rebuild of a drive failed at `now` can start: each failure
    /// orders a drive, which arrives `replacement_hours` later. A spare on
    /// hand starts the rebuild now, and the order restocks the spares;
    /// without one, the rebuild waits for the first drive to arrive, this
    /// order or an earlier one (which then leaves this order to restock).
    fn replacement(&mut self, now: f64, d: &Draws, spares: &mut u32) -> f64 {
        self.restocks.push(now + d.replacement_hours);
        if *spares > 0 {
            *spares -= 1;
            now
        } else {
            let (first, at) = min_at(&self.restocks);
            self.restocks.swap_remove(at);
            first
        }
    }

    /// Latent errors expected on the healthy members of group `g` at `now`.
    fn latent_errors(&self, g: usize, now: f64, d: &Draws) -> f64 {
        if d.latent_per_hour == 0.0 {
            return 0.0;
        }
        healthy(&self.rebuilt_at, self.shape, g).map(|i| d.latent_errors(self.installed_at[i], self.read_whole_at[i], now)).sum()
    }

    /// The healthy members of group `g`, each counted by its UBER at `now`
    /// over a new member's (1 each when error rates do not grow with wear).
    fn survivors_read(&self, g: usize, now: f64) -> f64 {
        if let Some(c) = self.channels.as_ref() {
            return f64::from(c.clean()); // one unit a stripe on each clean channel
        }
        match self.wear.as_ref() {
            Some(w) if w.grows() => healthy(&self.rebuilt_at, self.shape, g).map(|i| w.uber_factor(i, now)).sum(),
            _ => f64::from(self.shape.size - self.failed_in_group[g]),
        }
    }
}

/// The members of group `g` that are up: no rebuild pending. (A CR5 chip
/// down for good has none pending either; CR5 counts its channels apart,
/// `Channels::clean`, and refuses the models that would ask this.)
fn healthy(rebuilt_at: &[f64], shape: Shape, g: usize) -> impl Iterator<Item = usize> + '_ {
    let size = shape.size as usize;
    (g * size..(g + 1) * size).filter(move |&i| rebuilt_at[i].is_infinite())
}

/// A Poisson draw of mean `mean` > 0; past the sampler's range (about
/// 10^19) the draw is its mean, as a Poisson of such a mean is to within a
/// few parts in 10^10.
fn poisson(mean: f64, rng: &mut Xoshiro256PlusPlus) -> u64 {
    match Poisson::new(mean) {
        Ok(p) => p.sample(rng) as u64,
        Err(_) => mean as u64, // saturates at u64::MAX
    }
}

/// The smallest value and its index.
fn min_at(v: &[f64]) -> (f64, usize) {
    v.iter().enumerate().fold((f64::INFINITY, 0), |(best, at), (i, &x)| if x < best { (x, i) } else { (best, at) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reliability::{LifeDistribution, RebuildDistribution, ReliabilityConfig, ReliabilityLevel};
    use rand::SeedableRng;

    #[test]
    fn a_waiting_failure_takes_the_first_drive_to_arrive() {
        // RAID-1 of 3, one spare, drives a week (168 h) away, 1-hour rebuilds. Member 0 fails at 0 and
        // takes the spare (its order restocks at 168); member 1 fails at 10 with none on hand: it takes
        // that restock at 168, not its own drive at 178.
        let c = ReliabilityConfig {
            level: ReliabilityLevel::Raid1,
            members: 3,
            spares: 1,
            replacement_hours: 168.0,
            life: LifeDistribution::Exponential,
            rebuild: RebuildDistribution::Fixed,
            rebuild_hours: 1.0,
            ..ReliabilityConfig::default()
        };
        let d = Draws::new(&c).expect("valid");
        let mut life = Lifetime::new(Shape { groups: 1, size: 3, tolerance: 2, spares: 1 }, &d, None);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let (mut spares, mut out) = (1, Outcome::default());
        assert!(!life.failed(0, 0.0, &d, &mut spares, &mut rng, &mut out));
        assert_eq!((spares, life.rebuilt_at[0]), (0, 1.0), "the spare: rebuilt an hour later");
        assert!(!life.failed(1, 10.0, &d, &mut spares, &mut rng, &mut out));
        assert_eq!(life.rebuilt_at[1], 169.0, "the restock arriving at 168, then an hour");
        assert_eq!(life.restocks, vec![178.0], "its own drive restocks the spares");
    }
}
