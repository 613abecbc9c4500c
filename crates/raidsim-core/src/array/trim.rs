//! Which member ranges a host trim reaches.
//!
//! A trim asks nothing of parity but that it stay true. Where a trim covers
//! whole stripes, every member's part of them — data and parity — can go:
//! a drive reads a trimmed page as one never written, and the parity of a
//! stripe of such pages is such a page too. Where it covers part of a
//! stripe, dropping the data would leave the parity covering data the
//! drives no longer hold, so a parity array keeps those bytes (Linux md's
//! RAID-4/5/6 discard whole stripes only, for the same reason). Mirrors and
//! RAID-0 keep no parity and trim every byte, on every copy.

use crate::config::{ArrayGeometry, RaidLevel, UnitCopy};
use crate::error::{Error, Result};

/// One member range to trim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberTrim {
    /// Member index (array position).
    pub member: u32,
    /// First byte on the member.
    pub offset_bytes: u64,
    /// Bytes.
    pub len_bytes: u64,
}

/// The member ranges a host trim of `[offset, offset + len)` reaches, into
/// `out` (cleared first); returns the host bytes it leaves (parts of
/// stripes under parity). CR5 is RAID-5 here (`code_level`); CR5M's copies
/// are not modelled under trims, and the simulation refuses them first.
pub fn member_trims(geom: &ArrayGeometry, offset: u64, len: u64, out: &mut Vec<MemberTrim>) -> Result<u64> {
    out.clear();
    let end = offset.checked_add(len).filter(|&e| e <= geom.capacity_bytes()).ok_or_else(|| {
        Error::Internal(format!("a trim of [{offset}, +{len}) reached the planner beyond the array's {} bytes", geom.capacity_bytes()))
    })?;
    let stripe = geom.stripe_data_bytes();
    let (first_whole, end_whole) = (offset.div_ceil(stripe), end / stripe);
    let whole = end_whole.saturating_sub(first_whole);
    // Every member holds stripe s at the same bytes: a run of whole stripes
    // is one range on each.
    let per_stripe = match geom.level {
        RaidLevel::Raid4 | RaidLevel::Raid5 | RaidLevel::Raid6 => geom.codeword_rows * geom.unit_bytes,
        RaidLevel::Raid0 | RaidLevel::Single => geom.unit_bytes,
        RaidLevel::Raid10 => u64::from(geom.copies) * geom.unit_bytes,
        RaidLevel::Raid1 => {
            out.extend((0..geom.members).map(|member| MemberTrim { member, offset_bytes: offset, len_bytes: len }));
            return Ok(0);
        }
        RaidLevel::Cr5 | RaidLevel::Cr5m => return Err(Error::Internal("an array geometry kept CR5's level, not RAID-5's".into())),
    };
    if whole > 0 {
        out.extend((0..geom.members).map(|member| MemberTrim { member, offset_bytes: first_whole * per_stripe, len_bytes: whole * per_stripe }));
    }
    let head = (offset, (first_whole * stripe).min(end));
    let tail = ((end_whole * stripe).max(head.1), end);
    if geom.parity_units > 0 {
        return Ok((head.1 - head.0) + (tail.1 - tail.0));
    }
    for (from, to) in [head, tail] {
        units_of(geom, from, to, out);
    }
    Ok(0)
}

/// RAID-0 and RAID-10: the pieces of `[from, to)` (less than a stripe) on every copy of their units.
fn units_of(geom: &ArrayGeometry, from: u64, to: u64, out: &mut Vec<MemberTrim>) {
    let (u, n) = (geom.unit_bytes, u64::from(geom.data_units));
    let mut copies: Vec<UnitCopy> = Vec::new();
    let mut at = from;
    while at < to {
        let unit = at / u;
        let piece_end = ((unit + 1) * u).min(to);
        geom.unit_copies(unit / n, (unit % n) as u32, &mut copies);
        let within = at - unit * u;
        out.extend(copies.iter().map(|c| MemberTrim { member: c.member, offset_bytes: c.member_offset + within, len_bytes: piece_end - at }));
        at = piece_end;
    }
}
