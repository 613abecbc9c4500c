//! Raw configs: TOML tables layered from presets, files, dicts and `--set`
//! overrides, checked for moved and misplaced keys, then deserialized into
//! [`Config`] and validated.

use super::*;

/// A configuration before validation: a TOML table with overrides applied.
#[derive(Clone, Debug, Default)]
pub struct RawConfig {
    table: toml::Table,
    /// Dotted keys set one by one (`--set`, a dict of overrides): a
    /// setting another key makes meaningless drops only what a preset or
    /// file gave, never what the user set too.
    set_keys: std::collections::BTreeSet<String>,
}

impl RawConfig {
    /// An empty table: every parameter at its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses TOML text; `origin` names the file or preset in errors. A
    /// top-level `base_preset = "name"` makes the text a layer over that
    /// preset (the Table 3 SSDs of the CR5M paper are its Table 1 SSD
    /// reshaped), so each parameter is stated once.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self> {
        Self::layer(text, origin, 0)
    }

    fn layer(text: &str, origin: &str, depth: u32) -> Result<Self> {
        let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| Error::config("<root>", format!("{origin}: {e}")))?;
        let Some(base) = table.remove("base_preset") else { return Ok(Self { table, ..Self::default() }) };
        let base = base.as_str().ok_or_else(|| Error::config("base_preset", format!("{origin}: must be a preset's name")))?;
        if depth >= 4 {
            return Err(Error::config("base_preset", format!("{origin}: bases nest more than 4 deep (a cycle?)")));
        }
        let text = preset(base)
            .ok_or_else(|| Error::config("base_preset", format!("{origin}: unknown preset `{base}`; valid: {}", preset_names().join(", "))))?;
        let mut config = Self::layer(text, &format!("preset {base}"), depth + 1)?;
        config.merge(&Self { table, ..Self::default() });
        Ok(config)
    }

    /// Reads a TOML file.
    pub fn from_file(path: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// A packaged preset by name (see [`preset_names`]).
    pub fn from_preset(name: &str) -> Result<Self> {
        let text = preset(name).ok_or_else(|| Error::config("<preset>", format!("unknown preset `{name}`; valid: {}", preset_names().join(", "))))?;
        Self::from_toml_str(text, &format!("preset {name}"))
    }

    /// Parses JSON text (how Python hands over a dict).
    pub fn from_json_str(text: &str) -> Result<Self> {
        let table: toml::Table = serde_json::from_str(text).map_err(|e| Error::config("<root>", format!("not a table of settings: {e}")))?;
        Ok(Self { table, ..Self::default() })
    }

    /// Deep-merges `other` over `self` (tables merge, other values replace).
    pub fn merge(&mut self, other: &RawConfig) {
        for (table, key) in ALTERNATIVE_KEYS {
            if let Some(set) = other.table.get(table).and_then(toml::Value::as_table) {
                drop_alternative(&mut self.table, table, key, set);
            }
        }
        drop_dependents(&mut self.table, &other.table, &self.set_keys);
        merge_tables(&mut self.table, &other.table);
        self.set_keys.extend(other.set_keys.iter().cloned());
    }

    /// Merges `other` as keys set one by one (`set`): each of its values
    /// counts as set, so a later layer that makes it meaningless is refused
    /// rather than dropping it (a dict of overrides from Python).
    pub fn merge_as_set(&mut self, other: &RawConfig) {
        let mut other = other.clone();
        leaf_paths(&other.table, "", &mut other.set_keys);
        self.merge(&other);
    }

    /// Replaces the top-level table `key` by `table` (a workload replaces,
    /// rather than merges with, the one a preset or file set).
    pub fn replace_table(&mut self, key: &str, table: &RawConfig) {
        self.table.insert(key.to_string(), toml::Value::Table(table.table.clone()));
    }

    /// Applies one `dotted.key=value` override; the value is read as TOML
    /// (`4096`, `0.15`, `true`, `"greedy"`, `[1, 2]`) and, failing that, as a
    /// bare string.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let (key, value) = assignment.split_once('=').ok_or_else(|| Error::config(assignment, "an override must look like `dotted.key=value`"))?;
        let key = key.trim();
        self.set_value(key, parse_value(key, value.trim())?)
    }

    /// Sets `dotted.key` to `value`, creating intermediate tables.
    pub fn set_value(&mut self, key: &str, value: toml::Value) -> Result<()> {
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(Error::config(key, "empty component in dotted key"));
        }
        if let [table, key] = parts[..] {
            drop_alternative(&mut self.table, table, key, &toml::Table::from_iter([(key.to_string(), value.clone())]));
        }
        let incoming = parts.iter().rev().fold(value.clone(), |v, part| toml::Value::Table(toml::Table::from_iter([(part.to_string(), v)])));
        if let toml::Value::Table(incoming) = incoming {
            drop_dependents(&mut self.table, &incoming, &self.set_keys);
        }
        self.set_keys.insert(key.to_string());
        let mut table = &mut self.table;
        for (depth, part) in parts[..parts.len() - 1].iter().enumerate() {
            let entry = table.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = entry.as_table_mut().ok_or_else(|| Error::config(parts[..=depth].join("."), "is a value, not a table of settings"))?;
        }
        table.insert(parts[parts.len() - 1].to_string(), value);
        Ok(())
    }

    /// The raw table.
    pub fn table(&self) -> &toml::Table {
        &self.table
    }

    /// Deserializes (unknown keys rejected, naming the valid ones) and validates.
    pub fn resolve(&self) -> Result<ResolvedConfig> {
        let mut table = self.table.clone();
        // `[derived]` is what `to_toml` adds beside results: output only, so a
        // saved config can be run again as it is.
        table.remove("derived");
        default_workload_kind(&mut table);
        sizes_to_bytes(&mut table, "")?;
        check_workload_paths(&table)?;
        check_member_tables(&table)?;
        let value = toml::Value::Table(table);
        let config: Config = serde_path_to_error::deserialize(value).map_err(|e| path_error("", "<root>", e))?;
        ResolvedConfig::new(config)
    }
}

