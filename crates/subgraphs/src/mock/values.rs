//! Leaf values from a seed, by scalar type and field name: readable enough that a response
//! looks like data (`name` a name, `email` an address, `createdAt` a date), small enough that
//! responses stay the size of real ones.

use serde_json::{json, Value};

const WORDS: &[&str] = &[
    "amber", "birch", "cedar", "delta", "ember", "fjord", "granite", "harbor", "iris", "juniper",
    "kelp", "lumen", "maple", "nova", "onyx", "pine", "quartz", "raven", "slate", "tundra",
];

const NAMES: &[&str] = &[
    "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus",
];

/// 1..=1000: small, so ids look like ids and collide rarely in a response.
pub fn small(seed: u64) -> u64 {
    seed % 1000 + 1
}

fn word(seed: u64) -> &'static str {
    WORDS[(seed % WORDS.len() as u64) as usize]
}

/// The value of a scalar of type `scalar` in field `field` of type `owner`.
pub fn scalar(scalar: &str, owner: &str, field: &str, seed: u64) -> Value {
    let n = small(seed);
    match scalar {
        "ID" => json!(format!("{owner}-{n}")),
        "Int" => json!(seed % 1001),
        "Float" => json!((seed % 100_000) as f64 / 100.0),
        "Boolean" => json!(seed.is_multiple_of(2)),
        "String" => json!(string(field, seed)),
        // A custom scalar: a string is what most (dates, URLs, JSON-ish ids) accept.
        other if other.contains("Date") || other.contains("Time") => json!(date(seed)),
        other => json!(format!("{other}-{n}")),
    }
}

fn string(field: &str, seed: u64) -> String {
    let lower = field.to_ascii_lowercase();
    let n = small(seed);
    let w = word(seed / 1000);
    if lower.contains("email") {
        format!("{w}{n}@example.com")
    } else if lower.contains("url") || lower.contains("link") {
        format!("https://example.com/{w}/{n}")
    } else if field.ends_with("At") || lower.contains("date") {
        date(seed)
    } else if lower.contains("name") {
        format!(
            "{} {}",
            NAMES[(seed % NAMES.len() as u64) as usize],
            capital(w)
        )
    } else if lower.contains("title") {
        format!("{} {} {n}", capital(w), word(seed / 7))
    } else if lower.contains("description") || lower.contains("body") || lower.contains("text") {
        format!(
            "The {w} {} and the {} {}.",
            word(seed / 3),
            word(seed / 5),
            word(seed / 11)
        )
    } else {
        format!("{w}-{n}")
    }
}

fn capital(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// An RFC 3339 instant in 2020..2025, whole seconds.
fn date(seed: u64) -> String {
    let day = seed % (365 * 5);
    let (year, day_of_year) = (2020 + day / 365, day % 365);
    let (month, day) = (day_of_year / 28 % 12 + 1, day_of_year % 28 + 1);
    let secs = (seed / 1825) % 86_400;
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_type_and_name() {
        assert_eq!(scalar("ID", "User", "id", 41), json!("User-42"));
        let email = scalar("String", "User", "email", 7);
        assert!(email.as_str().is_some_and(|s| s.ends_with("@example.com")));
        let created = scalar("String", "User", "createdAt", 7);
        assert!(created
            .as_str()
            .is_some_and(|s| s.len() == 20 && s.ends_with('Z')));
        assert!(scalar("Int", "A", "b", u64::MAX)
            .as_u64()
            .is_some_and(|n| n <= 1000));
        let price = scalar("Float", "A", "price", 12345).as_f64();
        assert_eq!(price, Some(123.45));
    }
}
