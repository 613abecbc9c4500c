//! Bad input is an error that names what was wrong, never a silent default
//! (issue #8).

use raidsim_core::config::RawConfig;

fn resolve(overrides: &[&str]) -> Result<raidsim_core::config::ResolvedConfig, String> {
    let mut raw = RawConfig::new();
    for o in overrides {
        raw.set(o).map_err(|e| e.to_string())?;
    }
    raw.resolve().map_err(|e| e.to_string())
}

#[test]
fn stripe_unit_smaller_than_a_page_is_refused() {
    let err = resolve(&["array.level=raid5", "array.members=5", "array.stripe_unit_bytes=512"]).expect_err("512 B unit");
    assert!(err.contains("array.stripe_unit_bytes") && err.contains("4096-byte"), "{err}");
    let err = resolve(&["array.level=raid0", "array.members=2", "array.stripe_unit_bytes=6144"]).expect_err("1.5 pages");
    assert!(err.contains("whole number"), "{err}");
    resolve(&["array.level=raid0", "array.members=2", "array.stripe_unit_bytes=8192"]).expect("two pages");
}

#[test]
fn request_op_other_than_r_or_w_is_refused() {
    let err = resolve(&["workload.kind=requests", "workload.requests=[[0, \"R\", 0, 4096], [1, \"X\", 0, 4096]]"]).expect_err("op X");
    assert!(err.contains("workload.requests[1]") && err.contains("`X`"), "{err}");
}

#[test]
fn evenodd_prime_beyond_the_codec_limit_is_a_config_error() {
    let err = resolve(&["array.level=raid6", "array.members=6", "array.code=evenodd", "array.prime=263"]).expect_err("p = 263");
    assert!(err.contains("array.prime") && err.contains("at most 257"), "{err}");
}

#[test]
fn evenodd_array_of_40_data_members_writes_parity_on_every_write() {
    // The default prime for 40 data members is 41: 80 unknown cells, more
    // than one 64-bit word, where parity once silently vanished.
    let cfg = resolve(&[
        "array.level=raid6",
        "array.members=42",
        "array.code=evenodd",
        "array.parity_placement=dedicated",
        "array.stripe_unit_bytes=4096",
        "ssd.geometry.blocks_per_plane=64",
        "workload.kind=requests",
        "workload.requests=[[0, \"W\", 0, 4096]]",
    ])
    .expect("valid");
    let c = raidsim_core::count(&cfg).expect("counts");
    let parity: Vec<u64> = c.members.iter().map(|m| *m.pages_written.get("parity").unwrap_or(&0)).collect();
    // Cell (0, 0) is on row 0 and diagonal 0: one row-parity cell, and one
    // diagonal-parity cell — diagonal 0 is not the adjuster's.
    assert_eq!(parity[40], 1, "row parity");
    assert_eq!(parity[41], 1, "diagonal parity");
}

#[test]
fn a_config_too_large_for_memory_is_refused_with_the_estimate() {
    for o in ["workload.processes=4294967295", "metrics.erase_histogram_bins=4000000000"] {
        let err = resolve(&[o, "sim.memory_limit_bytes=8589934592"]).expect_err(o);
        assert!(err.contains("needs about") && err.contains("GiB"), "{o}: {err}");
    }
    // 10,000 members of the default 32 GiB drive: about 0.4 TB of maps.
    let err = resolve(&["array.level=raid0", "array.members=10000", "sim.memory_limit_bytes=8589934592"]).expect_err("10k members");
    assert!(err.contains("10000 members"), "{err}");
    resolve(&["sim.memory_limit_bytes=8589934592"]).expect("one default drive fits in 8 GiB");
}

#[test]
fn errors_inside_workload_name_the_full_dotted_path() {
    let err = resolve(&["workload.size.mean_bytez=5"]).expect_err("unknown key");
    assert!(err.contains("`workload.size.mean_bytez`") && err.contains("mean_bytes"), "{err}");
    let err = resolve(&["workload.size.mean_bytes=-5"]).expect_err("negative");
    assert!(err.contains("`workload.size.mean_bytes`"), "{err}");
    let err = resolve(&["workload.read_fraction=\"x\""]).expect_err("not a number");
    assert!(err.contains("`workload.read_fraction`"), "{err}");
    let err = resolve(&["workload.kind=\"fio\""]).expect_err("unknown kind");
    assert!(err.contains("`workload.kind`") && err.contains("synthetic"), "{err}");
}

