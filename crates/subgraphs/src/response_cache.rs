//! Serialized responses by request body.
//!
//! The data never changes and resolvers are pure, so the same body always gets the same
//! answer. A gateway sends the same few bodies over and over (one per query-plan fetch of
//! the benchmarked operation), so answering those from memory keeps the subgraphs far from
//! being the bottleneck: executing a 10-representation `_entities` batch costs ~100 µs of
//! CPU, a cache hit a hash of the body. Delays and counters apply to hits exactly as to
//! misses. `--no-response-cache` turns it off.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::RwLock;

use bytes::Bytes;

/// Bounds on what is kept, so that clients sending ever new bodies cannot grow memory
/// without limit; past them new bodies are executed every time.
const MAX_ENTRIES: usize = 4096;
const MAX_BYTES: usize = 64 << 20;

#[derive(Default)]
pub struct ResponseCache {
    responses: RwLock<HashMap<Bytes, Bytes>>,
    bytes: AtomicUsize,
}

impl ResponseCache {
    pub fn get(&self, body: &[u8]) -> Option<Bytes> {
        // Entries are inserted whole, so a lock poisoned by a panicking writer still
        // holds a sound map.
        let responses = self.responses.read().unwrap_or_else(|e| e.into_inner());
        responses.get(body).cloned()
    }

    /// Keeps `response` for `body` unless the bounds are reached.
    pub fn insert(&self, body: Bytes, response: Bytes) {
        let size = body.len() + response.len();
        if self.bytes.load(Ordering::Relaxed) + size > MAX_BYTES {
            return;
        }
        let mut responses = self.responses.write().unwrap_or_else(|e| e.into_inner());
        if responses.len() < MAX_ENTRIES && !responses.contains_key(&body) {
            self.bytes.fetch_add(size, Ordering::Relaxed);
            responses.insert(body, response);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_what_was_stored_for_the_exact_body() {
        let cache = ResponseCache::default();
        assert!(cache.get(b"a").is_none());
        cache.insert(Bytes::from_static(b"a"), Bytes::from_static(b"1"));
        assert_eq!(cache.get(b"a").as_deref(), Some(&b"1"[..]));
        assert!(cache.get(b"a ").is_none());
    }

    #[test]
    fn stops_growing_at_its_entry_bound() {
        let cache = ResponseCache::default();
        for i in 0..MAX_ENTRIES + 10 {
            cache.insert(Bytes::from(i.to_string()), Bytes::from_static(b"x"));
        }
        assert!(cache.get(MAX_ENTRIES.to_string().as_bytes()).is_none());
        assert!(cache.get(b"0").is_some());
    }
}
