//! Wear levelling, as MQSim's GC-and-WL unit does it (after Chang, "On
//! efficient wear leveling for large-scale flash-memory storage systems",
//! SAC 2007). Dynamic: a plane opens its least-erased free block, not the
//! one free the longest, so blocks that collection frees often are not
//! worn faster than the free ones. Static: data that is never rewritten
//! pins its blocks at low erase counts; after a collection, when a plane's
//! erase counts spread by more than the threshold, its least-erased block
//! in use is relocated like a victim (its pages copied, the block erased)
//! so that it joins the free blocks and takes hot data.

use super::*;

/// The free block to open next: the first of the least-erased ones with
/// dynamic levelling, else the one free the longest.
pub(super) fn take_free_block(free: &mut VecDeque<u32>, erase_count: &[u32], dynamic: bool) -> Option<u32> {
    if !dynamic {
        return free.pop_front();
    }
    let at = (0..free.len()).min_by_key(|&i| erase_count[free[i] as usize])?;
    free.remove(at)
}

impl Ftl {
    /// Static levelling of `plane` after a collection there: relocates
    /// its least-erased block in use when the plane's erase counts spread
    /// by more than the threshold.
    pub(super) fn level_statically(&mut self, plane: u32, now_ns: Ns) -> Result<GcWork> {
        let Some(threshold) = self.static_wear_levelling_threshold else { return Ok(GcWork::default()) };
        // The cache's blocks wear by their own cycle of fills and folds.
        let blocks = self.layout.native_blocks(plane);
        let max = blocks.clone().map(|b| self.erase_count[b as usize]).max().unwrap_or(0);
        let coldest = blocks.filter(|&b| self.state[b as usize] == BlockState::Used).min_by_key(|&b| self.erase_count[b as usize]);
        match coldest {
            Some(cold) if max - self.erase_count[cold as usize] > threshold => {
                self.static_wear_levelling_moves += 1;
                self.collect_block(plane, cold, now_ns)
            }
            _ => Ok(GcWork::default()),
        }
    }

    /// Blocks static wear levelling relocated since the counts last restarted.
    pub fn static_wear_levelling_moves(&self) -> u64 {
        self.static_wear_levelling_moves
    }

    /// Restarts the FTL's counts of what it did (after preconditioning,
    /// after a warm-up), as the drive's own counters restart; wear is kept.
    pub fn reset_counts(&mut self) {
        self.static_wear_levelling_moves = 0;
        self.reset_slc_counts();
        if let Some(lb) = self.log_blocks.as_mut() {
            lb.reset_merges();
        }
    }
}