#[test]
fn durations_past_an_hour_and_absurd_member_counts_are_config_errors() {
    for key in ["ssd.timing.t_read_ns", "ssd.timing.t_program_ns", "ssd.timing.controller_overhead_ns", "workload.mean_interarrival_ns"] {
        let o = format!("{key}=9223372036854775807");
        let err = resolve(&[o.as_str()]).expect_err(key);
        assert!(err.contains(key) && err.contains("more than an hour"), "{err}");
    }
    let err = resolve(&["array.level=raid5", "array.members=4294967295"]).expect_err("4 billion members");
    assert!(err.contains("at most 100000"), "{err}");
}

#[test]
fn a_saved_resolved_config_runs_again_as_it_is() {
    let first = resolve(&["array.level=raid5", "array.members=4", "ssd.geometry.blocks_per_plane=64"]).expect("valid");
    let text = first.to_toml().expect("serialises");
    let again = RawConfig::from_toml_str(&text, "saved").and_then(|r| r.resolve()).map_err(|e| e.to_string()).expect("reloads");
    assert_eq!(again.to_toml().expect("serialises"), text);
}

#[test]
fn an_open_loop_queue_past_the_outstanding_limit_stops_with_saturation() {
    let cfg = resolve(&[
        "workload.requests=100000",
        "workload.read_fraction=0",
        "workload.mean_interarrival_ns=1000",
        "ssd.geometry.blocks_per_plane=64",
        "sim.max_outstanding_requests=1000",
    ])
    .expect("valid");
    let err = raidsim_core::simulate(cfg).expect_err("queue grows").to_string();
    assert!(err.contains("saturated: 1000 host requests outstanding"), "{err}");
}

