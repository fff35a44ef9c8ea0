//! The shape of the wide graph: twelve subgraphs, each owning one entity type, tied into a
//! tree by entity references, all drawn from a fixed seed so that every build generates the
//! same graph (the committed SDL, supergraph and expected answers depend on it).
//!
//! Subgraph `k` owns entity `T_k` (a key field and two or three scalar fields). Every
//! subgraph but the root also contributes one field to its parent's entity that returns
//! its own: `T_parent.<child> : T_child`. So a query that walks the tree from the root's
//! list touches all twelve subgraphs, some in parallel (siblings) and some one after the
//! other (depth), and every hop is an entity fetch by key across subgraphs.

use std::sync::OnceLock;

/// The seed the committed files were generated from.
pub const SEED: u64 = 12;
/// Entities per type; keys cycle through them.
pub const INSTANCES: u32 = 20;
/// Tree depth bound: deep enough for sequential hops, shallow enough for fan-out.
const MAX_DEPTH: usize = 3;

/// (subgraph, entity type, key prefix), in alphabetical order of the subgraph names: the
/// order of the placeholder ports in the committed supergraph
/// (`targets/_federation/compose.mjs`). Key values are "<prefix>-<n>".
const OWNERS: [(&str, &str, &str); 12] = [
    ("analytics", "Metric", "met"),
    ("billing", "Invoice", "inv"),
    ("catalog", "Item", "ite"),
    ("customers", "Customer", "cus"),
    ("inventory", "Stock", "sto"),
    ("media", "Image", "ima"),
    ("orders", "Order", "ord"),
    ("pricing", "Price", "pri"),
    ("reviews", "Rating", "rat"),
    ("search", "Listing", "lis"),
    ("shipping", "Parcel", "par"),
    ("users", "Account", "acc"),
];

const KEY_NAMES: [&str; 4] = ["id", "code", "sku", "ref"];
const FIELD_NAMES: [&str; 10] = [
    "label", "score", "rank", "weight", "active", "ratio", "title", "count", "level", "note",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Int,
    String,
    /// Always a non-integer (n + 0.5): JavaScript prints 3.0 as 3, Rust as 3.0, and an
    /// answer must compare equal whichever runtime a gateway is.
    Float,
    Boolean,
}

impl Scalar {
    const ALL: [Scalar; 4] = [Scalar::Int, Scalar::String, Scalar::Float, Scalar::Boolean];

    pub fn graphql_name(self) -> &'static str {
        match self {
            Scalar::Int => "Int",
            Scalar::String => "String",
            Scalar::Float => "Float",
            Scalar::Boolean => "Boolean",
        }
    }
}

#[derive(Debug)]
pub struct Entity {
    pub subgraph: &'static str,
    pub type_name: &'static str,
    pub key: &'static str,
    pub fields: Vec<(&'static str, Scalar)>,
    /// Index of the parent entity in the tree; None for the root.
    pub parent: Option<usize>,
    /// The field on the parent's type that leads here: the type name in lower camel case.
    pub link: String,
}

#[derive(Debug)]
pub struct Spec {
    pub entities: Vec<Entity>,
    pub root: usize,
}

impl Spec {
    pub fn children(&self, of: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.entities.len()).filter(move |&c| self.entities[c].parent == Some(of))
    }

    pub fn by_type(&self, type_name: &str) -> Option<usize> {
        self.entities.iter().position(|e| e.type_name == type_name)
    }

    pub fn by_subgraph(&self, name: &str) -> Option<usize> {
        self.entities.iter().position(|e| e.subgraph == name)
    }

    fn depth(&self, mut e: usize) -> usize {
        let mut d = 0;
        while let Some(p) = self.entities[e].parent {
            e = p;
            d += 1;
        }
        d
    }

    /// The longest chain of entity fetches below the root.
    pub fn max_depth(&self) -> usize {
        (0..self.entities.len())
            .map(|e| self.depth(e))
            .max()
            .unwrap_or(0)
    }
}

/// The subgraph names, in port order.
pub const NAMES: [&str; 12] = {
    let mut out = [""; 12];
    let mut i = 0;
    while i < 12 {
        out[i] = OWNERS[i].0;
        i += 1;
    }
    out
};

pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| generate(SEED))
}

/// splitmix64: a tiny counter-based generator, enough to draw a fixed graph from a seed
/// without tying the committed files to a random-number crate's version.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub fn generate(seed: u64) -> Spec {
    let mut draw = Draw(seed);
    let n = OWNERS.len();
    // The order entities join the tree: a seeded shuffle; the first is the root.
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, draw.below(i + 1));
    }
    let mut entities: Vec<Entity> = OWNERS
        .iter()
        .map(|(subgraph, type_name, _)| {
            let mut names: Vec<&'static str> = FIELD_NAMES.to_vec();
            let count = 2 + draw.below(2);
            let fields = (0..count)
                .map(|_| {
                    let name = names.remove(draw.below(names.len()));
                    (name, Scalar::ALL[draw.below(Scalar::ALL.len())])
                })
                .collect();
            let mut link = type_name.to_string();
            link[..1].make_ascii_lowercase();
            Entity {
                subgraph,
                type_name,
                key: KEY_NAMES[draw.below(KEY_NAMES.len())],
                fields,
                parent: None,
                link,
            }
        })
        .collect();
    let mut depth = vec![0usize; n];
    for (placed, &e) in order.iter().enumerate().skip(1) {
        // A parent among those already in the tree and above the depth bound.
        let candidates: Vec<usize> = order[..placed]
            .iter()
            .copied()
            .filter(|&p| depth[p] < MAX_DEPTH)
            .collect();
        let p = candidates[draw.below(candidates.len())];
        entities[e].parent = Some(p);
        depth[e] = depth[p] + 1;
    }
    Spec {
        entities,
        root: order[0],
    }
}

