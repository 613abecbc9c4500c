//! Parameters of one hard disk: geometry, rotation, seek profile, queue.
//!
//! The defaults are the IBM 0661 "Lightning" 3.5" SCSI disk of Chen & Lee
//! 1995, Table 1 (the striping paper's default disk), over the whole disk.

use crate::engine::MAX_DURATION_NS;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The default disk's revolution (IBM 0661 Lightning, Chen & Lee Table 1), ns.
pub const DEFAULT_REVOLUTION_NS: u64 = 13_900_000;

/// Slowest interface the model takes, ns per sector: one second (a disk's
/// is microseconds), so that no request's transfer time can overflow.
pub const MAX_INTERFACE_SECTOR_NS: u64 = 1_000_000_000;

/// Cylinders of one recording zone, all with the same sectors per track.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HddZone {
    /// Cylinders in the zone.
    pub cylinders: u32,
    /// Sectors on each track of the zone.
    pub sectors_per_track: u32,
    /// Sectors by which each track's first sector is rotated from the
    /// previous track's of the same cylinder (DiskSim's "skew for track
    /// switch"); absent: the head switch time's worth of rotation.
    #[serde(default)]
    pub track_skew_sectors: Option<u32>,
    /// Sectors by which a cylinder's first track is rotated from the
    /// previous cylinder's last (DiskSim's "skew for cylinder switch");
    /// absent: the single-cylinder seek's worth of rotation.
    #[serde(default)]
    pub cylinder_skew_sectors: Option<u32>,
    /// Sectors at the zone's end held back as spares: no logical sector
    /// maps to them (DiskSim's sectors-per-zone sparing; a whole spare
    /// cylinder between zones is its sectors here).
    #[serde(default)]
    pub spare_sectors: u64,
    /// Sectors at the zone's front that no logical sector maps to (DiskSim's
    /// "empty space at zone front"): the zone's first logical sector lies
    /// this many sectors in.
    #[serde(default)]
    pub front_spare_sectors: u64,
}

/// Which queued request a disk serves next.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueuePolicy {
    /// First come, first served (Chen & Lee's raidSim; DiskSim's FCFS).
    Fcfs,
    /// Shortest seek (cylinder distance) first; ties to the oldest.
    Sstf,
    /// Circular LOOK: the nearest request at or beyond the head's cylinder
    /// in ascending order, wrapping to the lowest.
    CLook,
    /// Shortest positioning time first: the request whose first sector the
    /// head reaches soonest (seek, then rotational wait from the platter's
    /// angle when the seek ends); ties to the oldest.
    Sptf,
}

/// The command overheads of a drive's controller, ns, by what the command
/// is and what the previous one was (DiskSim's eight "... over. after ..."
/// parameters). A read hit is served wholly from the on-board cache; a
/// write hit is one the cache takes at once (a fast write); a miss needs
/// the mechanism. All 0: only `overhead_ns` applies.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HddCommandOverhead {
    /// Read served from the cache, after a read, ns.
    pub read_hit_after_read_ns: u64,
    /// Read served from the cache, after a write, ns.
    pub read_hit_after_write_ns: u64,
    /// Read that needs the media, after a read, ns (before positioning).
    pub read_miss_after_read_ns: u64,
    /// Read that needs the media, after a write, ns.
    pub read_miss_after_write_ns: u64,
    /// Write taken by the cache (fast write), after a read, ns.
    pub write_hit_after_read_ns: u64,
    /// Write taken by the cache, after a write, ns.
    pub write_hit_after_write_ns: u64,
    /// Write that goes to the media before it completes, after a read, ns.
    pub write_miss_after_read_ns: u64,
    /// Write that goes to the media before it completes, after a write, ns.
    pub write_miss_after_write_ns: u64,
}

/// Where a drive's read-ahead stops.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadAheadUntil {
    /// `read_ahead_sectors` past the read's end.
    Sectors,
    /// The end of the track that holds the sector after the read, or of the
    /// track after it when the read began on an earlier track (DiskSim's
    /// "buffer continuous read" scheme 4, after DEC's drives);
    /// `read_ahead_sectors` must be 0.
    TrackEnd,
}

