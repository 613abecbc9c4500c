//! Line parsers, one per trace format. Each turns one text line into a
//! [`TraceRecord`], skips it (header, comment, non-I/O event), or says what
//! is wrong with it.

use crate::config::TraceFormat;
use crate::workload::HostOp;

/// One I/O of a trace, before time scaling and capacity fitting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Timestamp in ns on the trace's own clock.
    pub time_ns: u128,
    /// Device / disk / LUN number (format-specific, see [`expected_layout`]).
    pub device: u64,
    /// Read, write or trim.
    pub op: HostOp,
    /// First byte.
    pub offset_bytes: u64,
    /// Length in bytes.
    pub len_bytes: u64,
    /// The host's idle time after this request completes before it issued the next, ns
    /// (DiskSim's validation traces); 0 where the format has none.
    pub idle_after_ns: u64,
}

/// What a parser made of a line.
pub enum Parsed {
    /// An I/O.
    Record(TraceRecord),
    /// Not an I/O (header, blank, other event): skip silently.
    Skip,
}

/// The layout of a line, for error messages.
pub fn expected_layout(format: TraceFormat) -> &'static str {
    match format {
        TraceFormat::MsrCsv => "`Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` (FILETIME ticks, Read|Write, bytes)",
        TraceFormat::Spc => "`ASU,LBA,Size,Opcode,Timestamp` (LBA in 512 B, bytes, r|R|w|W, seconds; device = ASU)",
        TraceFormat::DisksimAscii => "`time_ms device start_block blocks flags` (512 B blocks, hex flags, bit 0 = read)",
        TraceFormat::MqsimAscii => "`time_ns device lba sectors type` (512 B sectors, type 0 = write, 1 = read)",
        TraceFormat::Blkparse => "`maj,min cpu seq time pid action rwbs sector + blocks [process]` (device = minor)",
        TraceFormat::SystorCsv => "`Timestamp,Response,IOType,LUN,Offset,Size` (seconds, R|W, bytes; device = LUN)",
        TraceFormat::Fiu => "`time_ns pid process lba blocks R|W major minor md5` (512 B blocks; device = minor)",
        TraceFormat::DisksimValidate => "`R|W buffer block blocks service_us next_us` (512 B blocks; buffer = Hit|Miss|Doub|Trip)",
    }
}

/// Parses one line of `format`.
pub fn parse_line(format: TraceFormat, line: &str, blkparse_action: &str) -> Result<Parsed, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(Parsed::Skip);
    }
    if line.contains('\0') {
        return Err("the line holds a NUL byte: a corrupt or binary file".into());
    }
    match format {
        TraceFormat::MsrCsv => msr(line),
        TraceFormat::Spc => spc(line),
        TraceFormat::DisksimAscii => disksim(line),
        TraceFormat::MqsimAscii => mqsim(line),
        TraceFormat::Blkparse => blkparse(line, blkparse_action),
        TraceFormat::SystorCsv => systor(line),
        TraceFormat::Fiu => fiu(line),
        TraceFormat::DisksimValidate => disksim_validate(line),
    }
}

fn int(field: &str, what: &str) -> Result<u64, String> {
    field.trim().parse().map_err(|_| format!("{what} `{field}` is not a non-negative integer"))
}

/// A count of 512-byte sectors or blocks, in bytes, refusing overflow.
fn sectors(field: &str, what: &str) -> Result<u64, String> {
    int(field, what)?.checked_mul(512).ok_or_else(|| format!("{what} `{field}` × 512 bytes overflows 64 bits"))
}

/// The first `N` fields of a line and how many it has in all, split
/// without allocating (a trace has millions of lines).
struct Split<'a, const N: usize> {
    parts: [&'a str; N],
    count: usize,
}

impl<'a, const N: usize> Split<'a, N> {
    fn of(pieces: impl Iterator<Item = &'a str>) -> Self {
        let mut parts = [""; N];
        let mut count = 0;
        for piece in pieces {
            if count < N {
                parts[count] = piece;
            }
            count += 1;
        }
        Self { parts, count }
    }

    fn get(&self, i: usize) -> Option<&'a str> {
        (i < self.count.min(N)).then(|| self.parts[i])
    }
}

/// Exactly `N` fields (or at least `N`, the first `N` kept).
fn fields<'a, const N: usize>(split: &Split<'a, N>, at_least: bool) -> Result<[&'a str; N], String> {
    let ok = if at_least { split.count >= N } else { split.count == N };
    if !ok {
        return Err(format!("{} fields, expected {}{N}", split.count, if at_least { "at least " } else { "" }));
    }
    Ok(split.parts)
}

/// Parses a non-negative decimal number exactly into units of 10^-`digits`
/// (seconds with 9 digits = ns), so large timestamps keep every digit.
pub fn decimal_scaled(text: &str, digits: u32, what: &str) -> Result<u128, String> {
    let bad = || format!("{what} `{text}` is not a non-negative decimal number");
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && frac.is_empty() {
        return Err(bad());
    }
    if !whole.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let whole: u128 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| bad())? };
    let mut frac_units: u128 = 0;
    for (i, c) in frac.chars().enumerate() {
        if i as u32 >= digits {
            break;
        }
        frac_units += u128::from(c as u8 - b'0') * 10u128.pow(digits - 1 - i as u32);
    }
    Ok(whole * 10u128.pow(digits) + frac_units)
}

