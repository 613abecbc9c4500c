//! Where the in-order fill of a fresh drive puts each page, computed
//! instead of stored.
//!
//! Preconditioning writes logical pages `0..filled` in order to a fresh
//! drive. Static allocation is periodic in the logical page (the plane of
//! `lpn` depends on `lpn % period` only), every write appends to its plane,
//! and under `static_die` a die's planes take its pages in turn (see
//! [`crate::ssd::Ssd`]): so the physical page of every filled logical page,
//! and the logical page of every filled physical page, is a closed form.
//! The FTL stores only what later writes change ([`super::Ftl`]'s maps are
//! zero, meaning "as the fill left it", until then), which makes a full
//! drive cost O(blocks) to set up and memory only for the pages a run
//! touches. A test holds the result to writing the fill page by page.

use strength_reduce::StrengthReducedU64 as Divisor;

/// The fill's layout: which group (die or plane) takes each residue, and
/// its rank among the group's residues in one period. Divisions by its
/// constants use precomputed reciprocals: every read of a page the run has
/// not rewritten decodes its place here.
#[derive(Clone, Debug)]
pub(super) struct FillLayout {
    /// Logical pages the fill wrote (`0..filled`).
    pub filled: u64,
    /// Planes of a group that take its pages in turn (planes per die under
    /// `static_die`; 1 when each plane is its own group).
    pub planes_per_group: u32,
    /// Data pages per block.
    pub data_pages_per_block: u32,
    pub pages_per_block: u32,
    pub blocks_per_plane: u32,
    /// Residues of one period that fall in each group (the same for every group that takes any).
    pub per_group: u64,
    /// Per residue: its group and its rank in the group.
    pub group_rank: Vec<(u32, u32)>,
    /// Per group, per rank: the residue; empty for groups the fill never uses (mirroring chips).
    pub residues: Vec<Vec<u32>>,
    /// `group_rank.len()`, `per_group`, `planes_per_group` and
    /// `data_pages_per_block` as divisors.
    div_period: Divisor,
    div_per_group: Divisor,
    div_planes_per_group: Divisor,
    div_data_pages: Divisor,
}

impl FillLayout {
    /// The layout of a fill of `filled` pages under the static plane table
    /// `static_planes`; `planes_per_group` = planes per die (`static_die`) or 1.
    pub fn new(static_planes: &[u32], planes_per_group: u32, planes: u32, geometry: (u32, u32, u32), filled: u64) -> Self {
        let (blocks_per_plane, pages_per_block, data_pages_per_block) = geometry;
        let groups = planes.div_ceil(planes_per_group) as usize;
        let mut residues = vec![Vec::new(); groups];
        let group_rank = static_planes
            .iter()
            .enumerate()
            .map(|(r, &plane)| {
                let g = (plane / planes_per_group) as usize;
                residues[g].push(r as u32);
                (g as u32, (residues[g].len() - 1) as u32)
            })
            .collect();
        let per_group = residues.iter().map(Vec::len).max().unwrap_or(0) as u64;
        let period = static_planes.len() as u64;
        Self {
            filled,
            planes_per_group,
            data_pages_per_block,
            pages_per_block,
            blocks_per_plane,
            per_group,
            group_rank,
            residues,
            div_period: Divisor::new(period.max(1)),
            div_per_group: Divisor::new(per_group.max(1)),
            div_planes_per_group: Divisor::new(u64::from(planes_per_group)),
            div_data_pages: Divisor::new(u64::from(data_pages_per_block)),
        }
    }

    /// True when every group the fill uses takes as many residues per
    /// period (a permutation of the striping digits): the closed forms hold.
    pub fn is_regular(&self) -> bool {
        self.per_group > 0 && self.residues.iter().all(|r| r.is_empty() || r.len() as u64 == self.per_group)
    }

    /// The physical page the fill gave `lpn`, if it wrote it.
    pub fn ppn(&self, lpn: u64) -> Option<u32> {
        if lpn >= self.filled {
            return None;
        }
        let (q, r) = Divisor::div_rem(lpn, self.div_period);
        let (group, rank) = self.group_rank[r as usize];
        let k = q * self.per_group + u64::from(rank);
        let (n, turn) = Divisor::div_rem(k, self.div_planes_per_group); // n: the page's place in its plane
        let plane = u64::from(group) * u64::from(self.planes_per_group) + turn;
        let (block_in_plane, page) = Divisor::div_rem(n, self.div_data_pages);
        let block = plane * u64::from(self.blocks_per_plane) + block_in_plane;
        Some((block * u64::from(self.pages_per_block) + page) as u32)
    }

    /// The logical page the fill wrote at `ppn`, if any.
    pub fn lpn(&self, ppn: u32) -> Option<u64> {
        let (block, page) = (ppn / self.pages_per_block, ppn % self.pages_per_block);
        if page >= self.data_pages_per_block {
            return None; // a summary page
        }
        let (plane, block_in_plane) = (block / self.blocks_per_plane, block % self.blocks_per_plane);
        let n = u64::from(block_in_plane) * u64::from(self.data_pages_per_block) + u64::from(page);
        let ppg = u64::from(self.planes_per_group);
        let (group, turn) = (plane / self.planes_per_group, u64::from(plane % self.planes_per_group));
        let residues = &self.residues[group as usize];
        if residues.is_empty() {
            return None;
        }
        let k = n * ppg + turn;
        let (q, rank) = Divisor::div_rem(k, self.div_per_group);
        let lpn = q * self.group_rank.len() as u64 + u64::from(residues[rank as usize]);
        (lpn < self.filled).then_some(lpn)
    }

    /// Pages the fill wrote to `plane`.
    pub fn pages_in_plane(&self, plane: u32) -> u64 {
        let group = plane / self.planes_per_group;
        let residues = &self.residues[group as usize];
        if residues.is_empty() {
            return 0;
        }
        let period = self.group_rank.len() as u64;
        let (whole, rest) = (self.filled / period, self.filled % period);
        let in_group = whole * self.per_group + residues.iter().filter(|&&r| u64::from(r) < rest).count() as u64;
        let (ppg, turn) = (u64::from(self.planes_per_group), u64::from(plane % self.planes_per_group));
        (in_group + ppg - 1 - turn) / ppg
    }
}