/// The drive's on-board buffer: segments that hold what was read (and read
/// ahead) and what was written, as DiskSim's disk cache does.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HddCacheConfig {
    /// false: the drive runs without its cache, whatever the rest of this
    /// table says (to compare a drive with its cache on and off).
    pub enabled: bool,
    /// Buffer segments; 0 = no cache (every request goes to the media).
    pub segments: u32,
    /// Sectors per segment.
    pub segment_sectors: u64,
    /// Segments that may hold written data not yet on the media; 0 = all.
    pub max_write_segments: u32,
    /// After a read from the media, keep reading this many sectors past its
    /// end into its segment, until a new command arrives or the segment is
    /// full; 0 = no read-ahead.
    pub read_ahead_sectors: u64,
    /// Where read-ahead stops (besides a new command and a full segment).
    pub read_ahead_until: ReadAheadUntil,
    /// Read ahead only after a read that starts where the previous read
    /// ended (a sequential stream is under way), not after every read.
    pub read_ahead_on_streams_only: bool,
    /// Acknowledge a write once its data is in a segment and write it to
    /// the media later (write-back, DiskSim's fast write); false: a write
    /// completes when its last sector is on the media.
    pub fast_write: bool,
    /// A write that continues a segment's unwritten data joins it, and the
    /// two reach the media as one write (DiskSim's "combine seq writes").
    pub combine_writes: bool,
    /// A read of data written and still in a segment is a hit.
    pub read_hits_on_write_data: bool,
}

impl Default for HddCacheConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            segments: 0,
            segment_sectors: 0,
            max_write_segments: 0,
            read_ahead_sectors: 0,
            read_ahead_until: ReadAheadUntil::Sectors,
            read_ahead_on_streams_only: false,
            fast_write: false,
            combine_writes: false,
            read_hits_on_write_data: false,
        }
    }
}

/// One hard disk.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HddConfig {
    /// Bytes per sector (the disk's addressing unit).
    pub bytes_per_sector: u32,
    /// Sectors on every track, when `zones` is empty.
    pub sectors_per_track: u32,
    /// Recording zones from the outermost cylinder inward, each with its own
    /// sectors per track; their cylinders must add up to `cylinders`. Empty:
    /// one zone of `sectors_per_track` (Chen & Lee model no zones).
    pub zones: Vec<HddZone>,
    /// Tracks per cylinder (recording heads).
    pub tracks_per_cylinder: u32,
    /// Cylinders on the disk.
    pub cylinders: u32,
    /// Use only the first this many bytes of the disk (Chen & Lee use the
    /// first 300 MB of each disk); 0 = the whole disk.
    pub capacity_limit_bytes: u64,
    /// Time of one revolution, ns; 0 = derive it from `rpm`. A layer that
    /// sets one of `revolution_ns` and `rpm` replaces the other an earlier
    /// layer (a preset) set; neither: 13.9 ms, the default disk's.
    pub revolution_ns: u64,
    /// Spindle speed, revolutions per minute; 0 = use `revolution_ns`.
    pub rpm: f64,
    /// Seek time over one cylinder, ns (the fitted curve's `c`).
    pub single_cylinder_seek_ns: u64,
    /// Mean seek time between two uniformly random cylinders of the whole
    /// disk, ns.
    pub average_seek_ns: u64,
    /// Seek time from the first cylinder to the last, ns.
    pub max_seek_ns: u64,
    /// Measured seek times as `[cylinders, ns]` pairs by rising distance,
    /// the first at 1 cylinder, interpolated linearly between (and past the
    /// last, extrapolated), as DiskSim's extracted seek curves; empty = the
    /// curve fitted to the three seek times above (which, with a table, are
    /// kept for reference only).
    pub seek_table: Vec<[u64; 2]>,
    /// Added to every seek or head switch before a write (the head settles
    /// on the track before it may write), ns.
    pub write_settle_ns: u64,
    /// Switching to another head of the same cylinder, ns (tracks are skewed
    /// by this much, so sequential transfer loses only the switch).
    pub head_switch_ns: u64,
    /// Fixed time per request before positioning (command decode), ns.
    pub overhead_ns: u64,
    /// Command overheads by hit or miss and by the previous command.
    pub command_overhead: HddCommandOverhead,
    /// The on-board buffer (off by default, as in Chen & Lee's raidSim).
    pub cache: HddCacheConfig,
    /// Time to move one sector between the disk's buffer and the host over
    /// its interface, ns (DiskSim's "bulk sector transfer time"); 0 = the
    /// interface never holds the media back. A request's data streams over
    /// the interface from the moment its first sector passes under the head,
    /// so a request ends no sooner than that instant plus this time per
    /// sector: a slow interface, not the media, then sets the transfer time.
    pub interface_sector_transfer_ns: u64,
    /// A request that starts where the previous one ended, of the same
    /// direction and dispatched as that one finishes, continues its transfer
    /// without overhead or positioning, as one larger request would (Chen &
    /// Lee §3.3: on-disk merging of requests to adjacent blocks).
    pub merge_adjacent: bool,
    /// All disks of an array spin in phase (sector 0 passes under every
    /// head at once; Chen & Lee); false: each disk's phase is drawn from
    /// the run's seed.
    pub synchronized_spindles: bool,
    /// Order in which queued requests are served.
    pub queue_policy: QueuePolicy,
    /// Purchase price of one disk, US dollars, for the report's cost
    /// efficiency; 0 = unpriced.
    pub price_usd: f64,
}

