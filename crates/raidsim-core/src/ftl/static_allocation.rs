//! Static allocation (`allocation = "static"` or `"static_die"`): a logical
//! page's plane follows from its number, digit by digit over channels, chips,
//! dies and planes in `static_order` (SSDsim's static allocation).

use super::*;

/// The whole drive's static striping: every channel, every data chip
/// (mirroring chips take no data).
pub(super) fn drive_planes(order: &str, l: &FlashLayout) -> Vec<u32> {
    let all = |n: u32| (0..n).collect::<Vec<u32>>();
    static_planes(order, l, &all(l.geometry.channels), &all(l.data_chips_per_channel()))
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
            .map(|p| (p.first_lpn, p.first_lpn + p.pages, static_planes(order, l, &p.channels, &p.chips)))
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

/// The plane of each residue of `lpn` modulo the striping's period, over
/// `channels` and, in each, `chips`: consecutive pages stripe across the
/// digits of `order` (a permutation of `C` channel, `W` chip, `D` die, `P`
/// plane, as validation requires), fastest first, channels and chips taking
/// only the listed values.
fn static_planes(order: &str, l: &FlashLayout, channels: &[u32], chips: &[u32]) -> Vec<u32> {
    let g = &l.geometry;
    let (dies, planes) = (g.dies_per_chip, g.planes_per_die);
    let all = |n: u32| (0..n).collect::<Vec<u32>>();
    let mut digits: Vec<(Vec<u32>, u32)> = Vec::with_capacity(4);
    for c in order.chars() {
        digits.push(match c {
            'C' => (channels.to_vec(), g.chips_per_channel * dies * planes),
            'W' => (chips.to_vec(), dies * planes),
            'D' => (all(dies), planes),
            _ => (all(planes), 1),
        });
    }
    let period: usize = digits.iter().map(|(v, _)| v.len()).product();
    (0..period)
        .map(|residue| {
            let (mut rest, mut plane) = (residue, 0);
            for (values, stride) in &digits {
                plane += values[rest % values.len()] * stride;
                rest /= values.len();
            }
            plane
        })
        .collect()
}
