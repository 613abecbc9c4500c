//! Verified bytes (`sim.verify`): the members hold real data, so that every
//! claim that the array's plans keep data recoverable is checked on bytes.
//!
//! Each host write carries, in every 512-byte sector, a pattern drawn from
//! (host sector, write version); unwritten sectors are zeros, on which every
//! parity is zero too. The verifier executes each stripe plan on bytes when
//! its phase completes (the stripe's lock makes that instant well defined):
//!
//! - a write op of user data stores the pattern of the host sector that the
//!   member offset holds by the geometry (so data put in the wrong place is
//!   found later, when the right place is read);
//! - a parity write stores the code (XOR; Reed–Solomon P+Q, EVENODD or RDP
//!   from `raidsim-codes`) of the codeword's new data: written sectors take
//!   the new pattern, surviving ones what their member holds, lost ones
//!   what the old codeword decodes to;
//! - a host read returns what its plan read: a surviving unit's bytes, or a
//!   lost unit decoded from only the cells the plan read (a missing read
//!   shows up as a mismatch); the result must equal the last version
//!   written;
//! - a rebuild write stores what its plan's reads decode to.
//!
//! After the run every sector ever written is read back through the
//! array's final state, and the redundancy that protects it is compared
//! with it: every surviving mirror copy, every surviving parity sector
//! against its codeword's data re-encoded — so a parity update that left
//! parity stale is found even when no read ever decoded through it. Timing is untouched: the verifier only observes.
//! Not checked on bytes: that a write's pre-reads suffice (the verifier
//! computes parity as a correct controller would from the members); the
//! planner's property tests count those.

mod final_check;
mod observer;
mod trim;

pub use final_check::FinalCheck;

pub use observer::Verifying;

use super::{ArrayGeometry, ArrayState, MemberOp, StripePlan};
use crate::device::{Cause, Op};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;

/// Bytes per verified sector.
pub const SECTOR: u64 = 512;
/// Mismatches described in the report.
const EXAMPLES: usize = 5;

type Sector = Box<[u8]>;

/// The bytes of every member, and the last version of every host sector.
pub struct ByteVerifier {
    geom: ArrayGeometry,
    code: Option<(raidsim_codes::Code, Option<usize>)>,
    store: FxHashMap<(u32, u64), Sector>,
    logical: FxHashMap<u64, u64>,
    next_version: u64,
    /// CR5M: mirror copies on each channel's mirroring chip, and the old,
    /// parity-consistent versions of mirrored sectors.
    mirror_chip: bool,
    /// Bytes of a flash page (a mirror copy is programmed whole).
    page_bytes: u64,
    mirror: FxHashMap<(u32, u64), Sector>,
    expired: FxHashMap<(u32, u64), Sector>,
    /// Reconstructed bytes of rebuild stripe jobs between their reads and
    /// writes: member, offset, bytes, and whether they go to the mirroring chip.
    pending_rebuilds: FxHashMap<u32, Vec<(u32, u64, Sector, bool)>>,
    /// Sectors checked on host reads.
    pub sectors_checked: u64,
    /// Sectors that differed from the last version written.
    pub mismatches: u64,
    /// The first few mismatches, described.
    pub examples: Vec<String>,
}

