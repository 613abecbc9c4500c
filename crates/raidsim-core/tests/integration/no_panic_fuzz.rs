//! Arbitrary input never panics (issue #8): every trace parser on arbitrary
//! bytes and on well-formed lines with arbitrary numbers, and validation on
//! arbitrary small configs. Case counts are bounded for CI.

use proptest::prelude::*;
use raidsim_core::config::{RawConfig, TraceFormat};
use raidsim_core::workload::trace::parse_line;

fn any_format() -> impl Strategy<Value = TraceFormat> {
    prop::sample::select(TraceFormat::ALL.to_vec())
}

/// A line of `format` whose numeric fields are arbitrary integers.
fn numeric_line(format: TraceFormat, n: [u64; 4]) -> String {
    let [a, b, c, d] = n;
    match format {
        TraceFormat::MsrCsv => format!("{a},h,{b},Write,{c},{d},1"),
        TraceFormat::Spc => format!("{a},{b},{c},w,{d}.5"),
        TraceFormat::DisksimAscii => format!("{a}.25 {b} {c} {d} 1"),
        TraceFormat::MqsimAscii => format!("{a} {b} {c} {d} 0"),
        TraceFormat::Blkparse => format!("8,{b} 1 1 {a}.000000001 1 D W {c} + {d} [p]"),
        TraceFormat::SystorCsv => format!("{a}.5,0,W,{b},{c},{d}"),
        TraceFormat::Fiu => format!("{a} 1 proc {c} {d} W 6 {b} md5"),
        TraceFormat::DisksimValidate => format!("W Hit {c} {d} {a}.5 {b}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn parsers_never_panic_on_arbitrary_bytes(format in any_format(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let line = String::from_utf8_lossy(&bytes);
        let _ = parse_line(format, &line, "D");
    }

    #[test]
    fn sector_products_never_wrap(format in any_format(), n in any::<[u64; 4]>(), small in any::<bool>()) {
        // Half the cases with numbers small enough to parse.
        let n = if small { n.map(|x| x >> 40) } else { n };
        let [_, b, c, d] = n;
        let bytes_fields = matches!(format, TraceFormat::MsrCsv | TraceFormat::SystorCsv);
        let scale = |x: u64| if bytes_fields { Some(x) } else { x.checked_mul(512) };
        // SPC's line is ASU,LBA,Size,...: the LBA (b) in sectors, the size (c) in bytes.
        let (offset, len) = match format {
            TraceFormat::Spc => (b.checked_mul(512), Some(c)),
            _ => (scale(c), scale(d)),
        };
        let parsed = parse_line(format, &numeric_line(format, n), "D");
        match (offset, len, parsed) {
            (Some(o), Some(l), Ok(raidsim_core::workload::trace::Parsed::Record(r))) => {
                prop_assert_eq!((r.offset_bytes, r.len_bytes), (o, l));
            }
            (None, _, Ok(_)) | (_, None, Ok(_)) => prop_assert!(false, "{format:?}: a wrapping product was accepted: {n:?}"),
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn validation_never_panics_on_arbitrary_small_configs(
        channels in 0u32..70_000,
        dies in 0u32..70_000,
        planes in 0u32..70_000,
        blocks in 0u32..70_000,
        pages in 0u32..70_000,
        page_size in 0u32..70_000,
        op in -0.5f64..1.5,
        members in 0u32..300,
        unit in 0u64..2_000_000,
        level in prop::sample::select(vec!["single", "raid0", "raid1", "raid10", "raid4", "raid5", "raid6"]),
    ) {
        let mut raw = RawConfig::new();
        let sets = [
            format!("ssd.geometry.channels={channels}"),
            format!("ssd.geometry.dies_per_chip={dies}"),
            format!("ssd.geometry.planes_per_die={planes}"),
            format!("ssd.geometry.blocks_per_plane={blocks}"),
            format!("ssd.geometry.pages_per_block={pages}"),
            format!("ssd.geometry.page_size_bytes={page_size}"),
            format!("ssd.geometry.over_provisioning_fraction={op}"),
            format!("array.level=\"{level}\""),
            format!("array.members={members}"),
            format!("array.stripe_unit_bytes={unit}"),
            "sim.memory_limit_bytes=1073741824".to_string(),
        ];
        for s in &sets {
            let _ = raw.set(s);
        }
        let _ = raw.resolve();
    }
}