impl Default for HddConfig {
    // IBM 0661 Lightning, Chen & Lee 1995 Table 1.
    fn default() -> Self {
        Self {
            bytes_per_sector: 512,
            sectors_per_track: 48,
            zones: Vec::new(),
            tracks_per_cylinder: 14,
            cylinders: 949,
            capacity_limit_bytes: 0,
            revolution_ns: 0,
            rpm: 0.0,
            single_cylinder_seek_ns: 2_000_000,
            average_seek_ns: 12_500_000,
            max_seek_ns: 25_000_000,
            seek_table: Vec::new(),
            write_settle_ns: 0,
            head_switch_ns: 0,
            overhead_ns: 0,
            command_overhead: HddCommandOverhead::default(),
            cache: HddCacheConfig::default(),
            interface_sector_transfer_ns: 0,
            merge_adjacent: true,
            synchronized_spindles: true,
            queue_policy: QueuePolicy::Fcfs,
            price_usd: 0.0,
        }
    }
}

/// Quantities derived from a disk's parameters during validation.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HddGeometry {
    /// Bytes per sector.
    pub bytes_per_sector: u64,
    /// Sectors on the whole disk.
    pub disk_sectors: u64,
    /// Sectors used (the capacity limit applied).
    pub sectors: u64,
    /// Bytes used.
    pub capacity_bytes: u64,
    /// Cylinders that hold used sectors.
    pub cylinders_used: u32,
    /// One revolution, ns.
    pub revolution_ns: u64,
    /// Seek curve `a·sqrt(x−1) + b·(x−1) + c` for a seek of `x ≥ 1`
    /// cylinders, ns: `a`.
    pub seek_a_ns: f64,
    /// The curve's `b`, ns per cylinder.
    pub seek_b_ns: f64,
    /// The curve's `c` (single-cylinder seek), ns.
    pub seek_c_ns: f64,
    /// Media transfer rate averaged over the used cylinders (sectors per
    /// track × bytes per sector / revolution, weighted by sectors), bytes/s.
    pub sustained_bytes_per_s: f64,
}

fn positive(key: &str, v: u64) -> Result<u64> {
    if v == 0 {
        return Err(Error::config(key, "must be > 0"));
    }
    Ok(v)
}

fn duration(key: &str, v: u64) -> Result<u64> {
    if v > MAX_DURATION_NS {
        return Err(Error::config(key, format!("{v} ns is more than an hour: not a disk's timing")));
    }
    Ok(v)
}

impl HddConfig {
    /// The zones in use: `zones`, or one zone of `sectors_per_track`.
    pub fn zone_list(&self) -> Vec<HddZone> {
        if self.zones.is_empty() {
            vec![HddZone {
                cylinders: self.cylinders,
                sectors_per_track: self.sectors_per_track,
                track_skew_sectors: None,
                cylinder_skew_sectors: None,
                spare_sectors: 0,
                front_spare_sectors: 0,
            }]
        } else {
            self.zones.clone()
        }
    }