/// Base64 of packed requests (time, offset, length as little-endian u64, then the op byte).
fn packed(requests: &[(u64, u8, u64, u64)]) -> String {
    use base64::Engine;
    let mut bytes = Vec::new();
    for &(t, op, offset, len) in requests {
        for v in [t, offset, len] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.push(op);
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn packed_requests_run_as_the_same_listed_requests() {
    let list = [(0, b'W', 0, 65536), (1000, b'R', 4096, 4096), (500, b'R', 8192, 8192)];
    let listed: Vec<String> = list.iter().map(|&(t, op, o, l)| format!("[{t}, \"{}\", {o}, {l}]", op as char)).collect();
    let listed = format!("workload.requests=[{}]", listed.join(", "));
    let as_list = resolve(&["workload.kind=requests", listed.as_str()]).expect("listed");
    let p = format!("workload.packed=\"{}\"", packed(&list));
    let as_packed = resolve(&["workload.kind=requests", p.as_str()]).expect("packed");
    let (a, b) = (raidsim_core::simulate(as_list).expect("runs"), raidsim_core::simulate(as_packed).expect("runs"));
    assert_eq!(a.host, b.host);
    assert_eq!(a.devices, b.devices);
}

#[test]
fn malformed_packed_requests_name_the_request() {
    let p = format!("workload.packed=\"{}\"", packed(&[(0, b'W', 0, 4096), (1, b'X', 0, 4096)]));
    let err = resolve(&["workload.kind=requests", p.as_str()]).expect_err("op X");
    assert!(err.contains("workload.packed[1]") && err.contains("R, W or T"), "{err}");
    let p = format!("workload.packed=\"{}\"", packed(&[(0, b'W', 0, 0)]));
    let err = resolve(&["workload.kind=requests", p.as_str()]).expect_err("zero length");
    assert!(err.contains("workload.packed[0]") && err.contains("at least 1 byte"), "{err}");
    let p = format!("workload.packed=\"{}\"", packed(&[(1 << 63, b'R', 0, 4096)]));
    let err = resolve(&["workload.kind=requests", p.as_str()]).expect_err("past 2^62 ns");
    assert!(err.contains("workload.packed[0]") && err.contains("2^62"), "{err}");
    let err = resolve(&["workload.kind=requests", "workload.packed=\"AAAA\""]).expect_err("3 bytes");
    assert!(err.contains("whole number of 25-byte requests"), "{err}");
}

#[test]
fn raid10_with_no_whole_stripe_names_the_stripe_unit() {
    // Three members, one unit each: the three units hold 1.5 copies-worth,
    // no whole stripe of three units, so the array has no capacity.
    let member = resolve(&["array.level=raid10", "array.members=3"]).expect("default").member_capacity_bytes();
    let unit = format!("array.stripe_unit_bytes={member}");
    let err = resolve(&["array.level=raid10", "array.members=3", unit.as_str()]).expect_err("no whole stripe");
    assert!(err.contains("array.stripe_unit_bytes") && err.contains("no whole stripe"), "{err}");
    let half = format!("array.stripe_unit_bytes={}", member / 2);
    resolve(&["array.level=raid10", "array.members=3", half.as_str()]).expect("two rows make one stripe");
}

#[test]
fn a_negative_or_infinite_precondition_overwrite_is_refused_by_name() {
    for key in ["precondition.random_overwrite_factor", "precondition.sequential_overwrite_factor"] {
        for bad in ["-0.5", "inf", "1e20", "1000.5"] {
            let err = resolve(&["precondition.fill_fraction=0.5", &format!("{key}={bad}")]).expect_err(bad);
            assert!(err.contains(key) && err.contains(">= 0") && err.contains("at most 1000"), "{key}={bad}: {err}");
        }
        resolve(&["precondition.fill_fraction=0.5", &format!("{key}=1000")]).expect("a thousand passes are allowed");
        let err = resolve(&[&format!("{key}=2.0")]).expect_err("no fill");
        assert!(err.contains(key) && err.contains("fill_fraction = 0"), "{err}");
    }
}

#[test]
fn byte_valued_keys_take_binary_size_suffixes_wherever_they_are_set() {
    let unit = |o: &[&str]| resolve(o).map(|r| r.config.array.stripe_unit_bytes);
    let raid5 = ["array.level=raid5", "array.members=4"];
    for (text, bytes) in [("64K", 65536), ("64KiB", 65536), ("1M", 1 << 20), ("4096", 4096), ("1_024K", 1 << 20)] {
        let set = format!("array.stripe_unit_bytes={text}");
        assert_eq!(unit(&[raid5[0], raid5[1], &set]), Ok(bytes), "{text}");
    }
    // The larger suffixes, on a key that takes any size of at least the run's estimate.
    let limit = |text: &str| resolve(&[&format!("sim.memory_limit_bytes={text}")]).map(|r| r.config.sim.memory_limit_bytes);
    for (text, shift) in [("3G", 30), ("3T", 40), ("3GiB", 30), ("3TiB", 40)] {
        assert_eq!(limit(text), Ok(3u64 << shift), "{text}");
    }
    // In a TOML layer as text, and in a nested table (the controller's cache).
    let mut raw = RawConfig::from_preset("rais-ssd-a").expect("preset");
    let layer = RawConfig::from_toml_str(
        "[array]\nlevel = \"raid5\"\nmembers = 4\nstripe_unit_bytes = \"16K\"\n[array.controller]\ncache = \"write_back\"\ncache_bytes = \"512MiB\"",
        "test",
    )
    .expect("toml");
    raw.merge(&layer);
    let r = raw.resolve().expect("resolves");
    assert_eq!((r.config.array.stripe_unit_bytes, r.config.array.controller.cache_bytes), (16384, 512 << 20));
}

#[test]
fn a_size_whose_unit_is_ambiguous_or_unknown_is_refused_naming_the_key() {
    for (text, says) in [("64KB", "1000 to some"), ("64kb", "is not"), ("64X", "is not"), ("K", "is not"), ("9999999999T", "does not fit")] {
        let e = resolve(&["array.level=raid5", "array.members=4", &format!("array.stripe_unit_bytes={text}")]).expect_err(text);
        assert!(e.contains("array.stripe_unit_bytes") && e.contains(says), "{text}: {e}");
    }
}

/// Every refusal a run can make before its first request is made when the
/// config is resolved: a config that resolves (and that
/// `Config.resolved_toml()` shows) is one the simulator builds.
#[test]
fn what_a_run_refuses_before_it_starts_is_refused_at_resolve() {
    let cases: &[(&str, &[&str])] = &[
        ("array.failures[0]", &["array.level=raid5", "array.members=4", "array.failures=[{member = 1}]"]),
        ("at_random_mean_ns", &["array.level=raid5", "array.members=4", "array.failures=[{member = 1, at_random_mean_ns = 0}]"]),
        ("sim.verify", &["array.level=raid5", "array.members=4", "array.parity_granularity=\"disksim\"", "sim.verify=true"]),
        ("array.members", &["array.level=\"cr5m\"", "ssd.geometry.channels=34", "ssd.geometry.chips_per_channel=2"]),
        ("workload.size.std_bytes", &["workload.size.kind=\"normal\"", "workload.size.std_bytes=0"]),
        ("workload.span_bytes", &["workload.span_bytes=1T"]),
        ("workload.start_bytes", &["workload.start_bytes=1T"]),
        ("workload.start_bytes", &["workload.alignment_bytes=8192", "workload.start_bytes=4096"]),
        (
            "workload.size.max_bytes",
            &[
                "workload.size.kind=\"exponential\"",
                "workload.size.mean_bytes=4096",
                "workload.size.max_bytes=1024",
                "workload.size.adjust_mean=true",
            ],
        ),
        ("workload.size.mean_bytes", &["workload.size.mean_bytes=8192", "workload.size.max_bytes=4096"]),
        ("workload.size.mean_bytes", &["workload.size.min_bytes=16384"]),
        ("workload.span_bytes", &["workload.span_bytes=4096", "workload.size.mean_bytes=8192"]),
        (
            "workload.span_bytes",
            &["workload.span_bytes=8192", "workload.size.kind=\"uniform\"", "workload.size.min_bytes=16384", "workload.size.max_bytes=65536"],
        ),
        ("workload.requests[1]", &["workload.kind=\"requests\"", "workload.requests=[[0, \"R\", 0, 4096], [1, \"W\", 1000000000000000, 4096]]"]),
        (
            "workload.requests[0]",
            &[
                "array.level=\"raid5\"",
                "array.members=3",
                "sim.verify=true",
                "workload.kind=\"requests\"",
                "workload.requests=[[0, \"W\", 100, 4096]]",
            ],
        ),
        ("sim.max_outstanding_requests", &["sim.max_outstanding_requests=0"]),
        ("array.members", &["array.level=\"cr5m\"", "ssd.geometry.channels=40", "array.members=40"]),
        ("metrics.request_log", &["metrics.request_log=\"/tmp\""]),
        ("metrics.request_log", &["metrics.request_log=\"/nonexistent-dir/x.parquet\""]),
        ("metrics.request_log", &["metrics.request_log=\"log.csv\""]),
    ];
    let mut escaped = Vec::new();
    for (key, overrides) in cases {
        match resolve(overrides) {
            Err(e) => assert!(e.contains(key), "{overrides:?}: the error names {key}: {e}"),
            Ok(cfg) => {
                let built = raidsim_core::sim::Simulation::new(cfg).err().map(|e| e.to_string());
                escaped.push(format!("{overrides:?} resolves, and building the run gives {built:?}"));
            }
        }
    }
    assert!(escaped.is_empty(), "{}", escaped.join("\n"));
}

/// `sim.verify` keeps every sector a rebuild writes onto a spare: a
/// rebuild of a 29 GB member needs about 33 GB, which the estimate counts
/// (it was once left to the kernel's OOM killer).
#[test]
fn the_bytes_verify_keeps_of_a_rebuild_count_in_the_memory_estimate() {
    let rebuild = ["array.level=raid6", "array.members=6", "array.spares=1", "array.failures=[{member = 2, at_ns = 1000000}]"];
    let limit = "sim.memory_limit_bytes=8G";
    let err = resolve(&[&rebuild[..], &["sim.verify=true", limit]].concat()).expect_err("a verified rebuild of 29 GB members");
    assert!(err.contains("sim.memory_limit_bytes") && err.contains("sim.verify"), "{err}");
    resolve(&[&rebuild[..], &[limit]].concat()).expect("the same rebuild unverified fits");
    // Host writes are kept too: 200,000 writes of 1 MiB over a RAID-5 of 4 reach 280 GB of member sectors.
    let writes = ["array.level=raid5", "array.members=4", "workload.read_fraction=0", "workload.size.mean_bytes=1M", "workload.requests=200000"];
    let err = resolve(&[&writes[..], &["sim.verify=true", limit]].concat()).expect_err("verified host writes");
    assert!(err.contains("sim.memory_limit_bytes"), "{err}");
    resolve(&[&writes[..], &[limit]].concat()).expect("the same writes unverified fit");
    resolve(&[&rebuild[..], &["sim.verify=true", limit, "ssd.geometry.blocks_per_plane=64"]].concat()).expect("small members fit");
}
