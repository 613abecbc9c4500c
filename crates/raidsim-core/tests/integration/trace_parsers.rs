//! Trace readers on small fixtures written here by hand, one per format,
//! with each malformed case (issue #8): independent of `../shared/traces`.

use raidsim_core::config::{RawConfig, TraceFormat};
use raidsim_core::workload::trace::{parse_line, Parsed, TraceRecord};
use raidsim_core::workload::HostOp as Op;
use raidsim_core::workload::TraceStats;
use std::path::PathBuf;

fn record(format: TraceFormat, line: &str) -> TraceRecord {
    match parse_line(format, line, "D") {
        Ok(Parsed::Record(r)) => r,
        Ok(Parsed::Skip) => panic!("{format:?}: `{line}` skipped"),
        Err(e) => panic!("{format:?}: `{line}`: {e}"),
    }
}

fn error(format: TraceFormat, line: &str) -> String {
    match parse_line(format, line, "D") {
        Err(e) => e,
        Ok(_) => panic!("{format:?}: `{line}` accepted"),
    }
}

fn rec(time_ns: u128, device: u64, op: Op, offset_bytes: u64, len_bytes: u64) -> TraceRecord {
    TraceRecord { time_ns, device, op, offset_bytes, len_bytes, idle_after_ns: 0 }
}

#[test]
fn each_format_reads_its_fields_with_their_units() {
    use TraceFormat::*;
    // FILETIME ticks of 100 ns; bytes.
    assert_eq!(record(MsrCsv, "128166372003061629,hm,0,Write,6615040,4096,1503"), rec(12_816_637_200_306_162_900, 0, Op::Write, 6_615_040, 4096));
    // LBA in 512 B, size in bytes, seconds.
    assert_eq!(record(Spc, "0,303567,3584,w,0.026214"), rec(26_214_000, 0, Op::Write, 303_567 * 512, 3584));
    // ms, 512 B blocks, bit 0 of the hex flags = read.
    assert_eq!(record(DisksimAscii, "1.500000 3 100 8 1"), rec(1_500_000, 3, Op::Read, 51_200, 4096));
    assert_eq!(record(DisksimAscii, "2.000000 3 100 8 0x0"), rec(2_000_000, 3, Op::Write, 51_200, 4096));
    // ns, 512 B sectors, 0 = write.
    assert_eq!(record(MqsimAscii, "1000 2 16 8 0"), rec(1000, 2, Op::Write, 8192, 4096));
    // blkparse: seconds, sector + blocks, device = minor.
    let b = "8,16   1       42     0.000123456  4711  D   W 2048 + 8 [kworker]";
    assert_eq!(record(Blkparse, b), rec(123_456, 16, Op::Write, 1_048_576, 4096));
    // A discard is a trim, whatever flags follow its D (or the F of a preflush before it).
    for rwbs in ["D", "DS", "FD"] {
        let d = format!("8,16   1       43     0.000200000  4711  D  {rwbs} 4096 + 256 [fstrim]");
        assert_eq!(record(Blkparse, &d), rec(200_000, 16, Op::Trim, 4096 * 512, 256 * 512));
    }
    // SYSTOR: seconds, R/W, LUN, bytes.
    assert_eq!(record(SystorCsv, "1.5,0.001,R,2,8192,4096"), rec(1_500_000_000, 2, Op::Read, 8192, 4096));
    // FIU: ns, pid, process (may hold spaces), LBA and blocks of 512 B, R/W, major, minor, md5.
    let f = "89855150760 4604 my proc 27721624 8 W 6 0 8f4f5c6f";
    assert_eq!(record(Fiu, f), rec(89_855_150_760, 0, Op::Write, 27_721_624 * 512, 4096));
}

#[test]
fn malformed_lines_say_what_is_wrong() {
    use TraceFormat::*;
    assert!(error(MsrCsv, "1,hm,0,Erase,0,4096,1").contains("Type"));
    assert!(error(MsrCsv, "1,hm,0,Read,0").contains("fields"));
    assert!(error(Spc, "0,1,512,x,0.1").contains("Opcode"));
    assert!(error(DisksimAscii, "1.0 0 1 8 zz").contains("hex"));
    assert!(error(MqsimAscii, "1000 0 16 8 2").contains("type"));
    assert!(error(MqsimAscii, "-5 0 16 8 0").contains("time_ns"));
    assert!(error(SystorCsv, "1.5,0,X,0,0,512").contains("IOType"));
    assert!(error(Fiu, "1 2 p 3 8 Q 6 0 m").contains("R/W"));
    // blkparse: a truncated event and a NUL byte are errors, not skipped lines.
    assert!(error(Blkparse, "8,16   1  42  0.000123456  4711").contains("truncated"));
    assert!(error(Blkparse, "8,16 1 42 0.1 4711 D W 20\u{0}48 + 8 [k]").contains("NUL"));
    // Summary lines around the events are not events.
    assert!(matches!(parse_line(Blkparse, "CPU0 (8,16):", "D"), Ok(Parsed::Skip)));
}