fn msr(line: &str) -> Result<Parsed, String> {
    let [ts, _host, disk, kind, offset, size, _resp] = fields::<7>(&Split::of(line.split(',')), false)?;
    if ts == "Timestamp" {
        return Ok(Parsed::Skip);
    }
    let op = match kind {
        "Read" => HostOp::Read,
        "Write" => HostOp::Write,
        other => return Err(format!("Type `{other}` is neither Read nor Write")),
    };
    Ok(Parsed::Record(TraceRecord {
        time_ns: u128::from(int(ts, "Timestamp")?) * 100,
        device: int(disk, "DiskNumber")?,
        op,
        offset_bytes: int(offset, "Offset")?,
        len_bytes: int(size, "Size")?,
        idle_after_ns: 0,
    }))
}

fn spc(line: &str) -> Result<Parsed, String> {
    let [asu, lba, size, opcode, ts] = fields::<5>(&Split::of(line.split(',')), false)?;
    let op = match opcode.trim() {
        "r" | "R" => HostOp::Read,
        "w" | "W" => HostOp::Write,
        other => return Err(format!("Opcode `{other}` is not r, R, w or W")),
    };
    Ok(Parsed::Record(TraceRecord {
        time_ns: decimal_scaled(ts.trim(), 9, "Timestamp")?,
        device: int(asu, "ASU")?,
        op,
        offset_bytes: sectors(lba, "LBA")?,
        len_bytes: int(size, "Size")?,
        idle_after_ns: 0,
    }))
}

fn disksim(line: &str) -> Result<Parsed, String> {
    let [t, dev, block, blocks, flags] = fields::<5>(&Split::of(line.split_whitespace()), false)?;
    let flags = u64::from_str_radix(flags.trim_start_matches("0x"), 16).map_err(|_| format!("flags `{flags}` are not hex"))?;
    Ok(Parsed::Record(TraceRecord {
        time_ns: decimal_scaled(t, 6, "time_ms")?,
        device: int(dev, "device")?,
        op: if flags & 1 == 1 { HostOp::Read } else { HostOp::Write },
        offset_bytes: sectors(block, "start_block")?,
        len_bytes: sectors(blocks, "blocks")?,
        idle_after_ns: 0,
    }))
}

/// A validation trace's line carries no timestamp: its `time_ns` is the
/// time from this request's issue to the next one's (the real drive's
/// service time plus the host's idle time), which the reader sums into
/// issue instants ([`crate::workload::trace::TraceReader`]).
fn disksim_validate(line: &str) -> Result<Parsed, String> {
    let [rw, buffer, block, blocks, service, next] = fields::<6>(&Split::of(line.split_whitespace()), false)?;
    let op = match rw {
        "R" => HostOp::Read,
        "W" => HostOp::Write,
        other => return Err(format!("`{other}` is neither R nor W")),
    };
    if !matches!(buffer, "Hit" | "Miss" | "Doub" | "Trip") {
        return Err(format!("buffer action `{buffer}` is none of Hit, Miss, Doub, Trip"));
    }
    let service = decimal_scaled(service, 3, "service_us")?;
    let next = decimal_scaled(next, 3, "next_us")?;
    Ok(Parsed::Record(TraceRecord {
        time_ns: service + next,
        device: 0,
        op,
        offset_bytes: sectors(block, "block")?,
        len_bytes: sectors(blocks, "blocks")?,
        idle_after_ns: u64::try_from(next).map_err(|_| format!("next_us `{next}` ns does not fit 64 bits"))?,
    }))
}

fn mqsim(line: &str) -> Result<Parsed, String> {
    let [t, dev, lba, count, kind] = fields::<5>(&Split::of(line.split_whitespace()), false)?;
    let op = match kind {
        "0" => HostOp::Write,
        "1" => HostOp::Read,
        other => return Err(format!("type `{other}` is neither 0 (write) nor 1 (read)")),
    };
    Ok(Parsed::Record(TraceRecord {
        time_ns: u128::from(int(t, "time_ns")?),
        device: int(dev, "device")?,
        op,
        offset_bytes: sectors(lba, "lba")?,
        len_bytes: sectors(count, "sectors")?,
        idle_after_ns: 0,
    }))
}

