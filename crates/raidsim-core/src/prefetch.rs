//! Cache prefetches: how a simulation of large drives hides memory latency.
//!
//! A drive's page maps are megabytes per member (4 bytes per logical and
//! per physical page, [`crate::ftl`]), and a random workload reads them at
//! random: most lookups miss every cache level and wait about 100 ns for
//! memory, a third of a RAID-5 run's time (bench/run.py, RAID-5 4+1: 0.93
//! million requests/s in-core over 3 GiB, 1.32 million over 32 MiB). Yet a
//! trace-driven simulation knows what it will touch before it touches it:
//! the next request is read one arrival ahead ([`crate::sim`] looks up
//! where it will land and prefetches its map entries), and a
//! read-modify-write rewrites exactly the pages it pre-read (a read's
//! lookup prefetches what the rewrite updates). A prefetch is a hint: it
//! changes no value, so results are bit for bit those without it.
//!
//! This is the crate's one `unsafe` block: the processor's prefetch
//! instruction, behind a function that takes a slice and an index.

/// Asks the processor to bring `slice[index]` into cache, without waiting
/// for it; nothing when `index` is out of bounds, or on processors other
/// than x86-64.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = slice.get(index) {
        // SAFETY: a prefetch never faults and writes no memory (Intel SDM,
        // PREFETCHh), and the address is that of an element of `slice`.
        unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}
