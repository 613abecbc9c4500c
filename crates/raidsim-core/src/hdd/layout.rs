//! Where a logical sector lies on the platters, and at what angle.
//!
//! Logical sectors fill a track, then the next head of the cylinder, then
//! the next cylinder, outermost first. Each recording zone has its own
//! sectors per track (the outer tracks are longer), and may hold spare
//! sectors at its end, and empty space at its front, that no logical sector
//! maps to (DiskSim's sectors-per-zone sparing and "empty space at zone
//! front", `diskmodel/layout_g1.c`).
//!
//! A track's first sector is rotated ("skewed") from the previous track's,
//! so that a transfer running onto the next track finds its first sector
//! just arriving once the head has switched. A zone states its skews in
//! sectors, as DiskSim's validated models do; without them the skew is the
//! head switch (and the one-cylinder seek) in time, counted from cylinder 0.

use crate::config::HddZone;

/// A zone resolved to sector numbers.
#[derive(Clone, Copy, Debug)]
struct Zone {
    first_sector: u64,
    first_cylinder: u32,
    sectors_per_track: u64,
    /// Skews in sectors, when the zone states them.
    skews: Option<(u64, u64)>,
    /// Unmapped sectors at the zone's front.
    front: u64,
}

/// Where a sector lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chs {
    /// Cylinder.
    pub cylinder: u32,
    /// Head (track within the cylinder).
    pub head: u32,
    /// Sector within the track.
    pub sector: u64,
    /// Sectors on that track.
    pub sectors_per_track: u64,
}

/// The disk's logical-to-physical map and its angles.
#[derive(Clone, Debug)]
pub struct Layout {
    zones: Vec<Zone>,
    heads: u32,
    revolution_ns: u64,
    /// Skews in time, for zones that state none.
    head_skew_ns: u64,
    cylinder_skew_ns: u64,
}

impl Layout {
    /// The map of `zones` on `heads` surfaces; `head_skew_ns` and
    /// `cylinder_skew_ns` skew the zones that state no skews.
    pub fn new(zones: &[HddZone], heads: u32, revolution_ns: u64, head_skew_ns: u64, cylinder_skew_ns: u64) -> Self {
        let (mut sector, mut cylinder) = (0u64, 0u32);
        let mut out = Vec::with_capacity(zones.len());
        for z in zones {
            let skews = z.track_skew_sectors.zip(z.cylinder_skew_sectors).map(|(t, c)| (u64::from(t), u64::from(c)));
            let spt = u64::from(z.sectors_per_track);
            out.push(Zone { first_sector: sector, first_cylinder: cylinder, sectors_per_track: spt, skews, front: z.front_spare_sectors });
            sector += u64::from(z.cylinders) * u64::from(heads) * spt - z.spare_sectors - z.front_spare_sectors;
            cylinder += z.cylinders;
        }
        Self { zones: out, heads, revolution_ns, head_skew_ns: head_skew_ns % revolution_ns, cylinder_skew_ns: cylinder_skew_ns % revolution_ns }
    }

    fn zone_of(&self, lba: u64) -> &Zone {
        &self.zones[self.zones.partition_point(|z| z.first_sector <= lba).saturating_sub(1)]
    }

    /// Where sector `lba` lies.
    pub fn locate(&self, lba: u64) -> Chs {
        let z = self.zone_of(lba);
        let within = lba - z.first_sector + z.front;
        let track = within / z.sectors_per_track;
        let heads = u64::from(self.heads);
        Chs {
            cylinder: z.first_cylinder + (track / heads) as u32,
            head: (track % heads) as u32,
            sector: within % z.sectors_per_track,
            sectors_per_track: z.sectors_per_track,
        }
    }

    /// Angle (ns into a revolution) at which the sector at `at` starts.
    pub fn angle_ns(&self, at: Chs) -> u64 {
        let rev = u128::from(self.revolution_ns);
        let heads = u128::from(self.heads);
        let spt = u128::from(at.sectors_per_track);
        let z = self.zone_of_cylinder(at.cylinder);
        let (c, h) = (u128::from(at.cylinder), u128::from(at.head));
        match z.skews {
            Some((track, cylinder)) => {
                let c = c - u128::from(z.first_cylinder);
                let skew = c * ((heads - 1) * u128::from(track) + u128::from(cylinder)) + h * u128::from(track);
                ((skew + u128::from(at.sector)) % spt * rev / spt) as u64
            }
            None => {
                let skew = c * ((heads - 1) * u128::from(self.head_skew_ns) + u128::from(self.cylinder_skew_ns)) + h * u128::from(self.head_skew_ns);
                ((skew + u128::from(at.sector) * rev / spt) % rev) as u64
            }
        }
    }

    fn zone_of_cylinder(&self, cylinder: u32) -> &Zone {
        &self.zones[self.zones.partition_point(|z| z.first_cylinder <= cylinder).saturating_sub(1)]
    }

    /// The sector after the end of the track that holds sector `end` (the
    /// one after a read of `first..end`), or of the next track when the
    /// read began on an earlier track: where DEC-style read-ahead stops.
    pub fn read_ahead_track_end(&self, first: u64, end: u64) -> u64 {
        let at = self.locate(end);
        let track_start = end - at.sector;
        let track_end = track_start + at.sectors_per_track;
        if first < track_start {
            track_end + self.locate(track_end).sectors_per_track
        } else {
            track_end
        }
    }

    /// Time for `sectors` sectors from `at` to pass under the head, ns, on
    /// the same grid of sector boundaries as [`Self::angle_ns`] (so that the
    /// next sector of the track is under the head exactly when they end).
    pub fn sweep_ns(&self, at: Chs, sectors: u64) -> u64 {
        let (rev, spt) = (u128::from(self.revolution_ns), u128::from(at.sectors_per_track));
        let z = self.zone_of_cylinder(at.cylinder);
        let base = u128::from(at.sector)
            + match z.skews {
                Some((track, cylinder)) => {
                    let (c, h, heads) = (u128::from(at.cylinder - z.first_cylinder), u128::from(at.head), u128::from(self.heads));
                    (c * ((heads - 1) * u128::from(track) + u128::from(cylinder)) + h * u128::from(track)) % spt
                }
                None => 0,
            };
        ((base + u128::from(sectors)) * rev / spt - base * rev / spt) as u64
    }

    /// One revolution, ns.
    pub fn revolution_ns(&self) -> u64 {
        self.revolution_ns
    }
}
