//! Each member's config, resolved from `[ssd]` or `[hdd]` and the array:
//! per-member overrides (`array.member_ssd`), spares, and the channels of
//! one SSD that RAID inside it (`cr5`, `cr5m`) makes its members.

use super::raw::{drop_member_dependents, merge_tables};
use super::*;

/// Each member's config: `[hdd]` for disks; for SSDs `[ssd]`, with
/// `array.member_ssd[i]` merged in.
pub(super) fn resolve_members(config: &Config) -> Result<Vec<MemberConfig>> {
    if config.array.level.inside_one_ssd() {
        return channel_members(config);
    }
    if config.member.kind == MemberKind::Hdd {
        if config.array.gc_coordination == GcCoordination::Global {
            return Err(Error::config("array.gc_coordination", "\"global\" coordinates SSDs' garbage collection; hard disks collect none"));
        }
        let geometry = config.hdd.validate()?;
        return Ok(vec![MemberConfig::Hdd { hdd: config.hdd.clone(), geometry }; (config.array.members + config.array.spares) as usize]);
    }
    let spare = MemberConfig::Ssd { ssd: config.ssd.clone(), geometry: config.ssd.validate()? };
    let base = toml::Table::try_from(&config.ssd).map_err(|e| Error::config("ssd", e.to_string()))?;
    (0..config.array.members as usize)
        .map(|i| {
            let Some(over) = config.array.member_ssd.get(i) else {
                return Ok(MemberConfig::Ssd { ssd: config.ssd.clone(), geometry: config.ssd.validate()? });
            };
            let mut table = base.clone();
            drop_member_dependents(&mut table, over);
            merge_tables(&mut table, over);
            let key = format!("array.member_ssd[{i}]");
            let ssd: SsdConfig = serde_path_to_error::deserialize(toml::Value::Table(table))
                .map_err(|e| Error::config(format!("{key}.{}", e.path()), e.into_inner().to_string()))?;
            let geometry = ssd.validate().map_err(|e| match e {
                Error::Config { key: k, message } => Error::config(format!("{key} ({k})"), message),
                other => other,
            })?;
            Ok(MemberConfig::Ssd { ssd, geometry })
        })
        .chain((0..config.array.spares).map(|_| Ok(spare.clone())))
        .collect::<Result<Vec<_>>>()
        .and_then(|members| no_collection_to_coordinate(config, members))
}

/// Harmonia's forced collection needs a member that collects: a block map
/// without log blocks merges only when a write needs it. It runs at once on
/// every member, the opposite of collection that yields to the host.
fn no_collection_to_coordinate(config: &Config, members: Vec<MemberConfig>) -> Result<Vec<MemberConfig>> {
    if config.array.gc_coordination != GcCoordination::Global {
        return Ok(members);
    }
    let block_mapped = |m: &MemberConfig| matches!(m, MemberConfig::Ssd { ssd, .. } if ssd.ftl.scheme == FtlScheme::BlockMap);
    if members.iter().all(block_mapped) {
        return Err(Error::config(
            "array.gc_coordination",
            "\"global\" forces collection, and block-mapped drives (ssd.ftl.scheme = \"block_map\") have none to force",
        ));
    }
    let yielding = |m: &MemberConfig| matches!(m, MemberConfig::Ssd { ssd, .. } if ssd.ftl.gc_hard_threshold_fraction.is_some());
    if let Some(member) = members.iter().position(yielding) {
        return Err(Error::config(
            "array.gc_coordination",
            format!(
                "\"global\" forces every member to collect at once, in the foreground, which collection that yields to the host \
                 contradicts (ssd.ftl.gc_hard_threshold_fraction, set for member {member} by [ssd] or array.member_ssd): choose one"
            ),
        ));
    }
    Ok(members)
}

