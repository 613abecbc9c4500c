//! Warnings about what the drives did that the host's figures hide: work
//! the flash went on with after the last request, options that found
//! nothing to act on.

use crate::device::{Cause, MemberDevice};
use crate::member::Member;

/// Write buffers that acknowledged writes the flash went on programming
/// well after the host's last completion (over 1 % of the run): throughput
/// counts acknowledgements.
pub(super) fn buffer_warning(out: &mut Vec<String>, (first_ns, _, last_done_ns): (u64, u64, u64), members: &[Member]) {
    let until = members.iter().map(Member::flash_programmed_until_ns).max().unwrap_or(0);
    if until.saturating_sub(last_done_ns) * 100 > last_done_ns.saturating_sub(first_ns) {
        out.push(format!(
            "write buffers: the flash went on programming acknowledged writes for {:.3} ms after the last request completed; \
             IOPS and MB/s count acknowledgements, not programs (a longer run, or one ending in reads, measures the flash)",
            (until - last_done_ns) as f64 / 1e6
        ));
    }
}

/// Drives whose reads were to pass buffered programs where none waited:
/// every write was larger than the write buffer and streamed through it,
/// booked as it came, and no read waited off the calendar either (for its
/// map entry, or its unit), so the option changed nothing.
pub(super) fn scheduling_warning(out: &mut Vec<String>, members: &[Member]) {
    let idle = members
        .iter()
        .filter_map(Member::as_ssd)
        .any(|ssd| ssd.programs_deferred() == Some(0) && ssd.page_reads_waited() == 0 && ssd.counters().pages_written[Cause::User.index()] > 0);
    if idle {
        out.push(
            "ssd.scheduling = \"reads_first\": no program could wait for reads to pass, as every write was larger than the \
             write buffer (ssd.write_buffer_bytes) and streamed through it; the run is the same as in arrival order"
                .into(),
        );
    }
}

/// Drives whose cached map was to start warm where preconditioning wrote
/// nothing to warm it with (a hot spare, a fresh drive, warms nothing
/// either: only when no drive warmed any entry is it said).
pub(super) fn warm_cache_warning(out: &mut Vec<String>, members: &[Member]) {
    let warmed: Vec<u64> = members.iter().filter_map(Member::as_ssd).filter_map(crate::ssd::Ssd::cmt_warmed).collect();
    if !warmed.is_empty() && warmed.iter().all(|&n| n == 0) {
        out.push(
            "ssd.ftl.cmt_starts_warm: preconditioning wrote no page, so the cached map started empty (it is warmed with \
             pages drawn among those written; set precondition.fill_fraction)"
                .into(),
        );
    }
}

/// Drives whose collection yields (`ssd.ftl.gc_hard_threshold_fraction`)
/// and whose owed copies and erases grew over the run by more than a
/// tenth of the run's: that time is in no response, so the run measured a
/// drive falling behind with its collection, not its steady state (where
/// what is owed stays level).
pub(super) fn owed_gc_warning(out: &mut Vec<String>, members: &[Member]) {
    let (grew, run) =
        members.iter().filter_map(Member::as_ssd).filter_map(crate::ssd::Ssd::gc_pieces_owed_growth).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if grew * 10 > run && run > 0 {
        out.push(format!(
            "ssd.ftl.gc_hard_threshold_fraction: {grew} more copies and erases of collection were owed when the run ended than when \
             it began ({:.0} % of the run's {run}); their time is in no response, so the figures describe a drive falling behind \
             with its collection, not its steady state (a longer run, or sim.warmup_requests, measures that)",
            grew as f64 * 100.0 / run as f64
        ));
    }
}
