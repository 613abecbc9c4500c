//! Every integration test of raidsim-core in one binary: linked once (thin
//! LTO makes each link slow), run in parallel. One module per subject.

mod common;

mod array_timed;
mod block_mapped_ftls;
mod cell_types;
mod closed_replay;
mod codeword_planner;
mod cost;
mod degraded_modes;
mod determinism;
mod disksim_load;
mod disksim_parity_rule;
mod disksim_validation;
mod erase_suspend;
mod flow_placement;
mod flows;
mod ftl_gc;
mod gc_holds;
mod harmonia;
mod hdd_array;
mod hdd_cache;
mod hdd_model;
mod input_errors;
mod intra_ssd;
mod mapping_cache;
mod no_panic_fuzz;
mod parity_compute;
mod planner_properties;
mod policy_pins;
mod postmark_stand_in;
mod pre_reads;
mod rais_controller;
mod rebuild;
mod report_warnings;
mod request_log;
mod shared_traces;
mod slc_cache;
mod ssd_closed_forms;
mod steadiness;
mod stripe_unit_tables;
mod trace_parsers;
mod trim;
mod verified_bytes;
mod warmup;
mod write_buffer;
