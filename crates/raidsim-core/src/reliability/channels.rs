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
//!
//! CR5M adds a mirroring chip to each channel (the channel's last). Its
//! failure loses mirror copies only: the data chips still hold every page,
//! and the old copies CR5M keeps for them (its EPPN) keep parity true, so
//! a channel whose mirroring chip alone is down counts as clean. But the
//! newest version of a page mirrored and not yet folded into parity lives
//! only on its data chip and its channel's mirroring chip: when both are
//! down at once those pages are lost.

/// The chips of one lifetime, by channel.
pub(super) struct Channels {
    chips_per_channel: usize,
    spares_per_channel: u32,
    /// CR5M: each channel's last chip is its mirroring chip.
    mirroring: bool,
    /// Each channel's data chips down now.
    down: Vec<u32>,
    /// CR5M: whether each channel's mirroring chip is down now.
    mirror_down: Vec<bool>,
    /// Each channel's spare chips left.
    spares: Vec<u32>,
}

impl Channels {
    /// `chips_per_channel` counts every chip of a channel, its mirroring
    /// chip (the last) too when `mirroring`.
    pub(super) fn new(channels: usize, chips_per_channel: usize, spares_per_channel: u32, mirroring: bool) -> Self {
        Self {
            chips_per_channel,
            spares_per_channel,
            mirroring,
            down: vec![0; channels],
            mirror_down: vec![false; channels],
            spares: vec![spares_per_channel; channels],
        }
    }

    /// Every chip up, every spare on hand.
    pub(super) fn reset(&mut self) {
        self.down.fill(0);
        self.mirror_down.fill(false);
        self.spares.fill(self.spares_per_channel);
    }

    pub(super) fn is_mirror(&self, chip: usize) -> bool {
        self.mirroring && chip % self.chips_per_channel == self.chips_per_channel - 1
    }

    /// CR5M: the data chips whose mirrored pages not yet in parity chip
    /// `chip`'s failure just lost: each data chip of its channel down, for
    /// the mirroring chip; itself, for a data chip whose mirroring chip is
    /// down; else none.
    pub(super) fn data_chips_losing_mirrored_pages(&self, chip: usize) -> u32 {
        let c = self.channel(chip);
        if !(self.mirroring && self.mirror_down[c]) {
            0
        } else if self.is_mirror(chip) {
            self.down[c]
        } else {
            1
        }
    }

    fn channel(&self, chip: usize) -> usize {
        chip / self.chips_per_channel
    }

    /// Chip `chip` failed: whether its channel was clean until now, and
    /// whether a spare chip of the channel takes its pages (one is used).
    pub(super) fn fail(&mut self, chip: usize) -> (bool, bool) {
        let c = self.channel(chip);
        let spare = self.spares[c] > 0;
        self.spares[c] -= u32::from(spare);
        if self.is_mirror(chip) {
            self.mirror_down[c] = true;
            return (false, spare); // parity stays true without the mirror copies
        }
        self.down[c] += 1;
        (self.down[c] == 1, spare)
    }

    /// Chip `chip`'s pages are rebuilt onto its spare: whether its channel
    /// is clean again.
    pub(super) fn rebuilt(&mut self, chip: usize) -> bool {
        let c = self.channel(chip);
        if self.is_mirror(chip) {
            self.mirror_down[c] = false;
            return false; // the channel's count of data chips down is as it was
        }
        self.down[c] -= 1;
        self.down[c] == 0
    }

    /// Channels with no chip down: what a rebuild reads, one unit of each
    /// per stripe.
    pub(super) fn clean(&self) -> u32 {
        self.down.iter().filter(|&&d| d == 0).count() as u32
    }
}
