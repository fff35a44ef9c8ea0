//! One mock subgraph: its SDL, its schema, its list lengths and field costs, executed by
//! the crate's `Executor`, which routes `_service` to the SDL text as given (async-graphql
//! would print its own rendering, which drops the `@link` and the directives it does not
//! know).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use async_graphql::{BatchRequest, BatchResponse, Request, Response};

use super::identity::is_list;
use super::model::{self, Kind};
use super::resolve::Mock;
use crate::executor::Executor;

/// The longest list a field may be configured to return: a bound on response size (a list
/// of lists of 1000 is already a million values).
pub const MAX_LIST: usize = 1000;

#[derive(Debug, Clone)]
pub struct MockConfig {
    /// Length of every list field not named in `lists`.
    pub default_list: usize,
    /// Length by `Type.field`.
    pub lists: BTreeMap<String, usize>,
    /// CPU cost by `Type.field`, burnt each time the field is resolved (`cost.rs`).
    pub costs: BTreeMap<String, Duration>,
    /// One value in this many of a nullable field is null (0: never).
    pub null_every: u64,
}

/// The default of `MockConfig::null_every`: nulls a gateway must carry (and not fetch
/// below), rare enough that most of an operation's work is done.
pub const NULL_EVERY: u64 = 10;

impl Default for MockConfig {
    fn default() -> MockConfig {
        MockConfig {
            default_list: 3,
            lists: BTreeMap::new(),
            costs: BTreeMap::new(),
            null_every: NULL_EVERY,
        }
    }
}

pub struct MockSubgraph {
    /// The SDL file's stem.
    pub name: String,
    pub sdl: String,
    /// Directives not honoured, one line per field.
    pub warnings: Vec<String>,
    /// What the resolvers read; its `lists` are the config's lengths naming this subgraph.
    mock: Arc<Mock>,
    /// The `Type.field` costs of the config that name a field of this subgraph.
    served_costs: BTreeSet<String>,
    executor: Executor,
}

impl Mock {
    /// The subgraph serving `sdl` with the list lengths of `config` that name its fields;
    /// `file` names the SDL in errors; its graph-wide state (keys, shared members, nulls)
    /// is `graph_mocks`', the one way to build mocks, so that a served subgraph and an
    /// in-process answer (`answer::Graph`) read the same.
    fn from_sdl(file: &str, sdl: &str, config: &MockConfig) -> anyhow::Result<Mock> {
        let model = model::parse(file, sdl)?;
        anyhow::ensure!(
            config.default_list <= MAX_LIST,
            "the default list length {} is over the maximum {MAX_LIST}",
            config.default_list
        );
        let mut lists = BTreeMap::new();
        for (path, &n) in &config.lists {
            let known = path.split_once('.').is_some_and(|(t, f)| {
                model.types.get(t).is_some_and(|t| {
                    matches!(t.kind, Kind::Object) && t.field(f).is_some_and(|f| is_list(&f.ty))
                })
            });
            anyhow::ensure!(
                n <= MAX_LIST,
                "list length {n} for {path} is over the maximum {MAX_LIST}"
            );
            // Overrides name fields of the whole graph; another subgraph may own this one.
            if !known {
                continue;
            }
            lists.insert(path.clone(), n);
        }
        Ok(Mock {
            // The graph's, set by `graph_mocks` (the one way to a served or computed mock).
            keys: Arc::default(),
            shared: Arc::default(),
            model,
            default_list: config.default_list,
            lists,
            null_every: config.null_every,
        })
    }
}

/// The mocks of one graph's subgraphs, each (name, file for errors, SDL): every one knows
/// the key fields of all (`identity::Keys`), so an entity is the same whichever key a
/// gateway sends, and the members each shared field has in all (`shared::Shared`).
pub fn graph_mocks(
    subgraphs: &[(String, String, String)],
    config: &MockConfig,
) -> anyhow::Result<Vec<Mock>> {
    let mut mocks = subgraphs
        .iter()
        .map(|(_, file, sdl)| Mock::from_sdl(file, sdl, config))
        .collect::<anyhow::Result<Vec<_>>>()?;
    own_lone_externals(&mut mocks);
    let keys = Arc::new(super::identity::Keys::of(mocks.iter().map(|m| &m.model)));
    let shared = Arc::new(super::shared::Shared::of(mocks.iter().map(|m| &m.model)));
    let non_null = super::shared::non_null(mocks.iter().map(|m| &m.model));
    for m in &mut mocks {
        m.keys = Arc::clone(&keys);
        m.shared = Arc::clone(&shared);
        super::shared::settle_nulls(&mut m.model, &non_null);
    }
    Ok(mocks)
}

