//! Answers `_service { sdl }` with the SDL of the chosen Federation flavour.
//!
//! async-graphql answers `_service` itself, always with Federation 2 SDL, and offers no hook
//! to change it; Mercurius' gateway needs Federation 1. So queries asking for `_service` are
//! routed (see `executor`) to this tiny non-federated schema whose only field is `_service`,
//! serving the same text `gqlbench-subgraphs sdl` prints.

use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema, SimpleObject};

pub type ServiceSchema = Schema<Query, EmptyMutation, EmptySubscription>;

pub fn schema(sdl: String) -> ServiceSchema {
    Schema::build(Query { sdl }, EmptyMutation, EmptySubscription).finish()
}

pub struct Query {
    sdl: String,
}

#[derive(SimpleObject)]
#[graphql(name = "_Service")]
pub struct Service {
    sdl: Option<String>,
}

#[Object]
impl Query {
    #[graphql(name = "_service")]
    async fn service(&self) -> Service {
        Service {
            sdl: Some(self.sdl.clone()),
        }
    }
}
