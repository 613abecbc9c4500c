//! Static allocation (`allocation = "static"` or `"static_die"`): a logical
//! page's plane follows from its number, digit by digit over channels, chips,
//! dies and planes in `static_order` (SSDsim's static allocation).

use super::*;

/// The plane of each residue of `lpn` modulo the digits' product:
/// consecutive pages stripe across the digits, fastest first.
pub(super) fn static_planes(digits: &[(u32, u32); 4]) -> Vec<u32> {
    let period: u64 = digits.iter().map(|&(radix, _)| u64::from(radix)).product();
    (0..period)
        .map(|residue| {
            let (mut rest, mut plane) = (residue, 0u64);
            for &(radix, stride) in digits {
                plane += (rest % u64::from(radix)) * u64::from(stride);
                rest /= u64::from(radix);
            }
            plane as u32
        })
        .collect()
}

/// Static allocation's digits over the data chips (mirroring chips take no data).
pub(super) fn static_digits(order: &str, l: &FlashLayout) -> [(u32, u32); 4] {
    let mut digits = [(1, 0); 4];
    for (i, c) in order.chars().enumerate().take(4) {
        digits[i] = match c {
            'C' => (l.geometry.channels, l.geometry.chips_per_channel * l.geometry.dies_per_chip * l.geometry.planes_per_die),
            'W' => (l.data_chips_per_channel(), l.geometry.dies_per_chip * l.geometry.planes_per_die),
            'D' => (l.geometry.dies_per_chip, l.geometry.planes_per_die),
            _ => (l.geometry.planes_per_die, 1),
        };
    }
    digits
}

/// Flows that keep their data on their own chips (a flows workload's
/// `channels` and `chips`, MQSim's per-flow resources): each flow's part of
/// the logical pages stripes, in `static_order`, over its chips' planes
/// only. A page outside every part (the host never addresses one) keeps the
/// whole drive's striping.
pub(super) struct FlowDomains {
    /// Per part: first logical page, one past its last, and its planes in striping order.
    parts: Vec<(u64, u64, Vec<u32>)>,
}

impl FlowDomains {
    /// The domains of the parts that name their chips; `None` when none does.
    pub(super) fn new(order: &str, l: &FlashLayout, parts: &[crate::config::DrivePart]) -> Option<Self> {
        let parts: Vec<_> = parts
            .iter()
            .filter(|p| !p.channels.is_empty())
            .map(|p| (p.first_lpn, p.first_lpn + p.pages, planes_within(order, l, &p.channels, &p.chips)))
            .collect();
        (!parts.is_empty()).then_some(Self { parts })
    }

    /// The plane of `lpn` if it lies in a part.
    #[inline]
    pub(super) fn plane(&self, lpn: u64) -> Option<u32> {
        let (first, _, planes) = self.parts.iter().find(|(first, end, _)| (*first..*end).contains(&lpn))?;
        Some(planes[((lpn - first) % planes.len() as u64) as usize])
    }
}

/// Static striping restricted to `channels` and, in each, `chips`: the
/// digits of [`static_digits`] with those two taking only the listed values.
fn planes_within(order: &str, l: &FlashLayout, channels: &[u32], chips: &[u32]) -> Vec<u32> {
    let g = &l.geometry;
    let (dies, planes) = (g.dies_per_chip, g.planes_per_die);
    let all = |n: u32| (0..n).collect::<Vec<u32>>();
    let mut digits: Vec<(Vec<u32>, u32)> = Vec::with_capacity(4);
    for c in order.chars().take(4) {
        digits.push(match c {
            'C' => (channels.to_vec(), g.chips_per_channel * dies * planes),
            'W' => (chips.to_vec(), dies * planes),
            'D' => (all(dies), planes),
            _ => (all(planes), 1),
        });
    }
    // A digit the order leaves out stays at its first value, as the whole drive's striping leaves it at 0.
    let fixed = |letter: char, values: &[u32], stride: u32| if order.contains(letter) { 0 } else { values[0] * stride };
    let base = fixed('C', channels, g.chips_per_channel * dies * planes) + fixed('W', chips, dies * planes);
    let period: usize = digits.iter().map(|(v, _)| v.len()).product();
    (0..period)
        .map(|residue| {
            let (mut rest, mut plane) = (residue, base);
            for (values, stride) in &digits {
                plane += values[rest % values.len()] * stride;
                rest /= values.len();
            }
            plane
        })
        .collect()
}