#[test]
fn sector_counts_that_overflow_64_bits_are_errors_in_every_format() {
    use TraceFormat::*;
    // An MQSim LBA of 2^55 + 8 once became offset 4096.
    let lba = (1u64 << 55) + 8;
    assert!(error(MqsimAscii, &format!("0 0 {lba} 8 0")).contains("overflows"));
    assert!(error(Spc, &format!("0,{lba},4096,w,0.1")).contains("overflows"));
    assert!(error(DisksimAscii, &format!("0.0 0 {lba} 8 0")).contains("overflows"));
    assert!(error(Blkparse, &format!("8,16 1 1 0.1 1 D W {lba} + 8 [k]")).contains("overflows"));
    assert!(error(Fiu, &format!("1 2 p {lba} 8 W 6 0 m")).contains("overflows"));
}

/// A fixture file under the system's temp directory, unique to this test.
fn fixture(name: &str, text: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("raidsim-trace-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write fixture");
    path
}

/// Reading options that detect the format and keep every record.
fn every_record() -> raidsim_core::workload::trace::TraceOptions {
    raidsim_core::workload::trace::TraceOptions {
        format: None,
        device: None,
        max_requests: 0,
        blkparse_action: "D".into(),
        skip_malformed: false,
        skip_trims: false,
    }
}