    /// Checks every parameter and derives the geometry and seek curve.
    pub fn validate(&self) -> Result<HddGeometry> {
        let bps = positive("hdd.bytes_per_sector", self.bytes_per_sector.into())?;
        if bps % 512 != 0 {
            return Err(Error::config("hdd.bytes_per_sector", "must be a multiple of 512"));
        }
        let heads = positive("hdd.tracks_per_cylinder", self.tracks_per_cylinder.into())?;
        let cylinders = positive("hdd.cylinders", self.cylinders.into())?;
        if cylinders < 2 {
            return Err(Error::config("hdd.cylinders", "must be at least 2 (a seek curve needs a stroke)"));
        }
        if self.zones.is_empty() {
            positive("hdd.sectors_per_track", self.sectors_per_track.into())?;
        }
        let zones = self.zone_list();
        let mut zone_cylinders = 0u64;
        let mut disk_sectors = 0u64;
        for (i, z) in zones.iter().enumerate() {
            positive(&format!("hdd.zones[{i}].cylinders"), z.cylinders.into())?;
            let spt = positive(&format!("hdd.zones[{i}].sectors_per_track"), z.sectors_per_track.into())?;
            for (key, skew) in [("track_skew_sectors", z.track_skew_sectors), ("cylinder_skew_sectors", z.cylinder_skew_sectors)] {
                if skew.is_some_and(|k| u64::from(k) >= spt) {
                    return Err(Error::config(format!("hdd.zones[{i}].{key}"), format!("must be less than the zone's {spt} sectors per track")));
                }
            }
            if z.track_skew_sectors.is_some() != z.cylinder_skew_sectors.is_some() {
                return Err(Error::config(format!("hdd.zones[{i}]"), "give both track_skew_sectors and cylinder_skew_sectors, or neither"));
            }
            let physical = u64::from(z.cylinders) * heads * spt;
            let spares = z.spare_sectors.saturating_add(z.front_spare_sectors);
            if spares >= physical {
                return Err(Error::config(format!("hdd.zones[{i}].spare_sectors"), format!("leave none of the zone's {physical} sectors in use")));
            }
            zone_cylinders += u64::from(z.cylinders);
            disk_sectors += physical - spares;
        }
        if zone_cylinders != cylinders {
            return Err(Error::config("hdd.zones", format!("the zones hold {zone_cylinders} cylinders; hdd.cylinders is {cylinders}")));
        }
        let revolution_ns = self.revolution()?;
        let sectors = match self.capacity_limit_bytes {
            0 => disk_sectors,
            limit => (limit / bps).min(disk_sectors),
        };
        if sectors == 0 {
            return Err(Error::config("hdd.capacity_limit_bytes", format!("is less than one {bps}-byte sector")));
        }
        let capacity_bytes = sectors.checked_mul(bps).ok_or_else(|| Error::config("hdd", "the disk's capacity overflows 64 bits"))?;
        let (mut left, mut cylinders_used, mut weighted) = (sectors, 0u64, 0.0f64);
        for z in &zones {
            let per_cyl = heads * u64::from(z.sectors_per_track);
            let take = left.min(per_cyl * u64::from(z.cylinders) - z.spare_sectors - z.front_spare_sectors);
            cylinders_used += if left > take { u64::from(z.cylinders) } else { take.div_ceil(per_cyl) };
            weighted += take as f64 * z.sectors_per_track as f64;
            left -= take;
        }
        let mean_spt = weighted / sectors as f64;
        let single = duration("hdd.single_cylinder_seek_ns", self.single_cylinder_seek_ns)? as f64;
        let average = duration("hdd.average_seek_ns", self.average_seek_ns)? as f64;
        let max = duration("hdd.max_seek_ns", self.max_seek_ns)? as f64;
        duration("hdd.head_switch_ns", self.head_switch_ns)?;
        duration("hdd.overhead_ns", self.overhead_ns)?;
        if self.interface_sector_transfer_ns > MAX_INTERFACE_SECTOR_NS {
            return Err(Error::config(
                "hdd.interface_sector_transfer_ns",
                format!("{} ns a sector is slower than one second: not a disk's interface", self.interface_sector_transfer_ns),
            ));
        }
        duration("hdd.write_settle_ns", self.write_settle_ns)?;
        self.check_overheads_and_cache()?;
        let (a, b) = if self.seek_table.is_empty() { fit_seek_curve(cylinders as u32, single, average, max)? } else { self.check_seek_table()? };
        Ok(HddGeometry {
            bytes_per_sector: bps,
            disk_sectors,
            sectors,
            capacity_bytes,
            cylinders_used: cylinders_used as u32,
            revolution_ns,
            seek_a_ns: a,
            seek_b_ns: b,
            seek_c_ns: single,
            sustained_bytes_per_s: mean_spt * bps as f64 * 1e9 / revolution_ns as f64,
        })
    }

