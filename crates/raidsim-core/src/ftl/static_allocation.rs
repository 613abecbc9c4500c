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
