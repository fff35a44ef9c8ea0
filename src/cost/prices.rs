//! A price table: instance types with their vCPUs, memory and hourly price, and the
//! table's date, source, region and currency, read from a TOML file a user can edit. Every
//! field is required (an instance may add its own `source`, `date` and `note`), unknown
//! keys are refused, and each error names the file and the field, so a typo cannot turn
//! into a silently wrong price.
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Deserialize;

use crate::error::CatalogError;

/// Where the shipped table lives in the repository (it is also built into the binary).
pub const SHIPPED_PATH: &str = "prices/aws-on-demand.toml";
const SHIPPED: &str = include_str!("../../prices/aws-on-demand.toml");

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    /// When the prices were read (as the table's author writes it, e.g. 2026-11-24).
    pub date: String,
    /// Where they were read.
    pub source: String,
    pub region: String,
    /// What `hourly_price` is in, e.g. USD.
    pub currency: String,
    /// What the prices include and leave out.
    pub note: String,
    #[serde(rename = "instance")]
    pub instances: Vec<Instance>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    pub name: String,
    pub vcpus: u32,
    pub memory_gib: f64,
    /// Price of one instance-hour, in the table's currency.
    pub hourly_price: f64,
    /// This price's own source and date, when it differs from the table's.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
}

impl PriceTable {
    /// The table shipped with gqlbench.
    pub fn shipped() -> Result<PriceTable> {
        Ok(Self::parse(SHIPPED, Path::new(SHIPPED_PATH))?)
    }

    /// A table from a file; a missing or unreadable file, bad TOML, a missing or unknown
    /// field or an impossible value is a user error naming the file and the field.
    pub fn load(file: &Path) -> Result<PriceTable> {
        let text = std::fs::read_to_string(file).map_err(|e| CatalogError::File {
            file: file.to_path_buf(),
            message: format!(
                "cannot read the price table ({e}); give --prices a TOML file like {SHIPPED_PATH}"
            ),
        })?;
        Ok(Self::parse(&text, file)?)
    }

    pub fn parse(text: &str, file: &Path) -> Result<PriceTable, CatalogError> {
        let bad = |message: String| CatalogError::File {
            file: PathBuf::from(file),
            message,
        };
        let table: PriceTable = toml::from_str(text).map_err(|e| {
            bad(format!(
                "not a valid price table: {}; every table has date, source, region, currency, note and [[instance]] entries with name, vcpus, memory_gib and hourly_price (see {SHIPPED_PATH})",
                e.to_string().trim()
            ))
        })?;
        for (field, v) in [
            ("date", &table.date),
            ("source", &table.source),
            ("region", &table.region),
            ("currency", &table.currency),
        ] {
            if v.trim().is_empty() {
                return Err(bad(format!("field `{field}` is empty; say it")));
            }
        }
        if table.instances.is_empty() {
            return Err(bad(
                "no [[instance]]: add at least one (name, vcpus, memory_gib, hourly_price)".into(),
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, x) in table.instances.iter().enumerate() {
            let at = format!("[[instance]] {} ('{}')", i + 1, x.name);
            if x.name.trim().is_empty() {
                return Err(bad(format!(
                    "[[instance]] {}: field `name` is empty",
                    i + 1
                )));
            }
            if !seen.insert(x.name.as_str()) {
                return Err(bad(format!(
                    "{at}: field `name` repeats an earlier instance"
                )));
            }
            if x.vcpus == 0 {
                return Err(bad(format!("{at}: field `vcpus` must be at least 1")));
            }
            if !(x.memory_gib.is_finite() && x.memory_gib > 0.0) {
                return Err(bad(format!(
                    "{at}: field `memory_gib` must be above 0, not {}",
                    x.memory_gib
                )));
            }
            if !(x.hourly_price.is_finite() && x.hourly_price > 0.0) {
                return Err(bad(format!(
                    "{at}: field `hourly_price` must be above 0, not {}",
                    x.hourly_price
                )));
            }
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
date = "2026-01-01"
source = "a page"
region = "r"
currency = "USD"
note = "n"

[[instance]]
name = "a.large"
vcpus = 2
memory_gib = 4
hourly_price = 0.1
"#;

    fn err(text: &str) -> String {
        PriceTable::parse(text, Path::new("my-prices.toml"))
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn the_shipped_table_is_valid_and_says_where_its_prices_come_from() {
        let t = PriceTable::shipped().unwrap();
        assert!(!t.instances.is_empty());
        for x in &t.instances {
            assert!(
                x.source.as_deref().is_some_and(|s| s.contains("http")),
                "{}: no source",
                x.name
            );
            assert!(x.date.is_some(), "{}: no date", x.name);
        }
    }

    #[test]
    fn a_good_table_is_read() {
        let t = PriceTable::parse(GOOD, Path::new("p.toml")).unwrap();
        assert_eq!(t.instances[0].vcpus, 2);
        assert_eq!(t.instances[0].memory_gib, 4.0);
        assert_eq!(t.currency, "USD");
    }

    #[test]
    fn a_missing_field_is_named_with_the_file() {
        let e = err(&GOOD.replace("vcpus = 2\n", ""));
        assert!(e.starts_with("my-prices.toml: "), "{e}");
        assert!(e.contains("vcpus"), "{e}");
        let e = err(&GOOD.replace("currency = \"USD\"\n", ""));
        assert!(e.contains("currency"), "{e}");
    }

    #[test]
    fn an_unknown_key_is_named() {
        let e = err(&GOOD.replace("vcpus = 2", "vcpus = 2\ncores = 2"));
        assert!(e.contains("cores"), "{e}");
        assert!(e.starts_with("my-prices.toml: "), "{e}");
    }

    #[test]
    fn impossible_values_are_named() {
        let e = err(&GOOD.replace("hourly_price = 0.1", "hourly_price = -0.1"));
        assert!(e.contains("`hourly_price` must be above 0"), "{e}");
        assert!(e.contains("a.large"), "{e}");
        let e = err(&GOOD.replace("vcpus = 2", "vcpus = 0"));
        assert!(e.contains("`vcpus`"), "{e}");
        let e = err(&GOOD.replace("vcpus = 2", "vcpus = -2"));
        assert!(e.contains("vcpus"), "{e}");
        let e = err(&GOOD.replace("memory_gib = 4", "memory_gib = 0"));
        assert!(e.contains("`memory_gib`"), "{e}");
        let e = err(&format!(
            "{GOOD}{}",
            &GOOD[GOOD.find("[[instance]]").unwrap()..]
        ));
        assert!(e.contains("repeats"), "{e}");
    }

    #[test]
    fn not_toml_or_no_instances_is_refused() {
        let e = err("this is { not toml");
        assert!(e.contains("not a valid price table"), "{e}");
        let e = err(&GOOD[..GOOD.find("[[instance]]").unwrap()]);
        assert!(e.contains("instance"), "{e}");
    }

    #[test]
    fn a_missing_file_is_a_user_error_naming_it() {
        let e = PriceTable::load(Path::new("/nonexistent/prices.toml")).unwrap_err();
        let u = e.downcast_ref::<CatalogError>().expect("a user error");
        assert!(
            u.to_string().starts_with("/nonexistent/prices.toml: "),
            "{u}"
        );
    }
}
