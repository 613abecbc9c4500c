//! RAID-5 across the channels of one SSD (CR5, Pan & Xie 2018): its chips
//! fail one by one, but loss is a matter of channels.
//!
//! A stripe keeps one unit on each channel, on whichever of the channel's
//! chips the FTL chose, so a failed chip costs each stripe at most the
//! unit on its channel: any number of chips of one channel may be down at
//! once, and data is lost when chips of two channels are (with dynamic
//! allocation some stripe then has units on both). A failed chip's pages
//! are rebuilt onto a spare chip of its own channel; a chip inside an SSD
//! is never replaced, so once a channel's spares are used up its next
//! failed chip stays down for good and the channel is degraded from then
//! on.

/// The chips of one lifetime, by channel.
pub(super) struct Channels {
    chips_per_channel: usize,
    spares_per_channel: u32,
    /// Each channel's chips down now.
    down: Vec<u32>,
    /// Each channel's spare chips left.
    spares: Vec<u32>,
}

impl Channels {
    pub(super) fn new(channels: usize, chips_per_channel: usize, spares_per_channel: u32) -> Self {
        Self { chips_per_channel, spares_per_channel, down: vec![0; channels], spares: vec![spares_per_channel; channels] }
    }

    /// Every chip up, every spare on hand.
    pub(super) fn reset(&mut self) {
        self.down.fill(0);
        self.spares.fill(self.spares_per_channel);
    }

    fn channel(&self, chip: usize) -> usize {
        chip / self.chips_per_channel
    }

    /// Chip `chip` failed: whether its channel was clean until now, and
    /// whether a spare chip of the channel takes its pages (one is used).
    pub(super) fn fail(&mut self, chip: usize) -> (bool, bool) {
        let c = self.channel(chip);
        self.down[c] += 1;
        let spare = self.spares[c] > 0;
        self.spares[c] -= u32::from(spare);
        (self.down[c] == 1, spare)
    }

    /// Chip `chip`'s pages are rebuilt onto its spare: whether its channel
    /// is clean again.
    pub(super) fn rebuilt(&mut self, chip: usize) -> bool {
        let c = self.channel(chip);
        self.down[c] -= 1;
        self.down[c] == 0
    }

    /// Channels with no chip down: what a rebuild reads, one unit of each
    /// per stripe.
    pub(super) fn clean(&self) -> u32 {
        self.down.iter().filter(|&&d| d == 0).count() as u32
    }
}
