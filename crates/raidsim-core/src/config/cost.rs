//! Prices, for cost efficiency: performance and capacity per dollar, the
//! RAIS paper's metrics (Kim et al., "An Empirical Study of Redundant Array
//! of Independent Solid-State Drives", ORNL 2010, §5.4: IOPS per dollar for
//! small random work, MB/s per dollar for large sequential work, GB per
//! dollar). A configuration prices every drive (`ssd.price_usd`,
//! `hdd.price_usd`, per member through `array.member_ssd`) and optionally
//! its RAID controller (`array.controller.price_usd`), or prices nothing:
//! a partly priced array would report a cost that looks measured and is not.

use super::{Config, MemberConfig, RaidLevel};
use crate::error::{Error, Result};

/// What the configuration's hardware costs, US dollars.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prices {
    /// Every drive bought: members and hot spares (one SSD for `cr5`/`cr5m`,
    /// whose members are its channels).
    pub drives_usd: f64,
    /// The RAID controller.
    pub controller_usd: f64,
}

impl Prices {
    /// The prices of `config` with its resolved `members` (spares included);
    /// `None` when nothing is priced.
    pub fn of(config: &Config, members: &[MemberConfig]) -> Result<Option<Self>> {
        let controller_usd = price("array.controller.price_usd", config.array.controller.price_usd)?;
        let keys: Vec<String> = members.iter().enumerate().map(|(i, m)| member_key(m, i, config.array.member_ssd.len())).collect();
        let each: Vec<f64> = members.iter().zip(&keys).map(|(m, key)| price(key, member_price(m))).collect::<Result<_>>()?;
        let priced = each.iter().filter(|&&p| p > 0.0).count();
        if priced == 0 {
            if controller_usd > 0.0 {
                return Err(Error::config(
                    "array.controller.price_usd",
                    "prices the controller but no drive: give ssd.price_usd (or hdd.price_usd) too, or neither",
                ));
            }
            return Ok(None);
        }
        if priced < each.len() {
            let unpriced: Vec<usize> = (0..each.len()).filter(|&i| each[i] == 0.0).collect();
            let names: Vec<String> = unpriced.iter().map(usize::to_string).collect();
            return Err(Error::config(
                &keys[unpriced[0]],
                format!("drives {} (members, then spares) have no price while others do: price every drive or none", names.join(", ")),
            ));
        }
        let level = config.array.level;
        if controller_usd > 0.0 && (level == RaidLevel::Single || level.inside_one_ssd()) {
            return Err(Error::config(
                "array.controller.price_usd",
                format!("level \"{}\" has no RAID controller to price (the drive's own is in its price)", format!("{level:?}").to_lowercase()),
            ));
        }
        // The channels of one SSD are one drive.
        let drives_usd = if level.inside_one_ssd() { each[0] } else { each.iter().sum() };
        if !(drives_usd + controller_usd).is_finite() {
            return Err(Error::config(&keys[0], "the prices add up to more than a number can hold: give US dollars"));
        }
        Ok(Some(Self { drives_usd, controller_usd }))
    }

    /// Drives and controller.
    pub fn total_usd(&self) -> f64 {
        self.drives_usd + self.controller_usd
    }
}

fn member_price(m: &MemberConfig) -> f64 {
    match m {
        MemberConfig::Ssd { ssd, .. } => ssd.price_usd,
        MemberConfig::Hdd { hdd, .. } => hdd.price_usd,
    }
}

fn member_key(m: &MemberConfig, i: usize, overridden: usize) -> String {
    match m {
        MemberConfig::Ssd { .. } if i < overridden => format!("array.member_ssd[{i}].price_usd"),
        MemberConfig::Ssd { .. } => "ssd.price_usd".into(),
        MemberConfig::Hdd { .. } => "hdd.price_usd".into(),
    }
}

/// Below a cent a price is a typing error, and per-dollar figures would overflow.
const SMALLEST_PRICE_USD: f64 = 0.01;

fn price(key: &str, usd: f64) -> Result<f64> {
    if !(usd.is_finite() && (usd == 0.0 || usd >= SMALLEST_PRICE_USD)) {
        return Err(Error::config(key, format!("{usd} is no price: give US dollars, at least 0.01 (0 = unpriced)")));
    }
    Ok(usd)
}
