//! Presets: every device and set-up the papers use, shipped as TOML data.
//!
//! Each file in `crates/raidsim-core/presets/` opens with a comment citing
//! its source. A preset is a partial config merged over the defaults.

/// `(name, TOML text)` of every packaged preset.
pub const PRESETS: &[(&str, &str)] = &[
    ("stripe-unit-table5", include_str!("../../presets/stripe-unit-table5.toml")),
    ("cr5m-table1", include_str!("../../presets/cr5m-table1.toml")),
    ("cr5-ssd1", include_str!("../../presets/cr5-ssd1.toml")),
    ("cr5-ssd2", include_str!("../../presets/cr5-ssd2.toml")),
    ("cr5-ssd3", include_str!("../../presets/cr5-ssd3.toml")),
    ("cr5m-ssd1", include_str!("../../presets/cr5m-ssd1.toml")),
    ("cr5m-ssd2", include_str!("../../presets/cr5m-ssd2.toml")),
    ("cr5m-ssd3", include_str!("../../presets/cr5m-ssd3.toml")),
    ("erasure-code-table6", include_str!("../../presets/erasure-code-table6.toml")),
    ("disksim-ssd-validation", include_str!("../../presets/disksim-ssd-validation.toml")),
    ("rais-ssd-a", include_str!("../../presets/rais-ssd-a.toml")),
    ("rais-ssd-b", include_str!("../../presets/rais-ssd-b.toml")),
    ("rais-ssd-c", include_str!("../../presets/rais-ssd-c.toml")),
    ("intel-ssdsa2m040g2gc", include_str!("../../presets/intel-ssdsa2m040g2gc.toml")),
    ("mqsim-default", include_str!("../../presets/mqsim-default.toml")),
    ("mqsim-fast18", include_str!("../../presets/mqsim-fast18.toml")),
    ("samsung-970-evo-plus-1tb", include_str!("../../presets/samsung-970-evo-plus-1tb.toml")),
    ("intel-660p-1tb", include_str!("../../presets/intel-660p-1tb.toml")),
    ("hdd-ibm-lightning", include_str!("../../presets/hdd-ibm-lightning.toml")),
    ("hdd-seagate-elite3", include_str!("../../presets/hdd-seagate-elite3.toml")),
    ("hdd-seagate-wren4", include_str!("../../presets/hdd-seagate-wren4.toml")),
    ("hdd-cheetah-15k5", include_str!("../../presets/hdd-cheetah-15k5.toml")),
    ("hdd-cheetah-9lp", include_str!("../../presets/hdd-cheetah-9lp.toml")),
    ("hdd-atlas-iii", include_str!("../../presets/hdd-atlas-iii.toml")),
];

/// The TOML text of a preset.
pub fn preset(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Names of all presets.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}