/// `cr5`: each member is one channel of the `[ssd]` — a one-channel SSD
/// with its chips, dies and planes — whose host link and controller
/// overhead have moved in front of the array (see
/// [`ResolvedConfig::array_front_end`]). The controller hands each channel
/// its page operations directly, so no queue limit applies per channel.
fn channel_members(config: &Config) -> Result<Vec<MemberConfig>> {
    let (array, ssd) = (&config.array, &config.ssd);
    let mirroring = u32::from(array.level == RaidLevel::Cr5m);
    let level: &str = if mirroring > 0 { "array.level = \"cr5m\"" } else { "array.level = \"cr5\"" };
    if config.member.kind != MemberKind::Ssd {
        return Err(Error::config("member.kind", format!("{level} puts RAID-5 across the channels of one SSD: the members are \"ssd\" channels")));
    }
    if array.members != ssd.geometry.channels {
        return Err(Error::config(
            "array.members",
            format!(
                "{level}: the members are the SSD's channels, so array.members must equal ssd.geometry.channels ({}), got {}",
                ssd.geometry.channels, array.members
            ),
        ));
    }
    if !array.member_ssd.is_empty() {
        return Err(Error::config("array.member_ssd", format!("{level}: the channels of one SSD share its settings")));
    }
    if array.spares > 0 {
        return Err(Error::config(
            "array.spares",
            format!("{level} loses chips, not whole channels: give spare chips (array.spare_chips_per_channel), not spare drives"),
        ));
    }
    if mirroring > 0 && array.stripe_unit_bytes != u64::from(ssd.geometry.page_size_bytes) {
        // Mirror state is kept per strip and copies per page: they agree only for one-page strips.
        return Err(Error::config(
            "array.stripe_unit_bytes",
            format!(
                "{level} mirrors strips of one flash page, as the paper does ({} bytes), got {}",
                ssd.geometry.page_size_bytes, array.stripe_unit_bytes
            ),
        ));
    }
    let working_chips = ssd.geometry.chips_per_channel;
    for (i, f) in array.failures.iter().enumerate() {
        let chip = f.chip.ok_or_else(|| {
            Error::config(format!("array.failures[{i}].chip"), format!("{level} loses a chip of a channel: name it (0..{working_chips})"))
        })?;
        if chip >= working_chips {
            return Err(Error::config(
                format!("array.failures[{i}].chip"),
                format!("channel {} has chips 0..{working_chips} ({} data, {mirroring} mirroring), not {chip}", f.member, working_chips - mirroring),
            ));
        }
        if array.spare_chips_per_channel == 0 {
            return Err(Error::config(
                "array.spare_chips_per_channel",
                format!("is 0, but array.failures[{i}] fails a chip: a failed chip is rebuilt onto a spare chip of its channel"),
            ));
        }
    }
    if ssd.write_cache.capacity_bytes > 0 {
        return Err(Error::config("ssd.write_cache.capacity_bytes", format!("a write cache is not modelled inside one SSD ({level})")));
    }
    if matches!(ssd.ftl.scheme, FtlScheme::Fast | FtlScheme::BlockMap) {
        return Err(Error::config(
            "ssd.ftl.scheme",
            format!(
                "{:?} is not modelled inside one SSD ({level}): a failed chip's pages are rebuilt onto a spare chip, off their logical block's plane",
                ssd.ftl.scheme.name()
            ),
        ));
    }
    let mut channel = ssd.clone();
    channel.geometry.channels = 1;
    channel.timing.host_link_bandwidth_bytes_per_s = 0;
    channel.timing.controller_overhead_ns = 0;
    channel.queue_depth = u32::MAX;
    // Each channel is simulated as a drive of its own: it caches its share of the map.
    channel.ftl.cmt_bytes = ssd.ftl.cmt_bytes.map(|bytes| bytes / u64::from(array.members.max(1)));
    // CR5M turns one working chip of each channel into its mirroring chip (Table 3: 3 + m + s).
    channel.geometry.mirroring_chips_per_channel = mirroring;
    let geometry = channel.validate().map_err(|e| match e {
        Error::Config { key, message } if key == "ssd.ftl.cmt_bytes" => {
            Error::Config { key, message: format!("{message} ({level}: each of the {} channels caches cmt_bytes / {0})", array.members) }
        }
        other => other,
    })?;
    Ok(vec![MemberConfig::Ssd { ssd: channel, geometry }; array.members as usize])
}