/// An `@external` field no subgraph defines otherwise is its subgraph's own: a Federation 1
/// `extend type Product @key(fields: "upc") { upc: String @external }` where no other
/// subgraph has `upc` (composition gives the field to that subgraph; in Federation 2 such
/// a graph does not compose).
fn own_lone_externals(mocks: &mut [Mock]) {
    let defined: BTreeSet<(String, String)> = mocks
        .iter()
        .flat_map(|m| m.model.types.values())
        .flat_map(|t| {
            t.fields
                .iter()
                .filter(|f| !f.external)
                .map(|f| (t.name.clone(), f.name.clone()))
        })
        .collect();
    for m in mocks {
        for t in m.model.types.values_mut() {
            for f in t.fields.iter_mut().filter(|f| f.external) {
                f.external = defined.contains(&(t.name.clone(), f.name.clone()));
            }
        }
    }
}

/// Every `*.graphql` file of `dir`, by name: (its stem, its path for errors, its text).
pub fn sdl_files(dir: &Path) -> anyhow::Result<Vec<(String, String, String)>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "graphql"))
        .collect();
    files.sort();
    anyhow::ensure!(!files.is_empty(), "no *.graphql file in {}", dir.display());
    let mut out = Vec::new();
    for path in files {
        let sdl = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .with_context(|| format!("{} has no UTF-8 name", path.display()))?;
        out.push((name.to_string(), path.display().to_string(), sdl));
    }
    Ok(out)
}

/// A list length no subgraph serves is most likely a typo: say so rather than serve lists
/// of the default length unnoticed. `place` says where the SDL came from.
pub(crate) fn ensure_lists_served<'a>(
    config: &MockConfig,
    mocks: impl Iterator<Item = &'a Mock> + Clone,
    place: &str,
) -> anyhow::Result<()> {
    for path in config.lists.keys() {
        anyhow::ensure!(
            mocks.clone().any(|m| m.lists.contains_key(path)),
            "the list length for {path} names no list field of the SDL files {place}"
        );
    }
    Ok(())
}

impl MockSubgraph {
    /// The subgraph `name` serving `sdl`; `file` names the SDL in errors.
    pub fn new(name: &str, file: &str, sdl: &str, config: &MockConfig) -> anyhow::Result<Self> {
        // A graph of one: its keys, shared members and nulls settled as any graph's.
        let one = [(name.to_string(), file.to_string(), sdl.to_string())];
        let mock = graph_mocks(&one, config)?.remove(0);
        MockSubgraph::of_mock(name, file, sdl, mock, config)
    }

    fn of_mock(
        name: &str,
        file: &str,
        sdl: &str,
        mock: Mock,
        config: &MockConfig,
    ) -> anyhow::Result<Self> {
        let mock = Arc::new(mock);
        let warnings = mock.model.warnings.clone();
        // Costs, like lengths, name fields of the whole graph: this file's share applies.
        let costs: BTreeMap<String, Duration> = config
            .costs
            .iter()
            .filter(|(path, _)| {
                path.split_once('.').is_some_and(|(t, f)| {
                    mock.model
                        .types
                        .get(t)
                        .is_some_and(|t| matches!(t.kind, Kind::Object) && t.field(f).is_some())
                })
            })
            .map(|(path, &cost)| (path.clone(), cost))
            .collect();
        let served_costs = costs.keys().cloned().collect();
        // async-graphql's departures from the spec, mended per document (`conform`).
        let conform = super::conform::Conform::of(&mock.model);
        let schema = super::schema::build(mock.clone(), &costs, conform.narrowed())
            .with_context(|| format!("{file}: schema"))?;
        Ok(MockSubgraph {
            name: name.to_string(),
            sdl: sdl.to_string(),
            warnings,
            mock,
            served_costs,
            executor: Executor::dynamic(
                schema,
                sdl.to_string(),
                crate::doc_cache::Rewrite {
                    document: Box::new(move |doc| conform.rewrite(doc)),
                    answer: super::conform::unmark,
                },
            ),
        })
    }

    /// Every `*.graphql` file of `dir`, by name, each served under its file stem.
    pub fn load_dir(dir: &Path, config: &MockConfig) -> anyhow::Result<Vec<MockSubgraph>> {
        let files = sdl_files(dir)?;
        let mocks = graph_mocks(&files, config)?;
        let out = files
            .iter()
            .zip(mocks)
            .map(|((name, file, sdl), mock)| MockSubgraph::of_mock(name, file, sdl, mock, config))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let place = format!("in {}", dir.display());
        ensure_lists_served(config, out.iter().map(|s| &*s.mock), &place)?;
        for path in config.costs.keys() {
            anyhow::ensure!(
                out.iter().any(|s| s.served_costs.contains(path)),
                "the cost for {path} names no field of an object type of the SDL files {place}"
            );
        }
        Ok(out)
    }

    /// What the HTTP server serves: the name and the executor.
    pub fn into_served(self) -> crate::server::Served {
        crate::server::Served {
            name: self.name,
            executor: self.executor,
        }
    }

    pub async fn execute(&self, request: Request) -> Response {
        self.executor.execute(request).await
    }

    pub async fn execute_batch(&self, batch: BatchRequest) -> BatchResponse {
        self.executor.execute_batch(batch).await
    }
}
