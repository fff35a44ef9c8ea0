//! Seed 001's published cost table ("Cost Analysis (AWS, 1M requests/day)"), kept as the
//! figures it published so the report can set it beside what this run measured, labelled:
//! nothing in it was measured by gqlbench, and the seed does not say how its instance counts
//! follow from a measurement.

pub struct PublishedRow {
    pub server: &'static str,
    pub instances: &'static str,
    pub monthly_usd: f64,
    pub per_million_usd: f64,
}

pub const TITLE: &str =
    "Cost Analysis (AWS, 1M requests/day), published by seed 001 — not measured";

pub const ROWS: &[PublishedRow] = &[
    PublishedRow {
        server: "Mercurius",
        instances: "2x c6i.large",
        monthly_usd: 146.0,
        per_million_usd: 4.86,
    },
    PublishedRow {
        server: "Yoga",
        instances: "2x c6i.xlarge",
        monthly_usd: 219.0,
        per_million_usd: 7.30,
    },
    PublishedRow {
        server: "Apollo Server",
        instances: "3x c6i.xlarge",
        monthly_usd: 328.0,
        per_million_usd: 10.93,
    },
];

/// What the table itself says, checked against its own numbers (a 30-day month of 1M
/// requests a day is 30M requests): said plainly, without judging.
pub fn remarks() -> Vec<String> {
    let m = &ROWS[0];
    vec![
        format!(
            "Its cost per 1M requests is its monthly cost over 30M requests (1M a day for 30 days): ${:.0} ÷ 30 = ${:.2} (it prints ${:.2}).",
            m.monthly_usd,
            m.monthly_usd / 30.0,
            m.per_million_usd
        ),
        "1M requests a day is 11.6 req/s on average; the table does not say which measured throughput, utilization or redundancy its instance counts come from, so it cannot be reproduced from a measurement.".into(),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_remark_does_the_arithmetic_of_the_published_rows() {
        let r = super::remarks();
        assert!(r[0].contains("$146 ÷ 30 = $4.87"), "{}", r[0]);
        assert!(r[0].contains("(it prints $4.86)"), "{}", r[0]);
    }
}
