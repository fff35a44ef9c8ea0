//! Executes one subgraph's GraphQL requests: cached parsing, `_service` routing, then the
//! subgraph's schema.

use async_graphql::{BatchRequest, BatchResponse, Request, Response};

use crate::doc_cache::DocCache;
use crate::graph::Graph;
use crate::schemas::{accounts, inventory, products, reviews};
use crate::service::{self, ServiceSchema};
use crate::subgraph::{Federation, Subgraph};

enum SubgraphSchema {
    Accounts(accounts::AccountsSchema),
    Products(products::ProductsSchema),
    Reviews(reviews::ReviewsSchema),
    Inventory(inventory::InventorySchema),
    /// A generated subgraph of the wide graph, or a mock subgraph of a user's SDL.
    Dynamic(async_graphql::dynamic::Schema),
}

pub struct Executor {
    schema: SubgraphSchema,
    service: ServiceSchema,
    docs: DocCache,
}

impl Executor {
    /// The executor of subgraph `index` of `graph`.
    pub fn new(graph: Graph, index: usize, federation: Federation) -> anyhow::Result<Executor> {
        let schema = match graph {
            Graph::Demo => match Subgraph::ALL[index] {
                Subgraph::Accounts => SubgraphSchema::Accounts(accounts::schema()),
                Subgraph::Products => SubgraphSchema::Products(products::schema()),
                Subgraph::Reviews => SubgraphSchema::Reviews(reviews::schema()),
                Subgraph::Inventory => SubgraphSchema::Inventory(inventory::schema()),
            },
            Graph::Wide => SubgraphSchema::Dynamic(
                crate::wide::schema::subgraph(index)
                    .map_err(|e| anyhow::anyhow!("wide subgraph {index}: {}", e.0))?,
            ),
        };
        Ok(Executor {
            schema,
            service: service::schema(graph.sdl(index, federation)?),
            docs: DocCache::default(),
        })
    }

    /// The executor of a dynamic schema answering `_service` with `sdl` as given (a mock
    /// subgraph of a user's SDL), each document rewritten by `rewrite` first.
    pub fn dynamic(
        schema: async_graphql::dynamic::Schema,
        sdl: String,
        rewrite: crate::doc_cache::Rewrite,
    ) -> Executor {
        Executor {
            schema: SubgraphSchema::Dynamic(schema),
            service: service::schema(sdl),
            docs: DocCache::with_rewrite(rewrite),
        }
    }

    pub async fn execute(&self, mut request: Request) -> Response {
        let mut marked = false;
        if let Some(parsed) = self.docs.get(&request.query) {
            let asks_service = parsed.asks_service;
            marked = parsed.marked;
            for (op, name, value) in &parsed.defaults {
                let this_op = op.is_none() || op.as_deref() == request.operation_name.as_deref();
                if this_op && !request.variables.contains_key(name) {
                    request.variables.insert(name.clone(), value.clone());
                }
            }
            request.set_parsed_query(parsed.doc.clone());
            if asks_service {
                return self.service.execute(request).await;
            }
        }
        let mut response = self.run(request).await;
        if marked {
            self.docs.clean(&mut response.data);
        }
        response
    }

    async fn run(&self, request: Request) -> Response {
        match &self.schema {
            SubgraphSchema::Accounts(s) => s.execute(request).await,
            SubgraphSchema::Products(s) => s.execute(request).await,
            SubgraphSchema::Reviews(s) => s.execute(request).await,
            SubgraphSchema::Inventory(s) => s.execute(request).await,
            SubgraphSchema::Dynamic(s) => s.execute(request).await,
        }
    }

    pub async fn execute_batch(&self, batch: BatchRequest) -> BatchResponse {
        match batch {
            BatchRequest::Single(request) => BatchResponse::Single(self.execute(request).await),
            BatchRequest::Batch(requests) => {
                let mut responses = Vec::with_capacity(requests.len());
                for request in requests {
                    responses.push(self.execute(request).await);
                }
                BatchResponse::Batch(responses)
            }
        }
    }
}