/// A deserialization error as a config error at its dotted path under
/// `prefix`; `whole` names the table itself when the error is at its top.
/// Keys that moved, and where to: an old config names the new place in its error.
const MOVED_KEYS: [(&str, &str); 3] = [
    ("controller_overhead_ns", "array.controller.overhead_ns"),
    ("xor_bytes_per_s", "array.controller.xor_bytes_per_s"),
    ("controller_price_usd", "array.controller.price_usd"),
];

fn path_error(prefix: &str, whole: &str, e: serde_path_to_error::Error<toml::de::Error>) -> Error {
    let path = e.path().to_string();
    let key = if path == "." { whole.to_string() } else { format!("{prefix}{path}") };
    let mut message = e.into_inner().to_string();
    if key == "array" || key.starts_with("array.") {
        if let Some((old, new)) = MOVED_KEYS.iter().find(|(old, _)| message.contains(&format!("unknown field `{old}`"))) {
            message = format!("array.{old} is now {new} (the RAID controller's settings are one table, [array.controller]); {message}");
        }
    }
    Error::config(key, message)
}

/// Deserializes `[workload]` by its `kind`, so that an error names its full
/// dotted path (`workload.size.mean_bytes`): the tagged enum alone reports
/// every error at `workload`.
fn check_workload_paths(table: &toml::Table) -> Result<()> {
    fn check<T: serde::de::DeserializeOwned>(w: toml::Table) -> Result<()> {
        serde_path_to_error::deserialize::<_, T>(toml::Value::Table(w)).map(|_| ()).map_err(|e| path_error("workload.", "workload", e))
    }
    let Some(toml::Value::Table(w)) = table.get("workload") else { return Ok(()) };
    // Copy the small tables only: a list of requests is checked request by request later.
    let without_kind = || w.iter().filter(|(k, _)| *k != "kind").map(|(k, v)| (k.clone(), v.clone())).collect();
    match w.get("kind") {
        Some(toml::Value::String(kind)) => match kind.as_str() {
            "synthetic" => check::<SyntheticConfig>(without_kind()),
            "trace" => check::<TraceConfig>(without_kind()),
            "flows" => {
                check_flow_tables(w)?;
                check::<super::FlowsConfig>(without_kind())
            }
            "requests" => Ok(()),
            other => {
                Err(Error::config("workload.kind", format!("unknown kind `{other}`, expected one of `synthetic`, `trace`, `flows`, `requests`")))
            }
        },
        Some(other) => {
            Err(Error::config("workload.kind", format!("`{other}` is not a string; expected `synthetic`, `trace`, `flows` or `requests`")))
        }
        None => Ok(()),
    }
}

