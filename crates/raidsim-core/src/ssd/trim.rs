//! A drive's side of a trim: the pages a trim covers whole leave the page
//! map (`ftl::trim`) and the DRAM cache, as the trim reaches the front of
//! the drive's queue ([`super::host_queue`]). With the map in DRAM that
//! takes no flash work. With a cached map (`scheme = "dftl"`) each entry is
//! looked up through the cache, and changed there as a write's is where its
//! page held data: a miss reads its translation page, and a changed entry
//! evicted is written back; that work is booked
//! from the trim's instant on, as the drive's own, and the host does not
//! wait for it. A page a trim covers only in part keeps its data: the drive
//! maps whole pages, and the rest of the page is still the host's. What it
//! counts is reported under `ssd.trim.*`.

use super::*;
use crate::config::FtlScheme;

/// What a drive did with the trims it was given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrimCounts {
    /// Pages a trim covered whole that held data: now invalid.
    pub pages_dropped: u64,
    /// Pages a trim covered whole that held no data (never written, or trimmed before).
    pub pages_unmapped: u64,
    /// Pages a trim covered in part: kept.
    pub pages_partial: u64,
}

impl Ssd {
    /// Trims `[offset, offset + len)`, issued at `now_ns`, in its turn
    /// among the commands issued before it. The block-mapped FTLs take no
    /// trims (`config::refuse_trims`).
    pub fn trim(&mut self, now_ns: Ns, offset_bytes: u64, len_bytes: u64) -> Result<()> {
        let fits = offset_bytes.checked_add(len_bytes).is_some_and(|e| len_bytes > 0 && e <= self.capacity_bytes);
        if !fits {
            return Err(Error::Device(format!("trim [{offset_bytes}, +{len_bytes}) outside the drive's {} bytes", self.capacity_bytes)));
        }
        if matches!(self.ftl_scheme, FtlScheme::Fast | FtlScheme::BlockMap) {
            // `config::refuse_trims` stops such a run before its first trim.
            return Err(Error::Internal(format!("a trim reached a drive whose FTL is `{}`", self.ftl_scheme.name())));
        }
        self.take_trim(now_ns, offset_bytes, len_bytes)
    }

    /// Trims `[offset, offset + len)` at `now_ns`, when the drive takes
    /// it; its pages are `counted` unless it was issued before the
    /// counters last restarted.
    pub(super) fn apply_trim(&mut self, now_ns: Ns, offset_bytes: u64, len_bytes: u64, counted: bool) -> Result<()> {
        let end = offset_bytes + len_bytes;
        self.start_waiting_programs(now_ns)?;
        let page = self.page_size_bytes;
        let (first_whole, end_whole) = (offset_bytes.div_ceil(page), end / page);
        let touched = end.div_ceil(page) - offset_bytes / page;
        let whole = end_whole.saturating_sub(first_whole);
        let mut counts = TrimCounts { pages_partial: touched - whole, ..TrimCounts::default() };
        for lpn in first_whole..end_whole {
            self.poll_stop(lpn - first_whole)?;
            if let Some(cache) = self.write_cache.as_mut() {
                cache.trim(lpn);
            }
            self.forget_waiting_page(lpn);
            if !self.waiting_for_room.is_empty() {
                self.forget_page_waiting_for_room(lpn);
            }
            // With a cached map the entry is looked up (a miss reads its
            // translation page) and changed only where the page held data.
            let mapped = self.ftl.lookup(lpn).is_some();
            let (known, write_back) = self.translate(now_ns, lpn, mapped, now_ns);
            self.write_back(now_ns, write_back, known)?;
            // A page a read placed is invalidated too, but held no data.
            let placed = self.forget_placed_by_read(lpn);
            if self.ftl.trim(lpn)? && !placed {
                counts.pages_dropped += 1;
            } else {
                counts.pages_unmapped += 1;
            }
        }
        if counted {
            let t = &mut self.trims;
            (t.pages_dropped, t.pages_unmapped, t.pages_partial) =
                (t.pages_dropped + counts.pages_dropped, t.pages_unmapped + counts.pages_unmapped, t.pages_partial + counts.pages_partial);
        }
        Ok(())
    }

    /// What the drive's trims did since its counters last restarted.
    pub fn trim_counts(&self) -> TrimCounts {
        self.trims
    }

    /// The trim counters under `prefix`, when the run trimmed anything.
    pub(super) fn trim_stats(&self, prefix: &str, out: &mut Stats) {
        let t = self.trims;
        if t == TrimCounts::default() {
            return;
        }
        out.push(Stat::new(
            format!("{prefix}.trim.pages_dropped"),
            t.pages_dropped as f64,
            "pages",
            "pages a trim covered whole that held data: now invalid",
        ));
        out.push(Stat::new(
            format!("{prefix}.trim.pages_unmapped"),
            t.pages_unmapped as f64,
            "pages",
            "pages a trim covered whole that held no data (never written, placed by a read, or trimmed already)",
        ));
        out.push(Stat::new(format!("{prefix}.trim.pages_partial"), t.pages_partial as f64, "pages", "pages a trim covered only in part: kept"));
    }
}
