//! Driving one hard disk request by request.

use raidsim_core::config::HddConfig;
use raidsim_core::device::{Cause, DeviceRequest, MemberDevice, Op};
use raidsim_core::hdd::Hdd;

/// A disk of `cfg` (spindle phase from seed 7, unused with synchronized spindles).
pub fn disk(cfg: &HddConfig) -> Hdd {
    Hdd::new(cfg, &cfg.validate().expect("valid disk"), 7)
}

/// A user request of `sectors` 512-byte sectors from `sector`.
pub fn req(token: u64, op: Op, sector: u64, sectors: u64) -> DeviceRequest {
    DeviceRequest { token, op, offset_bytes: sector * 512, len_bytes: sectors * 512, cause: Cause::User, stream: 0 }
}

/// Serves `r` on an idle disk at `now`; returns its completion.
pub fn serve(d: &mut Hdd, now: u64, r: DeviceRequest) -> u64 {
    let done = d.submit(now, r).expect("served").expect("idle disk starts at once").done_ns;
    assert!(d.complete(done).expect("completes").is_none());
    done
}