    /// A measured seek table must rise in distance from 1 cylinder; its
    /// times are durations. The fitted curve is then unused: `(0, 0)`.
    fn check_seek_table(&self) -> Result<(f64, f64)> {
        if self.seek_table[0][0] != 1 {
            return Err(Error::config(
                "hdd.seek_table",
                format!("starts at {} cylinders; the first entry must be the 1-cylinder seek", self.seek_table[0][0]),
            ));
        }
        for (i, w) in self.seek_table.windows(2).enumerate() {
            if w[1][0] <= w[0][0] {
                return Err(Error::config(format!("hdd.seek_table[{}]", i + 1), format!("distance {} does not rise above {}", w[1][0], w[0][0])));
            }
        }
        for (i, [_, ns]) in self.seek_table.iter().enumerate() {
            duration(&format!("hdd.seek_table[{i}]"), *ns)?;
        }
        // Past its last point the table is extrapolated: it must still give a seek at the longest stroke.
        let longest = u64::from(self.cylinders.saturating_sub(1)).max(1);
        if seek_table_ns(&self.seek_table, longest as u32) == 0 || self.seek_table.iter().any(|&[_, t]| t == 0) {
            return Err(Error::config(
                "hdd.seek_table",
                format!("gives no time for a seek (at {longest} cylinders, extrapolated, or at a listed distance)"),
            ));
        }
        Ok((0.0, 0.0))
    }

    fn check_overheads_and_cache(&self) -> Result<()> {
        let o = &self.command_overhead;
        for (key, v) in [
            ("read_hit_after_read_ns", o.read_hit_after_read_ns),
            ("read_hit_after_write_ns", o.read_hit_after_write_ns),
            ("read_miss_after_read_ns", o.read_miss_after_read_ns),
            ("read_miss_after_write_ns", o.read_miss_after_write_ns),
            ("write_hit_after_read_ns", o.write_hit_after_read_ns),
            ("write_hit_after_write_ns", o.write_hit_after_write_ns),
            ("write_miss_after_read_ns", o.write_miss_after_read_ns),
            ("write_miss_after_write_ns", o.write_miss_after_write_ns),
        ] {
            duration(&format!("hdd.command_overhead.{key}"), v)?;
        }
        let c = &self.cache;
        if !c.enabled {
            return Ok(());
        }
        if c.max_write_segments > c.segments {
            return Err(Error::config("hdd.cache.max_write_segments", format!("{} is more than the {} segments", c.max_write_segments, c.segments)));
        }
        if c.segments == 0 {
            let on = [("fast_write", c.fast_write), ("combine_writes", c.combine_writes), ("read_hits_on_write_data", c.read_hits_on_write_data)];
            if let Some((key, _)) = on.iter().find(|(_, v)| *v) {
                return Err(Error::config(format!("hdd.cache.{key}"), "needs a cache: set hdd.cache.segments (and segment_sectors)"));
            }
            if c.read_ahead_sectors > 0 || c.read_ahead_until == ReadAheadUntil::TrackEnd || c.read_ahead_on_streams_only {
                return Err(Error::config("hdd.cache.read_ahead_sectors", "read-ahead needs a cache: set hdd.cache.segments (and segment_sectors)"));
            }
            return Ok(());
        }
        if c.segment_sectors == 0 {
            return Err(Error::config("hdd.cache.segment_sectors", "must be > 0 when hdd.cache.segments is set"));
        }
        let reads_ahead = c.read_ahead_sectors > 0 || c.read_ahead_until == ReadAheadUntil::TrackEnd;
        if c.read_ahead_on_streams_only && !reads_ahead {
            return Err(Error::config(
                "hdd.cache.read_ahead_on_streams_only",
                "there is no read-ahead: set read_ahead_sectors or read_ahead_until = \"track_end\"",
            ));
        }
        if c.read_ahead_until == ReadAheadUntil::TrackEnd && c.read_ahead_sectors > 0 {
            return Err(Error::config("hdd.cache.read_ahead_sectors", "is not used when hdd.cache.read_ahead_until = \"track_end\": set it to 0"));
        }
        if c.read_ahead_sectors > c.segment_sectors {
            return Err(Error::config(
                "hdd.cache.read_ahead_sectors",
                format!("{} sectors do not fit a {}-sector segment", c.read_ahead_sectors, c.segment_sectors),
            ));
        }
        if c.combine_writes && !c.fast_write {
            return Err(Error::config("hdd.cache.combine_writes", "combines writes held in the cache: it needs hdd.cache.fast_write"));
        }
        Ok(())
    }