fn simulate_trace(path: &std::path::Path, extra: &[&str]) -> Result<raidsim_core::Report, String> {
    let mut raw = RawConfig::new();
    let p = format!("workload.path=\"{}\"", path.display());
    for o in ["workload.kind=trace", p.as_str(), "ssd.geometry.blocks_per_plane=64"].iter().chain(extra) {
        raw.set(o).map_err(|e| e.to_string())?;
    }
    raidsim_core::simulate(raw.resolve().map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

#[test]
fn offset_plus_length_beyond_2_pow_64_is_an_error_naming_the_line() {
    // MSR layout: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
    let text = format!("1,h,0,Write,0,4096,1\n2,h,0,Write,{},4096,1\n", u64::MAX - 100);
    let path = fixture("huge-msr.csv", text.as_bytes());
    let err = simulate_trace(&path, &[]).expect_err("overflow");
    assert!(err.contains(":2:") && err.contains("overflows 64 bits"), "{err}");
}

#[test]
fn reversed_trace_counts_every_inversion_and_keeps_its_spacing() {
    // Five MQSim requests one second apart, newest first.
    let text: String = (0..5u64).rev().map(|i| format!("{} 0 {} 8 1\n", i * 1_000_000_000, i * 8)).collect();
    let path = fixture("reversed.trace", text.as_bytes());
    let r = simulate_trace(&path, &[]).expect("runs");
    assert_eq!(r.workload.out_of_order, 4);
    // Arrivals 0, 1, 2, 3, 4 s: five requests over about 4 s.
    assert!((r.host.iops - 1.25).abs() < 0.01, "iops {}", r.host.iops);
    assert!(r.warnings.iter().any(|w| w.contains("earlier than the previous")), "{:?}", r.warnings);
    let err = simulate_trace(&path, &["workload.out_of_order=\"error\""]).expect_err("refused");
    assert!(err.contains(":2:") && err.contains("precedes"), "{err}");
}

#[test]
fn a_trace_that_yields_no_request_is_an_error() {
    let path = fixture("msr-as-blkparse.csv", b"1,h,0,Write,0,4096,1\n2,h,0,Read,0,4096,1\n");
    let err = simulate_trace(&path, &["workload.format=\"blkparse\""]).expect_err("no request");
    assert!(err.contains("no request read from 2 lines as format blkparse"), "{err}");
    let err = simulate_trace(&path, &["workload.device=7"]).expect_err("no device 7");
    assert!(err.contains("device filter 7 matched nothing"), "{err}");
}

#[test]
fn cr_only_line_ends_are_refused_not_read_as_one_line() {
    let path = fixture("cr.trace", b"0 0 0 8 1\r1000 0 8 8 1\r2000 0 16 8 1\r");
    let err = simulate_trace(&path, &[]).expect_err("CR only");
    assert!(err.contains("CR alone"), "{err}");
}

#[test]
fn a_file_without_line_breaks_stops_at_the_line_cap() {
    let path = fixture("one-line.trace", &vec![b'7'; 3 << 20]);
    let err = simulate_trace(&path, &["workload.format=\"mqsim_ascii\""]).expect_err("no newline");
    assert!(err.contains("longer than"), "{err}");
}

#[test]
fn one_corrupt_timestamp_warns_and_trace_stats_shows_the_gap() {
    // Three requests 1 ms apart, then one 40 years later.
    let text = "0 0 0 8 1\n1000000 0 8 8 1\n2000000 0 16 8 1\n1262304000000000000 0 24 8 1\n";
    let path = fixture("glitch.trace", text.as_bytes());
    let r = simulate_trace(&path, &[]).expect("runs");
    assert!(r.warnings.iter().any(|w| w.contains("corrupt timestamp")), "{:?}", r.warnings);
    let s = TraceStats::of_file(&path, every_record()).expect("stats");
    assert_eq!(s.largest_gap_line, 4);
    assert!(s.largest_gap_ns > 1_000_000_000_000_000_000);
}

#[test]
fn timestamps_past_146_years_are_errors_naming_the_line() {
    let path = fixture("late.trace", b"0 0 0 8 1\n18446744073709551615 0 8 8 1\n");
    let err = simulate_trace(&path, &[]).expect_err("2^64 ns");
    assert!(err.contains(":2:") && err.contains("2^62"), "{err}");
    // A time scale that carries ordinary timestamps past the limit, likewise.
    let path = fixture("scaled.trace", b"0 0 0 8 1\n10000000000000 0 8 8 1\n");
    let err = simulate_trace(&path, &["workload.time_scale=1e9"]).expect_err("scaled past");
    assert!(err.contains("time_scale"), "{err}");
}

#[test]
fn trace_stats_of_a_trace_without_requests_is_an_error() {
    let path = fixture("msr-for-stats.csv", b"1,h,0,Write,0,4096,1\n");
    let opts = raidsim_core::workload::trace::TraceOptions { format: Some(TraceFormat::Blkparse), ..every_record() };
    let err = TraceStats::of_file(&path, opts).expect_err("nothing read").to_string();
    assert!(err.contains("no request read"), "{err}");
}

#[test]
fn one_corrupt_timestamp_mid_trace_warns_though_kept_spacing_doubles_it() {
    // Requests at 0, 1, 2 s, one at 1e9 s, then 3..8 s: replaying with kept
    // spacing, the spike's gap is exactly half of the run it doubles.
    let mut text: String = (0..3u64).map(|i| format!("{} 0 {} 8 1\n", i * 1_000_000_000, i * 8)).collect();
    text.push_str("1000000000000000000 0 24 8 1\n");
    text.extend((3..9u64).map(|i| format!("{} 0 {} 8 1\n", i * 1_000_000_000, 32 + i * 8)));
    let path = fixture("mid-glitch.trace", text.as_bytes());
    let r = simulate_trace(&path, &[]).expect("runs");
    assert!(r.warnings.iter().any(|w| w.contains("corrupt timestamp")), "{:?}", r.warnings);
}

/// MQSim lines `i` for `0..n`: a request every microsecond; every
/// `malformed_every`-th line (from line `malformed_every`) is malformed and
/// every `zero_every`-th a zero-length request.
fn long_trace(n: u64, malformed_every: u64, zero_every: u64) -> String {
    (1..=n)
        .map(|line| match line {
            l if l % malformed_every == 0 => "garbage line\n".to_string(),
            l if l % zero_every == 0 => format!("{} 0 8 0 1\n", l * 1000),
            l => format!("{} 0 {} 8 0\n", l * 1000, (l % 512) * 8),
        })
        .collect()
}

/// The trace is parsed on a thread that reads batches ahead; what the
/// report counts must still be what the simulation consumed. With
/// `sim.max_requests` the run stops mid-trace, several batches in: the
/// skipped lines counted are those before the last request issued (a hand
/// count), not those the reader thread had already passed.
#[test]
fn a_run_stopped_mid_trace_counts_skipped_lines_up_to_its_last_request_only() {
    let (n, malformed_every, zero_every) = (60_000u64, 97, 89);
    let path = fixture("long.trace", long_trace(n, malformed_every, zero_every).as_bytes());
    let kept = |line: u64| line % malformed_every != 0 && line % zero_every != 0;
    let stop = 20_000u64; // requests issued: past four 4096-record batches
    let last_line = (1..=n).filter(|&l| kept(l)).nth(stop as usize - 1).expect("enough lines");
    let malformed = (1..=last_line).filter(|l| l % malformed_every == 0).count() as u64;
    let zero = (1..=last_line).filter(|l| l % malformed_every != 0 && l % zero_every == 0).count() as u64;
    let r = simulate_trace(&path, &["workload.skip_malformed=true", &format!("sim.max_requests={stop}")]).expect("runs");
    assert_eq!(r.host.requests, stop);
    assert_eq!((r.workload.malformed_skipped, r.workload.zero_length_skipped), (malformed, zero));
    assert_eq!(r.workload.first_malformed.as_deref(), Some("line 97: 2 fields, expected 5"));
    // Read to the end, every skipped line counts.
    let r = simulate_trace(&path, &["workload.skip_malformed=true"]).expect("runs");
    let all_malformed = n / malformed_every;
    assert_eq!(r.workload.malformed_skipped, all_malformed);
    assert_eq!(r.host.requests, (1..=n).filter(|&l| kept(l)).count() as u64);
}

/// An error far into a trace (after many batches) still names its line,
/// and a trace that ends in skipped lines counts them.
#[test]
fn an_error_many_batches_in_names_its_line_and_trailing_skips_count() {
    let mut text = long_trace(30_000, 1_000_000, 1_000_000);
    text.push_str("30001000 0 8 8 X\n");
    let path = fixture("late-error.trace", text.as_bytes());
    let err = simulate_trace(&path, &[]).expect_err("bad type");
    assert!(err.contains(":30001:") && err.contains("type `X`"), "{err}");
    let mut text = long_trace(10_000, 1_000_000, 1_000_000);
    text.push_str("bad\nbad\n10003000 0 8 0 1\n");
    let path = fixture("trailing-skips.trace", text.as_bytes());
    let r = simulate_trace(&path, &["workload.skip_malformed=true"]).expect("runs");
    assert_eq!((r.host.requests, r.workload.malformed_skipped, r.workload.zero_length_skipped), (10_000, 2, 1));
}

/// A run that stopped at a bad line must not, asked to go on, finish as if
/// the trace were whole (its events before the bad line drained, the rest
/// of the trace unread).
#[test]
fn after_a_bad_line_going_on_is_an_error_not_the_end_of_the_trace() {
    let mut text = long_trace(5_000, 1_000_000, 1_000_000);
    text.push_str("5001000 0 8 8 X\n5002000 0 16 8 0\n");
    let path = fixture("stops-at-error.trace", text.as_bytes());
    let mut raw = RawConfig::new();
    let p = format!("workload.path=\"{}\"", path.display());
    for o in ["workload.kind=trace", p.as_str(), "ssd.geometry.blocks_per_plane=64"] {
        raw.set(o).expect("override");
    }
    let resolved = raw.resolve().expect("valid");
    let mut counting = raidsim_core::Counting::new(&resolved).expect("opens");
    let first = counting.step(u64::MAX).expect_err("bad type").to_string();
    assert!(first.contains(":5001:"), "{first}");
    let again = counting.step(u64::MAX).expect_err("still stopped").to_string();
    assert!(again.contains("stopped at an earlier error"), "{again}");
    let mut sim = raidsim_core::Simulation::new(resolved).expect("builds");
    let first = sim.run().expect_err("bad type").to_string();
    assert!(first.contains(":5001:"), "{first}");
    let again = sim.run().expect_err("still stopped").to_string();
    assert!(again.contains("stopped at an earlier error"), "{again}");
    assert!(sim.step(1).is_err(), "every later step is refused too");
}

#[test]
fn a_validation_trace_issues_each_request_after_the_measured_service_and_idle_time() {
    // DiskSim's valid/*.trace: R|W buffer block blocks service_us next_us.
    let text = "R Hit 100 8 5000.5 20000\nW Miss 7 4 1200 0.25\n# note\nR Hit 9 2 700 3\n";
    let path = fixture("drive.trace", text.as_bytes());
    let mut reader = raidsim_core::workload::trace::TraceReader::open(&path, every_record()).expect("opens");
    assert_eq!(reader.format(), TraceFormat::DisksimValidate, "detected");
    let mut got = Vec::new();
    while let Some(r) = reader.next_record().expect("parses") {
        got.push(r);
    }
    // Issues at 0, then 5000.5 + 20000 us, then that + 1200 + 0.25 us.
    assert_eq!(
        got,
        vec![
            TraceRecord { idle_after_ns: 20_000_000, ..rec(0, 0, Op::Read, 100 * 512, 8 * 512) },
            TraceRecord { idle_after_ns: 250, ..rec(25_000_500, 0, Op::Write, 7 * 512, 4 * 512) },
            TraceRecord { idle_after_ns: 3_000, ..rec(26_200_750, 0, Op::Read, 9 * 512, 2 * 512) },
        ]
    );
    assert!(error(TraceFormat::DisksimValidate, "X Hit 1 2 3 4").contains("neither R nor W"));
    assert!(error(TraceFormat::DisksimValidate, "R Maybe 1 2 3 4").contains("buffer action"));
}