/// Checks each `[[workload.flows]]` table key by key, so that an error names
/// the flow's key (`workload.flows[1].size.mean_bytes`): a flow's table is
/// read whole, its placement keys set apart (see [`super::FlowConfig`]).
fn check_flow_tables(w: &toml::Table) -> Result<()> {
    let Some(toml::Value::Array(flows)) = w.get("flows") else { return Ok(()) };
    for (i, flow) in flows.iter().enumerate() {
        let toml::Value::Table(t) = flow else { continue };
        let mut generator = t.clone();
        for key in super::FlowConfig::PLACEMENT_KEYS {
            let Some(v) = generator.remove(key) else { continue };
            let whole = format!("workload.flows[{i}].{key}");
            let checked = match key {
                "fill_fraction" => serde_path_to_error::deserialize::<_, f64>(v).map(|_| ()),
                _ => serde_path_to_error::deserialize::<_, Vec<u32>>(v).map(|_| ()),
            };
            checked.map_err(|e| path_error(&format!("{whole}."), &whole, e))?;
        }
        serde_path_to_error::deserialize::<_, SyntheticConfig>(toml::Value::Table(generator)).map_err(|e| {
            let e = path_error(&format!("workload.flows[{i}]."), &format!("workload.flows[{i}]"), e);
            match e {
                Error::Config { key, message } if message.contains("unknown field") => {
                    Error::Config { key, message: format!("{message}; a flow's table also takes `channels`, `chips` and `fill_fraction`") }
                }
                other => other,
            }
        })?;
    }
    Ok(())
}

/// Parameters of the kind of member not in use would be ignored: refuse
/// them, so that `[hdd]` settings never silently run on SSDs.
fn check_member_tables(table: &toml::Table) -> Result<()> {
    let kind = table.get("member").and_then(|m| m.get("kind")).and_then(toml::Value::as_str).unwrap_or("ssd");
    let member_ssd = table.get("array").and_then(|a| a.get("member_ssd")).is_some();
    let unused = match kind {
        "hdd" if table.contains_key("ssd") => Some(("ssd", "[ssd]")),
        "hdd" if member_ssd => Some(("array.member_ssd", "array.member_ssd")),
        "ssd" if table.contains_key("hdd") => Some(("hdd", "[hdd]")),
        _ => None,
    };
    match unused {
        Some((key, what)) => Err(Error::config(
            key,
            format!("{what} is set but member.kind = \"{kind}\": those settings would be ignored; remove them or set member.kind"),
        )),
        None => Ok(()),
    }
}

/// A `[workload]` table without `kind` takes the default workload's kind.
fn default_workload_kind(table: &mut toml::Table) {
    if let Some(toml::Value::Table(w)) = table.get_mut("workload") {
        if !w.contains_key("kind") {
            if let Ok(toml::Value::Table(d)) = toml::Value::try_from(WorkloadConfig::default()) {
                if let Some(kind) = d.get("kind") {
                    w.insert("kind".into(), kind.clone());
                }
            }
        }
    }
}

