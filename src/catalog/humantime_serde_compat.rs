//! Durations in manifests (targets, scenarios, the kinds' sections) are written as "30s",
//! "500ms": `#[serde(with = "humantime_serde_compat")]` reads them.
use std::time::Duration;

use serde::{Deserialize, Deserializer};

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let s = String::deserialize(d)?;
    humantime::parse_duration(&s).map_err(|e| {
        serde::de::Error::custom(format!(
            "'{s}' is not a duration ({e}); write e.g. \"500ms\", \"30s\""
        ))
    })
}

pub mod option {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        super::deserialize(d).map(Some)
    }
}
