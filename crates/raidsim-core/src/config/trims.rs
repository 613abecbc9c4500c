//! Where the model takes trims, and where it does not: the one check that
//! refuses a workload's trims, by key. It runs at resolve when the
//! workload's own settings carry trims (listed `"T"` requests, a
//! `trim_fraction`), and at a trace's first trim, which only reading the
//! trace finds.

use super::{CacheMode, Config, FtlScheme, MemberConfig, MemberKind, RaidLevel, ReadAheadPolicy, WorkloadConfig};
use crate::error::{Error, Result};

/// Whether the workload's settings ask for trims (a trace's are found as it is read).
pub fn carries_trims(workload: &WorkloadConfig) -> Result<bool> {
    Ok(match workload {
        WorkloadConfig::Synthetic(s) => s.trim_fraction > 0.0,
        WorkloadConfig::Flows(f) => f.flows.iter().any(|flow| flow.generator.trim_fraction > 0.0),
        WorkloadConfig::Requests { requests, packed } => {
            requests.iter().any(|(_, op, _, _)| op == "T") || super::unpack_requests(packed)?.iter().any(|&(_, op, _, _)| op == "T")
        }
        WorkloadConfig::Trace(_) => false,
    })
}

/// At resolve: refuses the trims the workload's settings carry where their
/// model is not built. The settings are looked at first, so a long packed
/// list is decoded again only when they refuse trims.
pub(super) fn refuse_listed_trims(config: &Config, members: &[MemberConfig]) -> Result<()> {
    match refusal(config, members) {
        Some((key, why)) if carries_trims(&config.workload)? => Err(refused(config, key, why)),
        _ => Ok(()),
    }
}

/// Refuses trims where their model is not built: naming the key that
/// stands in the way and how to leave the trims out of this workload.
pub fn refuse_trims(config: &Config, members: &[MemberConfig]) -> Result<()> {
    match refusal(config, members) {
        Some((key, why)) => Err(refused(config, key, why)),
        None => Ok(()),
    }
}

fn refused(config: &Config, key: String, why: &str) -> Error {
    let hint = match &config.workload {
        WorkloadConfig::Trace(_) => "leave the trace's trims out with workload.trims = \"skip\"",
        WorkloadConfig::Requests { .. } => "drop the requests whose op is \"T\"",
        WorkloadConfig::Synthetic(_) => "set workload.trim_fraction = 0",
        WorkloadConfig::Flows(_) => "set each flow's trim_fraction to 0 (workload.flows[i].trim_fraction)",
    };
    Error::config(key, format!("the workload trims, and {why}; {hint}"))
}

fn refusal(config: &Config, members: &[MemberConfig]) -> Option<(String, &'static str)> {
    if config.member.kind == MemberKind::Hdd {
        return Some(("member.kind".into(), "a hard disk has no trim"));
    }
    // Each drive's own scheme (spares included): `[ssd]`'s, or its `array.member_ssd` entry's.
    let block_mapped =
        |m: &MemberConfig| matches!(m, MemberConfig::Ssd { ssd, .. } if matches!(ssd.ftl.scheme, FtlScheme::Fast | FtlScheme::BlockMap));
    if let Some(i) = members.iter().position(block_mapped) {
        let own = config.array.member_ssd.get(i).and_then(|t| t.get("ftl")).and_then(|f| f.get("scheme")).is_some();
        let key = if own { format!("array.member_ssd[{i}].ftl.scheme") } else { "ssd.ftl.scheme".into() };
        return Some((key, "trims are modelled on page maps (in DRAM or cached) only, not on block-mapped FTLs"));
    }
    let controller = &config.array.controller;
    if controller.cache == CacheMode::WriteBack {
        return Some(("array.controller.cache".into(), "a write-back cache could write a trimmed range's cached data after the trim"));
    }
    if config.array.level != RaidLevel::Single && controller.read_ahead != ReadAheadPolicy::Off {
        return Some(("array.controller.read_ahead".into(), "data read ahead of a trim would outlive it"));
    }
    if config.array.level == RaidLevel::Cr5m {
        return Some(("array.level".into(), "CR5M's mirror and old copies, kept for parity, are not modelled under trims"));
    }
    None
}