fn blkparse(line: &str, action: &str) -> Result<Parsed, String> {
    let parts = Split::<10>::of(line.split_whitespace());
    // Summary and message lines that blkparse prints around the events do
    // not start with `maj,min`.
    let Some((major, minor)) = parts.get(0).and_then(|d| d.split_once(',')) else { return Ok(Parsed::Skip) };
    let is_event = int(major, "major").is_ok() && int(minor, "minor").is_ok();
    if is_event && parts.count < 7 {
        return Err(format!("truncated event: {} fields, expected at least 7", parts.count));
    }
    if parts.count < 7 || parts.parts[5] != action {
        return Ok(Parsed::Skip);
    }
    let rwbs = parts.parts[6];
    // blkparse writes one of D (discard), W, R or N for the operation,
    // after F for a preflush: a discard may carry the write flag, but then
    // shows only D.
    let op = if rwbs.contains('D') {
        HostOp::Trim
    } else if rwbs.contains('W') {
        HostOp::Write
    } else if rwbs.contains('R') {
        HostOp::Read
    } else {
        return Ok(Parsed::Skip); // a flush or another request without data
    };
    let [_, _, _, time, _, _, _, sector, plus, blocks] = fields::<10>(&parts, true)?;
    if plus != "+" {
        return Err(format!("expected `sector + blocks`, found `{sector} {plus} {blocks}`"));
    }
    Ok(Parsed::Record(TraceRecord {
        time_ns: decimal_scaled(time, 9, "time")?,
        device: int(minor, "minor")?,
        op,
        offset_bytes: sectors(sector, "sector")?,
        len_bytes: sectors(blocks, "blocks")?,
        idle_after_ns: 0,
    }))
}

fn systor(line: &str) -> Result<Parsed, String> {
    let [ts, _resp, kind, lun, offset, size] = fields::<6>(&Split::of(line.split(',')), false)?;
    if ts == "Timestamp" {
        return Ok(Parsed::Skip);
    }
    let op = match kind {
        "R" => HostOp::Read,
        "W" => HostOp::Write,
        other => return Err(format!("IOType `{other}` is neither R nor W")),
    };
    Ok(Parsed::Record(TraceRecord {
        time_ns: decimal_scaled(ts, 9, "Timestamp")?,
        device: int(lun, "LUN")?,
        op,
        offset_bytes: int(offset, "Offset")?,
        len_bytes: int(size, "Size")?,
        idle_after_ns: 0,
    }))
}

fn fiu(line: &str) -> Result<Parsed, String> {
    let count = line.split_whitespace().count();
    if count < 9 {
        return Err(format!("{count} fields, expected at least 9"));
    }
    // The process name may contain spaces: read the fixed fields from both
    // ends (`tail[k]` is field n - 1 - k).
    let first = line.split_whitespace().next().unwrap_or_default();
    let tail = Split::<6>::of(line.split_whitespace().rev()).parts;
    let op = match tail[3] {
        "R" => HostOp::Read,
        "W" => HostOp::Write,
        other => return Err(format!("R/W field `{other}` is neither R nor W")),
    };
    Ok(Parsed::Record(TraceRecord {
        time_ns: u128::from(int(first, "time_ns")?),
        device: int(tail[1], "minor")?,
        op,
        offset_bytes: sectors(tail[5], "lba")?,
        len_bytes: sectors(tail[4], "blocks")?,
        idle_after_ns: 0,
    }))
}

/// Guesses the format from the first lines of a trace.
pub fn detect(lines: &[String]) -> Option<TraceFormat> {
    let line = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty() && !l.starts_with('#'))?;
    if line.starts_with("Timestamp,Response") {
        return Some(TraceFormat::SystorCsv);
    }
    let csv: Vec<&str> = line.split(',').collect();
    if csv.len() == 7 && matches!(csv[3], "Read" | "Write") || line.starts_with("Timestamp,Hostname") {
        return Some(TraceFormat::MsrCsv);
    }
    if csv.len() == 5 && matches!(csv[3].trim(), "r" | "R" | "w" | "W") {
        return Some(TraceFormat::Spc);
    }
    if csv.len() == 6 && matches!(csv[2], "R" | "W") {
        return Some(TraceFormat::SystorCsv);
    }
    let ws: Vec<&str> = line.split_whitespace().collect();
    if ws.len() == 6 && matches!(ws[0], "R" | "W") && matches!(ws[1], "Hit" | "Miss" | "Doub" | "Trip") {
        return Some(TraceFormat::DisksimValidate);
    }
    if ws.first().is_some_and(|t| t.contains(',')) && ws.len() >= 7 {
        return Some(TraceFormat::Blkparse);
    }
    if ws.len() >= 9 && matches!(ws[ws.len() - 4], "R" | "W") {
        return Some(TraceFormat::Fiu);
    }
    if ws.len() == 5 && ws.iter().all(|t| t.chars().all(|c| c.is_ascii_hexdigit() || c == '.' || c == 'x')) {
        return Some(if ws[0].contains('.') { TraceFormat::DisksimAscii } else { TraceFormat::MqsimAscii });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_seconds_are_exact() {
        assert_eq!(decimal_scaled("15391.407551", 9, "t"), Ok(15_391_407_551_000));
        assert_eq!(decimal_scaled("1456095145.133076000", 9, "t"), Ok(1_456_095_145_133_076_000));
        assert_eq!(decimal_scaled("13.191135", 6, "t"), Ok(13_191_135));
        assert!(decimal_scaled("15391.776358W", 9, "t").is_err());
    }
}