/// The pattern of host sector `sector` at `version` (0 = never written: zeros).
pub fn pattern(sector: u64, version: u64) -> Sector {
    let mut out = vec![0u8; SECTOR as usize].into_boxed_slice();
    if version == 0 {
        return out;
    }
    let mut x = sector.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ version.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    for chunk in out.chunks_mut(8) {
        // splitmix64
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

/// What a stripe reconstruction writes, for the bytes it must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RebuildBytes {
    /// What the survivors it read decode to.
    Decode,
    /// CR5M: the current data it read (a strip the mirroring chip held).
    Copy,
    /// CR5M: parity over the current data, and current data copied.
    Consolidate,
    /// CR5M: the current data, onto the new mirroring chip.
    Remirror,
}

/// Where a host sector lives: stripe, codeword row, data column, sector offset in the unit.
#[derive(Clone, Copy)]
struct Cell {
    s: u64,
    row: u64,
    d: u32,
    x: u64,
}

impl ByteVerifier {
    /// A verifier of an array with `geom`; `code` is the RAID-6 code (RAID-4/5: XOR, mirrors: none).
    pub fn new(geom: ArrayGeometry, code: Option<(raidsim_codes::Code, Option<usize>)>) -> Self {
        Self {
            geom,
            code,
            store: FxHashMap::default(),
            logical: FxHashMap::default(),
            next_version: 0,
            mirror_chip: false,
            page_bytes: SECTOR,
            mirror: FxHashMap::default(),
            expired: FxHashMap::default(),
            pending_rebuilds: FxHashMap::default(),
            sectors_checked: 0,
            mismatches: 0,
            examples: Vec::new(),
        }
    }

    /// CR5M: the members have mirroring chips, whose copies and the old
    /// versions parity covers are kept apart from the current data.
    pub fn with_mirroring_chips(mut self, page_bytes: u64) -> Self {
        self.mirror_chip = true;
        self.page_bytes = page_bytes;
        self
    }

    /// A new write version.
    pub fn next_version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version
    }

    fn parity(&self) -> bool {
        self.geom.parity_units > 0
    }

    /// A unit lives in one place (parity levels, RAID-0), not in copies.
    fn one_place(&self) -> bool {
        self.parity() || self.geom.copies == 1 && self.geom.level != crate::config::RaidLevel::Raid1
    }

    fn cell(&self, addr: u64) -> Cell {
        let u = self.geom.unit_bytes;
        let w = self.geom.stripe_data_bytes();
        let (s, within) = (addr / w, addr % w);
        let unit = within / u;
        let k = u64::from(self.geom.data_units);
        Cell { s, row: unit / k, d: (unit % k) as u32, x: within % u }
    }

    /// The member and member offset of every copy (parity levels: the one place) of host byte `addr`.
    fn places(&self, addr: u64, out: &mut Vec<(u32, u64)>) {
        out.clear();
        let c = self.cell(addr);
        if self.one_place() {
            out.push((self.geom.data_member(c.s, c.d), self.geom.row_offset(c.s, c.row) + c.x));
            return;
        }
        let mut copies = Vec::new();
        self.geom.unit_copies(c.s, c.d, &mut copies);
        out.extend(copies.iter().map(|cp| (cp.member, cp.member_offset + c.x)));
    }

    /// The host byte a data write to `member` at `offset` of stripe `s` stands for; `None` for a parity unit.
    fn host_of(&self, s: u64, member: u32, offset: u64) -> Option<u64> {
        let u = self.geom.unit_bytes;
        let w = self.geom.stripe_data_bytes();
        (0..self.geom.data_units).find_map(|d| {
            if self.one_place() {
                let row = (offset / u).checked_sub(s * self.geom.codeword_rows)?;
                (self.geom.data_member(s, d) == member && row < self.geom.codeword_rows)
                    .then(|| s * w + (row * u64::from(self.geom.data_units) + u64::from(d)) * u + offset % u)
            } else {
                let mut copies = Vec::new();
                self.geom.unit_copies(s, d, &mut copies);
                copies
                    .iter()
                    .any(|c| c.member == member && (c.member_offset..c.member_offset + u).contains(&offset))
                    .then(|| s * w + u64::from(d) * u + offset % u)
            }
        })
    }

    /// The current bytes of `member` at `offset` (from the mirror where
    /// the data chip lost them, as the drive reads them).
    fn get(&self, state: &ArrayState, member: u32, offset: u64) -> Sector {
        let key = (state.device_of[member as usize], offset);
        self.store.get(&key).or_else(|| self.mirror.get(&key)).cloned().unwrap_or_else(|| vec![0u8; SECTOR as usize].into_boxed_slice())
    }

    /// The version parity covers: CR5M's old copy of a mirrored sector, else the current one.
    fn consistent(&self, state: &ArrayState, member: u32, offset: u64) -> Sector {
        let key = (state.device_of[member as usize], offset);
        self.expired.get(&key).cloned().unwrap_or_else(|| self.get(state, member, offset))
    }

    /// CR5M: stripe `s`'s parity covers its current data again; its
    /// mirror and old copies are reclaimed.
    pub fn consolidate(&mut self, state: &ArrayState, s: u64) {
        for d in 0..self.geom.data_units {
            let device = state.device_of[self.geom.data_member(s, d) as usize];
            for r in 0..self.geom.codeword_rows {
                let base = self.geom.row_offset(s, r);
                for o in (base..base + self.geom.unit_bytes).step_by(SECTOR as usize) {
                    self.mirror.remove(&(device, o));
                    self.expired.remove(&(device, o));
                }
            }
        }
    }

    /// CR5M: the pages of device `device` that `[offset, offset + len)`
    /// touches take, where the data chip lost them, their mirror's bytes.
    fn merge_from_mirror(&mut self, device: u32, offset: u64, len: u64) {
        let page = self.page_bytes;
        for o in (offset / page * page..(offset + len).div_ceil(page) * page).step_by(SECTOR as usize) {
            if !self.store.contains_key(&(device, o)) {
                if let Some(bytes) = self.mirror.get(&(device, o)).cloned() {
                    self.store.insert((device, o), bytes);
                }
            }
        }
    }

    /// CR5M: device `device`'s old copies of `[offset, offset + len)` are lost.
    pub fn lose_expired(&mut self, device: u32, offset: u64, len: u64) {
        for o in (offset..offset + len).step_by(SECTOR as usize) {
            self.expired.remove(&(device, o));
        }
    }

    /// CR5M: device `device`'s mirror copies of `[offset, offset + len)` are lost.
    pub fn lose_mirror(&mut self, device: u32, offset: u64, len: u64) {
        for o in (offset..offset + len).step_by(SECTOR as usize) {
            self.mirror.remove(&(device, o));
        }
    }

    fn put(&mut self, state: &ArrayState, member: u32, offset: u64, bytes: Sector) {
        let device = state.device_of[member as usize];
        self.store.insert((device, offset), bytes);
    }

    /// Device `device` lost `[offset, offset + len)` (a failed chip's pages):
    /// its bytes there are gone until something writes them again.
    pub fn lose(&mut self, device: u32, offset: u64, len: u64) {
        for o in (offset..offset + len).step_by(SECTOR as usize) {
            self.store.remove(&(device, o));
        }
    }

    fn mismatch(&mut self, what: String) {
        self.mismatches += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(what);
        }
    }

    /// The members of stripe `s`'s columns: data 0..k, then P (and Q).
    fn columns(&self, s: u64) -> Vec<u32> {
        (0..self.geom.data_units).map(|d| self.geom.data_member(s, d)).chain(self.geom.parity_members(s).into_iter().flatten()).collect()
    }

    /// Decodes the codeword of stripe `s` over sector offset `x` from the
    /// cells `available` gives; returns every column (rows concatenated),
    /// or `None` when too few are available.
    fn decode(&self, s: u64, x: u64, available: impl Fn(u32, u64) -> Option<Sector>) -> Option<Vec<Vec<u8>>> {
        let rows = self.geom.codeword_rows;
        let mut cols: Vec<Option<Vec<u8>>> = self
            .columns(s)
            .iter()
            .map(|&m| {
                let mut col = Vec::with_capacity((rows * SECTOR) as usize);
                for r in 0..rows {
                    col.extend_from_slice(&available(m, self.geom.row_offset(s, r) + x)?);
                }
                Some(col)
            })
            .collect();
        let erased = cols.iter().filter(|c| c.is_none()).count();
        if erased == 0 {
            return cols.into_iter().collect();
        }
        match self.code {
            None => {
                // XOR: one erasure.
                if erased > 1 {
                    return None;
                }
                let mut acc = vec![0u8; (rows * SECTOR) as usize];
                for c in cols.iter().flatten() {
                    raidsim_codes::xor::xor_into(&mut acc, c);
                }
                let hole = cols.iter().position(Option::is_none)?;
                cols[hole] = Some(acc);
            }
            Some((code, p)) => raidsim_codes::decode(code, &mut cols, p).ok()?,
        }
        cols.into_iter().collect()
    }

    /// Cell `c` as the XOR of the rest of its row and the row parity (every
    /// code here has a row parity), when those cells are available.
    fn decode_by_row(&self, c: Cell, available: &impl Fn(u32, u64) -> Option<Sector>) -> Option<Sector> {
        let off = self.geom.row_offset(c.s, c.row) + c.x;
        let p = self.geom.parity_members(c.s)[0]?;
        let mut acc = available(p, off)?;
        for d in (0..self.geom.data_units).filter(|&d| d != c.d) {
            raidsim_codes::xor::xor_into(&mut acc, &available(self.geom.data_member(c.s, d), off)?);
        }
        Some(acc)
    }

    /// The parity columns of `data` (rows concatenated).
    fn encode(&self, data: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        match self.code {
            None => {
                let mut p = vec![0u8; data[0].len()];
                raidsim_codes::xor::xor_many(&mut p, &refs);
                Ok(vec![p])
            }
            Some((code, prime)) => {
                let [a, b] = raidsim_codes::encode(code, &refs, prime).map_err(|e| Error::Internal(format!("verify: encode: {e}")))?;
                Ok(vec![a, b])
            }
        }
    }

    fn covered(ops: &[MemberOp], member: u32, offset: u64) -> bool {
        ops.iter().any(|o| o.op == Op::Read && o.member == member && o.offset_bytes <= offset && offset + SECTOR <= o.offset_bytes + o.len_bytes)
    }

    /// A host read of `[offset, offset + len)` planned as `plan` has read its cells: check each sector.
    pub fn check_read(&mut self, state: &ArrayState, plan: &StripePlan, offset: u64, len: u64) {
        let mut places = Vec::new();
        for addr in (offset..offset + len).step_by(SECTOR as usize) {
            let sector = addr / SECTOR;
            let expected = pattern(sector, self.logical.get(&sector).copied().unwrap_or(0));
            self.places(addr, &mut places);
            let direct = places.iter().find(|&&(m, o)| Self::covered(&plan.reads, m, o)).copied();
            let got = match direct {
                Some((m, o)) => Some(self.get(state, m, o)),
                None if self.parity() => {
                    let c = self.cell(addr);
                    let read = |m: u32, o: u64| Self::covered(&plan.reads, m, o).then(|| self.consistent(state, m, o));
                    self.decode_by_row(c, &read).or_else(|| {
                        self.decode(c.s, c.x, read).map(|cols| {
                            let r = c.row * SECTOR;
                            cols[c.d as usize][r as usize..(r + SECTOR) as usize].to_vec().into_boxed_slice()
                        })
                    })
                }
                None => None,
            };
            self.sectors_checked += 1;
            match got {
                Some(bytes) if bytes == expected => {}
                Some(_) => self.mismatch(format!("host sector {sector} (byte {addr}) read back other bytes than its last write")),
                None => self.mismatch(format!("host sector {sector} (byte {addr}): the plan read too little to return it")),
            }
        }
    }

    /// The version of the last write of each sector of host bytes
    /// `[offset, offset + len)` (0: never written).
    pub fn logical_versions(&self, offset: u64, len: u64) -> Vec<u64> {
        (offset / SECTOR..(offset + len).div_ceil(SECTOR)).map(|sector| self.logical.get(&sector).copied().unwrap_or(0)).collect()
    }

    /// A host read of `[offset, offset + len)` answered from the
    /// controller's cache, which holds each sector at `versions`: each must
    /// be its last write's.
    pub fn check_cached_read(&mut self, offset: u64, len: u64, versions: &[u64]) {
        for (i, sector) in (offset / SECTOR..(offset + len).div_ceil(SECTOR)).enumerate() {
            self.sectors_checked += 1;
            let now = self.logical.get(&sector).copied().unwrap_or(0);
            if versions.get(i) != Some(&now) {
                self.mismatch(format!(
                    "host sector {sector} answered from the controller's cache at version {:?}, not its last write's {now}",
                    versions.get(i)
                ));
            }
        }
    }

    /// A host write of `[offset, offset + len)` at `version`, planned as `plan`, has written.
    pub fn apply_write(&mut self, state: &ArrayState, plan: &StripePlan, offset: u64, len: u64, version: u64) -> Result<()> {
        let s = plan.stripe;
        let in_range = |addr: u64| (offset..offset + len).contains(&addr);
        // Lost cells' old contents, decoded from the members before anything is written.
        let mut old: FxHashMap<(u32, u64), Sector> = FxHashMap::default();
        if self.parity() {
            for w in plan.writes.iter().filter(|w| w.cause == Cause::Parity) {
                for o in (w.offset_bytes..w.offset_bytes + w.len_bytes).step_by(SECTOR as usize) {
                    let x = o % self.geom.unit_bytes;
                    let alive = |m: u32, off: u64| state.alive(m, s).then(|| self.consistent(state, m, off));
                    let cols = self.decode(s, x, alive).ok_or_else(|| Error::Internal(format!("verify: stripe {s} cannot be decoded")))?;
                    for (d, col) in cols.iter().enumerate().take(self.geom.data_units as usize) {
                        for r in 0..self.geom.codeword_rows {
                            let bytes = col[(r * SECTOR) as usize..((r + 1) * SECTOR) as usize].to_vec().into_boxed_slice();
                            old.insert((d as u32, self.geom.row_offset(s, r) + x), bytes);
                        }
                    }
                }
            }
        }
        let mirror_chip = self.mirror_chip;
        let to_mirroring_chip = |w: &MemberOp| mirror_chip && w.cause == Cause::Mirror;
        // CR5M: a mirroring write keeps the version parity covers, once.
        for w in plan.writes.iter().filter(|w| to_mirroring_chip(w)) {
            for o in (w.offset_bytes..w.offset_bytes + w.len_bytes).step_by(SECTOR as usize) {
                let key = (state.device_of[w.member as usize], o);
                if !self.expired.contains_key(&key) {
                    let current = self.get(state, w.member, o);
                    self.expired.insert(key, current);
                }
            }
        }
        // CR5M: a page whose data chip failed is merged from its mirror
        // when part of it is written (flash programs whole pages).
        if mirror_chip {
            // (A rebuild write in a host plan copies such a page whole.)
            for w in plan.writes.iter().filter(|w| matches!(w.cause, Cause::User | Cause::RebuildWrite)) {
                self.merge_from_mirror(state.device_of[w.member as usize], w.offset_bytes, w.len_bytes);
            }
        }
        for w in plan.writes.iter().filter(|w| matches!(w.cause, Cause::User | Cause::Mirror)) {
            let mirrored = to_mirroring_chip(w);
            for o in (w.offset_bytes..w.offset_bytes + w.len_bytes).step_by(SECTOR as usize) {
                match self.host_of(s, w.member, o) {
                    Some(_) if mirrored => {}
                    Some(addr) => self.put(state, w.member, o, pattern(addr / SECTOR, version)),
                    None => self.mismatch(format!("stripe {s}: user data written over parity on member {} at {o}", w.member)),
                }
            }
        }
        // The mirroring chip programs whole pages: each page touched is
        // copied as the data chip now holds it.
        for w in plan.writes.iter().filter(|w| to_mirroring_chip(w)) {
            let page = self.page_bytes;
            let device = state.device_of[w.member as usize];
            let (lo, hi) = (w.offset_bytes / page * page, (w.offset_bytes + w.len_bytes).div_ceil(page) * page);
            for o in (lo..hi).step_by(SECTOR as usize) {
                let bytes = self.store.get(&(device, o)).cloned().unwrap_or_else(|| vec![0u8; SECTOR as usize].into_boxed_slice());
                self.mirror.insert((device, o), bytes);
            }
        }
        let k = self.geom.data_units;
        for w in plan.writes.iter().filter(|w| w.cause == Cause::Parity) {
            let [p, q] = self.geom.parity_members(s);
            let kind = if Some(w.member) == p {
                0
            } else if Some(w.member) == q {
                1
            } else {
                usize::MAX
            };
            for o in (w.offset_bytes..w.offset_bytes + w.len_bytes).step_by(SECTOR as usize) {
                if kind == usize::MAX {
                    self.mismatch(format!("stripe {s}: parity written on data member {} at {o}", w.member));
                    continue;
                }
                let (x, row) = (o % self.geom.unit_bytes, o / self.geom.unit_bytes - s * self.geom.codeword_rows);
                let data: Vec<Vec<u8>> = (0..k)
                    .map(|d| {
                        let m = self.geom.data_member(s, d);
                        let mut col = Vec::new();
                        for r in 0..self.geom.codeword_rows {
                            let off = self.geom.row_offset(s, r) + x;
                            let addr = s * self.geom.stripe_data_bytes() + (r * u64::from(k) + u64::from(d)) * self.geom.unit_bytes + x;
                            let bytes = if in_range(addr) {
                                pattern(addr / SECTOR, version)
                            } else if state.alive(m, s) {
                                self.get(state, m, off)
                            } else {
                                old.get(&(d, off)).cloned().unwrap_or_else(|| vec![0u8; SECTOR as usize].into_boxed_slice())
                            };
                            col.extend_from_slice(&bytes);
                        }
                        col
                    })
                    .collect();
                let parity = self.encode(&data)?;
                let r = (row * SECTOR) as usize;
                self.put(state, w.member, o, parity[kind][r..r + SECTOR as usize].to_vec().into_boxed_slice());
            }
        }
        for addr in (offset..offset + len).step_by(SECTOR as usize) {
            self.logical.insert(addr / SECTOR, version);
        }
        Ok(())
    }

    /// A stripe reconstruction (stripe job `job`) has read its survivors:
    /// decode what it will write now, while its reads' devices are current.
    /// A plan that reads current copies (CR5M) copies them and, where it
    /// rewrites parity, encodes it over the current data (`consolidates`).
    pub fn prepare_rebuild(&mut self, job: u32, state: &ArrayState, plan: &StripePlan, kind: RebuildBytes) {
        let s = plan.stripe;
        let (copies, consolidates) = (kind != RebuildBytes::Decode, kind == RebuildBytes::Consolidate);
        let mut out = Vec::new();
        for w in plan.writes.iter().filter(|w| w.cause == Cause::RebuildWrite) {
            for o in (w.offset_bytes..w.offset_bytes + w.len_bytes).step_by(SECTOR as usize) {
                let (x, row) = (o % self.geom.unit_bytes, o / self.geom.unit_bytes - s * self.geom.codeword_rows);
                let bytes = if copies {
                    match self.host_of(s, w.member, o) {
                        Some(_) => Some(self.get(state, w.member, o)),
                        None if consolidates => self.current_parity(state, s, x, row, w.member),
                        None => None,
                    }
                } else if self.parity() {
                    let read = |m: u32, off: u64| Self::covered(&plan.reads, m, off).then(|| self.consistent(state, m, off));
                    let col = self.columns(s).iter().position(|&m| m == w.member);
                    self.decode(s, x, read)
                        .zip(col)
                        .map(|(cols, c)| cols[c][(row * SECTOR) as usize..((row + 1) * SECTOR) as usize].to_vec().into_boxed_slice())
                } else {
                    // The copy the plan read of the same unit.
                    self.host_of(s, w.member, o).and_then(|addr| {
                        let mut places = Vec::new();
                        self.places(addr, &mut places);
                        places.iter().find(|&&(m, off)| m != w.member && Self::covered(&plan.reads, m, off)).map(|&(m, off)| self.get(state, m, off))
                    })
                };
                match bytes {
                    Some(b) => out.push((w.member, o, b, kind == RebuildBytes::Remirror)),
                    None => self.mismatch(format!("stripe {s}: rebuild of member {} at {o} read too little to reconstruct it", w.member)),
                }
            }
        }
        self.pending_rebuilds.insert(job, out);
    }

    /// Row `row` of parity member `member`'s sector at `x` of stripe `s`,
    /// encoded over the current data.
    fn current_parity(&self, state: &ArrayState, s: u64, x: u64, row: u64, member: u32) -> Option<Sector> {
        let data: Vec<Vec<u8>> = (0..self.geom.data_units)
            .map(|d| {
                let m = self.geom.data_member(s, d);
                (0..self.geom.codeword_rows).flat_map(|r| self.get(state, m, self.geom.row_offset(s, r) + x).into_vec()).collect()
            })
            .collect();
        let kind = self.geom.parity_members(s).iter().position(|&p| p == Some(member))?;
        let parity = self.encode(&data).ok()?;
        Some(parity[kind][(row * SECTOR) as usize..((row + 1) * SECTOR) as usize].to_vec().into_boxed_slice())
    }

    /// Stripe job `job`'s reconstruction has written its spares.
    pub fn apply_rebuild(&mut self, job: u32, state: &ArrayState) {
        for (member, offset, bytes, to_mirror) in self.pending_rebuilds.remove(&job).unwrap_or_default() {
            if to_mirror {
                self.mirror.insert((state.device_of[member as usize], offset), bytes);
            } else {
                self.put(state, member, offset, bytes);
            }
        }
    }
}

/// What `sim.verify` found: every host read, and every sector written read
/// back after the run, against the last version written.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct VerifyReport {
    /// 512-byte sectors checked as host reads returned them.
    pub sectors_checked_on_reads: u64,
    /// Sectors ever written, read back through the array after the run.
    pub sectors_checked_after_run: u64,
    /// Parity sectors and mirror copies compared with the data they hold
    /// after the run (CR5M's mirrored stripes, whose parity is deferred,
    /// excepted).
    pub redundancy_checked_after_run: u64,
    /// Sectors whose bytes differed from their last write (expected: 0).
    pub mismatches: u64,
    /// The first few mismatches, described.
    pub first_mismatches: Vec<String>,
}

#[cfg(test)]
mod tests;
