//! Response headers a plan requires: a customization under test (a gateway adding ten
//! GUID headers to every response, say) proves on every response that it ran. A response
//! that lacks them fails as [`crate::FailureKind::Headers`], so a variant whose plugin did
//! not run is never measured as a bare round trip.
use serde::{Deserialize, Serialize};

/// Every response must carry `count` headers named `<prefix>1` .. `<prefix><count>`
/// (names compared without case), each with a non-empty value, and with `distinct` their
/// values must all differ (fresh GUIDs, not one value repeated).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderRule {
    pub prefix: String,
    pub count: usize,
    pub distinct: bool,
}

/// Headers a response head may carry (httparse needs a fixed bound).
const MAX_HEADERS: usize = 128;

impl HeaderRule {
    /// Checks one response head (status line and headers, as received).
    pub fn check(&self, head: &[u8]) -> Result<(), String> {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut resp = httparse::Response::new(&mut headers);
        if let Err(e) = resp.parse(head) {
            return Err(format!("unreadable response head: {e}"));
        }
        let mut values: Vec<Option<&[u8]>> = vec![None; self.count];
        for h in resp.headers.iter() {
            let name = h.name.as_bytes();
            if name.len() <= self.prefix.len()
                || !name[..self.prefix.len()].eq_ignore_ascii_case(self.prefix.as_bytes())
            {
                continue;
            }
            let Some(i) = std::str::from_utf8(&name[self.prefix.len()..])
                .ok()
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|i| (1..=self.count).contains(i))
            else {
                continue;
            };
            values[i - 1] = Some(h.value.trim_ascii());
        }
        // The names are formatted only for a failure: this runs on every measured response.
        if values.iter().any(|v| v.is_none_or(|v| v.is_empty())) {
            let missing: Vec<String> = (1..=self.count)
                .filter(|i| values[i - 1].is_none_or(|v| v.is_empty()))
                .map(|i| format!("{}{i}", self.prefix))
                .collect();
            return Err(format!(
                "{} of {} required headers missing ({})",
                missing.len(),
                self.count,
                missing.join(", ")
            ));
        }
        if self.distinct {
            // Pairwise, without a second allocation: the count is small (ten GUIDs).
            let distinct = (0..values.len())
                .filter(|&i| !values[..i].contains(&values[i]))
                .count();
            if distinct < self.count {
                return Err(format!(
                    "headers {}1..{} repeat values ({} distinct of {})",
                    self.prefix, self.count, distinct, self.count
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(extra: &str) -> Vec<u8> {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{extra}content-length: 2\r\n\r\n"
        )
        .into_bytes()
    }

    fn rule() -> HeaderRule {
        HeaderRule {
            prefix: "guid-".into(),
            count: 3,
            distinct: true,
        }
    }

    #[test]
    fn all_present_and_distinct_passes_in_any_case_and_order() {
        let h = head("GUID-3: c\r\nguid-1: a\r\nGuid-2: b\r\n");
        assert_eq!(rule().check(&h), Ok(()));
    }

    #[test]
    fn a_missing_or_empty_header_fails_naming_it() {
        let e = rule()
            .check(&head("guid-1: a\r\nguid-3: \r\n"))
            .unwrap_err();
        assert!(
            e.contains("2 of 3") && e.contains("guid-2") && e.contains("guid-3"),
            "{e}"
        );
        let none = rule().check(&head("")).unwrap_err();
        assert!(none.contains("3 of 3"), "{none}");
    }

    #[test]
    fn repeated_values_fail_only_when_distinct_is_asked() {
        let h = head("guid-1: a\r\nguid-2: a\r\nguid-3: b\r\n");
        let e = rule().check(&h).unwrap_err();
        assert!(e.contains("2 distinct of 3"), "{e}");
        let lax = HeaderRule {
            distinct: false,
            ..rule()
        };
        assert_eq!(lax.check(&h), Ok(()));
    }

    #[test]
    fn names_beyond_the_count_or_not_numbered_are_ignored() {
        let h = head("guid-1: a\r\nguid-2: b\r\nguid-3: c\r\nguid-4: a\r\nguid-x: a\r\n");
        assert_eq!(rule().check(&h), Ok(()));
    }
}