/// A TOML value, or a bare word taken as a string (`level=raid5`). Text
/// that can only have meant a TOML array, table or integer is an error when
/// it does not parse, so `at_ns=18446744073709551615` (past TOML's 64-bit
/// signed range) says so instead of failing later as "a string".
fn parse_value(key: &str, text: &str) -> Result<toml::Value> {
    match format!("v = {text}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").ok_or_else(|| Error::config(key, format!("`{text}` is not one value"))),
        Err(e) if text.starts_with(['[', '{']) || looks_integer(text) => {
            Err(Error::config(key, format!("`{text}` is not a TOML value (integers must fit in a signed 64-bit number): {}", e.message())))
        }
        Err(_) => Ok(toml::Value::String(text.to_string())),
    }
}

fn looks_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')
}

/// Keys of one table that say the same thing in two ways: a layer that sets
/// one replaces the other an earlier layer set (`rpm = 7200` over a preset
/// that gives `revolution_ns`), instead of the two clashing.
const ALTERNATIVE_KEYS: [(&str, &str); 2] = [("hdd", "rpm"), ("hdd", "revolution_ns")];

fn drop_alternative(base: &mut toml::Table, table: &str, key: &str, incoming: &toml::Table) {
    // Only a key with an alternative replaces anything (`hdd.queue_policy` leaves the preset's rpm alone).
    if !incoming.contains_key(key) || !ALTERNATIVE_KEYS.contains(&(table, key)) {
        return;
    }
    let Some(existing) = base.get_mut(table).and_then(toml::Value::as_table_mut) else {
        return;
    };
    for (t, other) in ALTERNATIVE_KEYS {
        if t == table && other != key && !incoming.contains_key(other) {
            existing.remove(other);
        }
    }
}