    fn revolution(&self) -> Result<u64> {
        match (self.revolution_ns, self.rpm) {
            (0, rpm) if rpm > 0.0 && rpm.is_finite() => {
                let ns = (60e9 / rpm).round();
                if ns < 1.0 || ns > MAX_DURATION_NS as f64 {
                    return Err(Error::config("hdd.rpm", format!("{rpm} rpm is not a disk's speed")));
                }
                Ok(ns as u64)
            }
            (0, 0.0) => Ok(DEFAULT_REVOLUTION_NS),
            (0, _) => Err(Error::config("hdd.rpm", format!("{rpm} rpm is not a disk's speed", rpm = self.rpm))),
            (ns, 0.0) => duration("hdd.revolution_ns", ns),
            _ => Err(Error::config("hdd.rpm", "set hdd.revolution_ns or hdd.rpm, not both (they say the same thing)")),
        }
    }
}

/// `(Σ p(d)·sqrt(d−1), Σ p(d)·(d−1), Σ p(d))` over seek distances `d ≥ 1`
/// between two independent, uniformly random cylinders of `cylinders`:
/// `p(d) = 2·(C − d) / C²`. Summed term by term up to
/// [`SEEK_MOMENTS_SUMMED_UP_TO`] cylinders (every real disk); beyond, in
/// closed form, so that a disk of billions of cylinders resolves at once.
pub fn seek_moments(cylinders: u32) -> (f64, f64, f64) {
    if cylinders > SEEK_MOMENTS_SUMMED_UP_TO {
        return seek_moments_closed_form(cylinders);
    }
    let c = f64::from(cylinders);
    let (mut s1, mut s2, mut p1) = (0.0, 0.0, 0.0);
    for d in 1..cylinders {
        let p = 2.0 * (c - f64::from(d)) / (c * c);
        s1 += p * f64::from(d - 1).sqrt();
        s2 += p * f64::from(d - 1);
        p1 += p;
    }
    (s1, s2, p1)
}

/// Above this many cylinders [`seek_moments`] uses its closed form.
pub const SEEK_MOMENTS_SUMMED_UP_TO: u32 = 1 << 20;

/// [`seek_moments`] in closed form. With `k = d − 1` running over
/// `0..=n`, `n = C − 2`, the weights are `2·(C − 1 − k) / C²`; the power
/// sums of `k` are exact and those of `k^½`, `k^{3/2}` are Euler–Maclaurin
/// expansions, whose first neglected term is below 1e-25 relative for
/// `n > 2^20`.
pub fn seek_moments_closed_form(cylinders: u32) -> (f64, f64, f64) {
    let c = f64::from(cylinders);
    let n = c - 2.0;
    let w = 2.0 / (c * c);
    let s1 = w * ((c - 1.0) * power_sum(0.5, -0.207_886_224_977_354_57, n) - power_sum(1.5, -0.025_485_201_889_833_036, n));
    let s2 = w * ((c - 1.0) * n * (n + 1.0) / 2.0 - n * (n + 1.0) * (2.0 * n + 1.0) / 6.0);
    (s1, s2, (c - 1.0) / c)
}