/// The operation that walks the whole tree from the root's list: every entity's key and
/// fields, so it touches all twelve subgraphs (committed as
/// scenarios/queries/federation-wide/all12.graphql).
pub fn walk_query() -> String {
    fn select(s: &Spec, e: usize, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent);
        let entity = &s.entities[e];
        out.push_str(&format!("{pad}{}\n", entity.key));
        for (name, _) in &entity.fields {
            out.push_str(&format!("{pad}{name}\n"));
        }
        for c in s.children(e) {
            out.push_str(&format!("{pad}{} {{\n", s.entities[c].link));
            select(s, c, indent + 1, out);
            out.push_str(&format!("{pad}}}\n"));
        }
    }
    let s = spec();
    let mut out = String::from(
        "# Generated from the wide graph's spec (crates/subgraphs/src/wide/spec.rs, walk_query):\n\
         # the root subgraph's list, then every entity of the other eleven by key, down the tree.\n\
         query All12($first: Int) {\n  items(first: $first) {\n",
    );
    select(s, s.root, 2, &mut out);
    out.push_str("  }\n}\n");
    out
}

/// A key value of entity type `e`: "<prefix>-<n>", n in 1..=INSTANCES.
pub fn key_value(e: usize, n: u32) -> String {
    format!("{}-{n}", OWNERS[e].2)
}

/// The instance number in a key value of entity `e`, if it is one of ours.
pub fn instance_of(e: usize, key: &str) -> Option<u32> {
    let (prefix, n) = key.rsplit_once('-')?;
    let n: u32 = n.parse().ok()?;
    (prefix == OWNERS[e].2 && (1..=INSTANCES).contains(&n)).then_some(n)
}

/// The child entity instance that parent instance `n` of entity `parent` links to.
pub fn linked_instance(parent: usize, n: u32, child: usize) -> u32 {
    ((n as u64 * 7 + parent as u64 * 3 + child as u64) % INSTANCES as u64) as u32 + 1
}

fn mix(parts: &[u64]) -> u64 {
    let mut d = Draw(0x5EED);
    for p in parts {
        d.0 ^= *p;
        d.next();
    }
    d.next()
}

/// The value of scalar field `f` of instance `n` of entity `e`: a pure function of the
/// three, so every subgraph and the monolith agree without sharing state.
pub fn field_value(e: usize, n: u32, f: usize, scalar: Scalar) -> async_graphql::Value {
    use async_graphql::Value;
    let h = mix(&[e as u64, n as u64, f as u64]);
    match scalar {
        Scalar::Int => Value::from((h % 1000) as i32),
        Scalar::String => Value::from(format!("{}-{}", FIELD_NAMES[(h % 10) as usize], h % 97)),
        Scalar::Float => Value::from((h % 1000) as f64 + 0.5),
        Scalar::Boolean => Value::from(h.is_multiple_of(2)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_spans_all_twelve_with_depth_and_fan_out() {
        let s = spec();
        assert_eq!(s.entities.len(), 12);
        assert!(s.entities[s.root].parent.is_none());
        // Every entity reaches the root (a tree, no cycles).
        for e in 0..12 {
            assert!(s.depth(e) <= MAX_DEPTH, "{e}");
        }
        assert_eq!(
            (0..12).filter(|&e| s.entities[e].parent.is_none()).count(),
            1
        );
        assert!(s.max_depth() >= 2, "no sequential hops: {s:?}");
        assert!(s.children(s.root).count() >= 2, "no fan-out: {s:?}");
    }

    #[test]
    fn the_same_seed_gives_the_same_graph_and_another_seed_another() {
        let a = format!("{:?}", generate(SEED));
        assert_eq!(a, format!("{:?}", generate(SEED)));
        assert_ne!(a, format!("{:?}", generate(SEED + 1)));
    }

    #[test]
    fn keys_round_trip_and_foreign_keys_are_refused() {
        for e in 0..12 {
            for n in [1, INSTANCES] {
                assert_eq!(instance_of(e, &key_value(e, n)), Some(n));
            }
            assert_eq!(instance_of(e, &key_value(e, 0)), None);
            assert_eq!(instance_of(e, "nonsense"), None);
        }
        assert_eq!(instance_of(0, &key_value(1, 3)), None);
        let prefixes: std::collections::HashSet<&str> = OWNERS.iter().map(|o| o.2).collect();
        assert_eq!(prefixes.len(), OWNERS.len(), "a key prefix is shared");
        for p in 0..12 {
            for n in 1..=INSTANCES {
                assert!((1..=INSTANCES).contains(&linked_instance(p, n, 5)));
            }
        }
    }

    #[test]
    fn floats_are_never_whole() {
        for n in 1..=INSTANCES {
            let v = field_value(3, n, 1, Scalar::Float);
            let f: f64 = serde_json::to_value(&v).unwrap().as_f64().unwrap();
            assert!(f.fract() != 0.0, "{f}");
        }
    }
}