/// Keys that mean something only for some values of another: a layer that
/// sets the other key to a value they do not serve drops the dependent
/// keys an earlier layer gave (`ssd.ftl.scheme = "page_map"` over a
/// preset's DFTL cache size; no write buffer over a preset's buffer
/// settings), unless the layer sets them too or the user set them one by
/// one, which validation then refuses as a contradiction. (table path,
/// key, whether a value serves the dependents, the dependent keys)
type Dependents = (&'static [&'static str], &'static str, fn(&toml::Value) -> bool, &'static [&'static str]);
const DEPENDENT_KEYS: [Dependents; 8] = [
    (&["ssd", "ftl"], "scheme", |v| v.as_str() == Some("dftl"), &["cmt_bytes", "cmt_starts_warm"]),
    (&["ssd", "ftl"], "scheme", |v| matches!(v.as_str(), Some("page_map" | "dftl")), &["place_unwritten_reads"]),
    (&["ssd", "ftl"], "summary_pages_per_block", |v| v.as_integer() == Some(0), &["place_unwritten_reads"]),
    (&["ssd", "ftl"], "scheme", |v| v.as_str() == Some("dftl"), &["write_frontiers"]),
    (&["ssd", "ftl"], "scheme", |v| v.as_str() == Some("fast"), &["log_blocks_per_plane"]),
    (
        &["ssd"],
        "write_buffer_bytes",
        |v| v.as_integer() != Some(0),
        &["write_buffer_slot_until", "write_buffer_unit", "write_cache", "scheduling", "multi_plane_programs", "command_issue"],
    ),
    (&["ssd"], "scheduling", |v| v.as_str() == Some("reads_first"), &["multi_plane_programs", "command_issue"]),
    (&["ssd", "slc_cache"], "blocks_per_plane", |v| v.as_integer() != Some(0), &["t_read_ns", "t_program_ns", "when_full", "idle_fold_after_ns"]),
];

/// A member's entry (`array.member_ssd[i]`, keys under `[ssd]`) drops the
/// `[ssd]` keys it makes meaningless, as a layer does: a page-map member
/// of a DFTL array takes no cache size.
pub(super) fn drop_member_dependents(ssd: &mut toml::Table, over: &toml::Table) {
    let wrap = |t: toml::Table| toml::Table::from_iter([("ssd".to_string(), toml::Value::Table(t))]);
    let mut base = wrap(std::mem::take(ssd));
    drop_dependents(&mut base, &wrap(over.clone()), &std::collections::BTreeSet::new());
    if let Some(toml::Value::Table(t)) = base.remove("ssd") {
        *ssd = t;
    }
}

fn drop_dependents(base: &mut toml::Table, incoming: &toml::Table, set_keys: &std::collections::BTreeSet<String>) {
    for (path, key, serves, dependents) in DEPENDENT_KEYS {
        let over = path.iter().try_fold(incoming, |t, p| t.get(*p).and_then(toml::Value::as_table));
        let Some(over) = over else { continue };
        if over.get(key).map_or(true, serves) {
            continue;
        }
        let Some(existing) = path.iter().try_fold(&mut *base, |t, p| t.get_mut(*p).and_then(toml::Value::as_table_mut)) else { continue };
        for dependent in dependents.iter().filter(|d| !over.contains_key(**d)) {
            let key = format!("{}.{dependent}", path.join("."));
            // A dependent table is kept if the user set any key inside it.
            if !set_keys.iter().any(|k| *k == key || k.strip_prefix(key.as_str()).is_some_and(|rest| rest.starts_with('.'))) {
                existing.remove(*dependent);
            }
        }
    }
}

/// The dotted path of every value in `table` that is not a table.
fn leaf_paths(table: &toml::Table, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
    for (key, value) in table {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        match value {
            toml::Value::Table(t) => leaf_paths(t, &path, out),
            _ => {
                out.insert(path);
            }
        }
    }
}

pub(super) fn merge_tables(base: &mut toml::Table, over: &toml::Table) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge_tables(b, o),
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Binary size suffixes a byte-valued key accepts (`64K`, `64KiB`, `3GiB`).
const SIZE_SUFFIXES: [(&str, u32); 8] = [("KiB", 10), ("MiB", 20), ("GiB", 30), ("TiB", 40), ("K", 10), ("M", 20), ("G", 30), ("T", 40)];

/// Every key named `..._bytes` given as text with a size suffix becomes
/// its number of bytes, wherever it is set (preset, file, dict, `--set`).
fn sizes_to_bytes(table: &mut toml::Table, prefix: &str) -> Result<()> {
    for (key, value) in table.iter_mut() {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        match value {
            toml::Value::Table(t) => sizes_to_bytes(t, &path)?,
            toml::Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    if let toml::Value::Table(t) = item {
                        sizes_to_bytes(t, &format!("{path}[{i}]"))?;
                    }
                }
            }
            toml::Value::String(text) if key.ends_with("_bytes") => *value = toml::Value::Integer(parse_size(&path, text)?),
            _ => {}
        }
    }
    Ok(())
}

/// `"64K"` or `"64KiB"` → 65536: binary suffixes K, M, G, T (with or
/// without `iB`). `KB`, `MB`... are refused: they mean powers of 1000 to
/// some and of 1024 to others.
pub fn parse_size(key: &str, text: &str) -> Result<i64> {
    let t = text.trim();
    let digits_end = t.find(|c: char| !(c.is_ascii_digit() || c == '_')).unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits_end);
    let suffix = suffix.trim();
    let form = "a number of bytes, or one with a binary suffix: 4096, 64K, 64KiB, 1M, 3GiB (K = 1024)";
    let number: i64 = number.replace('_', "").parse().map_err(|_| Error::config(key, format!("`{text}` is not {form}")))?;
    let shift = if suffix.is_empty() {
        0
    } else {
        match SIZE_SUFFIXES.iter().find(|(s, _)| *s == suffix) {
            Some(&(_, shift)) => shift,
            None if suffix.ends_with('B') => {
                return Err(Error::config(key, format!("`{text}`: `{suffix}` means 1000 to some and 1024 to others; write {form}")))
            }
            None => return Err(Error::config(key, format!("`{text}` is not {form}"))),
        }
    };
    number.checked_mul(1i64 << shift).ok_or_else(|| Error::config(key, format!("`{text}` does not fit in a 64-bit signed number of bytes")))
}