/// `Σ_{k=1}^{n} k^a` by Euler–Maclaurin: `ζ(−a) + n^{a+1}/(a+1) + n^a/2 +
/// a·n^{a−1}/12 − a(a−1)(a−2)·n^{a−3}/720`, with `zeta_minus_a = ζ(−a)`.
fn power_sum(a: f64, zeta_minus_a: f64, n: f64) -> f64 {
    zeta_minus_a + n.powf(a + 1.0) / (a + 1.0) + n.powf(a) / 2.0 + a * n.powf(a - 1.0) / 12.0 - a * (a - 1.0) * (a - 2.0) * n.powf(a - 3.0) / 720.0
}

/// Fits `a` and `b` of `seek(x) = a·sqrt(x−1) + b·(x−1) + c` (Chen & Lee,
/// Table 1 caption) so that `seek(1) = single`, the mean over two uniformly
/// random cylinders is `average` and `seek(C−1) = max`. Refuses a fit that
/// is not a seek curve (negative or decreasing somewhere).
pub fn fit_seek_curve(cylinders: u32, single: f64, average: f64, max: f64) -> Result<(f64, f64)> {
    if !(single <= average && average <= max && single > 0.0) {
        return Err(Error::config("hdd.average_seek_ns", "need 0 < single_cylinder_seek_ns <= average_seek_ns <= max_seek_ns"));
    }
    let (s1, s2, p1) = seek_moments(cylinders);
    let d = f64::from(cylinders - 2);
    // a·s1 + b·s2 = average − c·p1 ; a·sqrt(d) + b·d = max − c
    let (r1, r2) = (average - single * p1, max - single);
    let det = s1 * d - s2 * d.sqrt();
    if det.abs() < 1e-12 {
        if cylinders == 2 {
            return Ok((0.0, max - single));
        }
        return Err(Error::config("hdd.cylinders", "too few cylinders to fit a seek curve"));
    }
    let a = (r1 * d - s2 * r2) / det;
    let b = (s1 * r2 - d.sqrt() * r1) / det;
    // The curve's slope a/(2·sqrt(x−1)) + b is smallest at the far end.
    if a < 0.0 || (d > 0.0 && a / (2.0 * d.sqrt()) + b < -1e-9) {
        return Err(Error::config(
            "hdd.average_seek_ns",
            format!(
                "no seek curve a·sqrt(x−1) + b·(x−1) + c through single {:.3} ms, average {:.3} ms and max {:.3} ms rises \
                 with distance (fit gives a = {a:.1} ns, b = {b:.3} ns/cylinder); check the three seek times",
                single / 1e6,
                average / 1e6,
                max / 1e6
            ),
        ));
    }
    Ok((a, b))
}

/// A measured seek table at `distance` cylinders, ns: linear between its
/// points, extrapolated from the nearest two past either end (never below
/// 0), as DiskSim reads its extracted seek curves
/// (`diskmodel/mech_g1_seektime.c`). `table` rises in distance from 1.
pub fn seek_table_ns(table: &[[u64; 2]], distance: u32) -> u64 {
    let x = u64::from(distance);
    if distance == 0 || table.is_empty() {
        return 0;
    }
    let i = table.partition_point(|&[d, _]| d < x);
    if let Some(&[_, t]) = table.get(i).filter(|p| p[0] == x) {
        return t;
    }
    if table.len() == 1 {
        return table[0][1];
    }
    let j = i.clamp(1, table.len() - 1);
    let ([d1, t1], [d2, t2]) = (table[j - 1], table[j]);
    let slope = (t2 as f64 - t1 as f64) / (d2 as f64 - d1 as f64);
    (t1 as f64 + slope * (x as f64 - d1 as f64)).round().max(0.0) as u64
}
