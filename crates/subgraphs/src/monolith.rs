//! A plain (non-federated) schema merging all four subgraphs' fields over the same data.
//!
//! Expected answers for the federation operations come from here, so they depend on no
//! gateway and no query planner: a gateway is right when it returns what the monolith does.

use anyhow::bail;
use async_graphql::{
    EmptyMutation, EmptySubscription, Object, Request, Schema, Value, Variables, ID,
};

use crate::data::{self, data};
use crate::schemas::products::top_products;

pub type MonolithSchema = Schema<Query, EmptyMutation, EmptySubscription>;

pub fn schema() -> MonolithSchema {
    Schema::build(Query, EmptyMutation, EmptySubscription).finish()
}

/// Runs `query` with `variables` (a JSON object, or null) and returns its `data`, fields in
/// query order; any GraphQL error is a failure, since an expected answer must be clean.
pub async fn expected(query: &str, variables: serde_json::Value) -> anyhow::Result<Value> {
    data_of(schema().execute(request(query, variables)?).await)
}

/// The request for an expected answer; variables must be a JSON object or null.
pub fn request(query: &str, variables: serde_json::Value) -> anyhow::Result<Request> {
    let mut request = Request::new(query);
    if !variables.is_null() {
        if !variables.is_object() {
            bail!("variables must be a JSON object, e.g. '{{\"first\": 3}}'");
        }
        request = request.variables(Variables::from_json(variables));
    }
    Ok(request)
}

/// The answer's `data`, or the monolith's errors.
pub fn data_of(response: async_graphql::Response) -> anyhow::Result<Value> {
    if !response.errors.is_empty() {
        let messages: Vec<String> = response.errors.iter().map(|e| e.to_string()).collect();
        bail!("the monolith refused the query: {}", messages.join("; "));
    }
    Ok(response.data)
}

pub struct Query;

#[Object]
impl Query {
    async fn me(&self) -> Option<User> {
        Some(User(0))
    }

    async fn user(&self, id: ID) -> Option<User> {
        data().user_index(&id).map(User)
    }

    async fn users(&self) -> Option<Vec<Option<User>>> {
        Some((0..data().users.len()).map(|u| Some(User(u))).collect())
    }

    async fn top_products(
        &self,
        #[graphql(default = 5)] first: Option<i32>,
    ) -> Option<Vec<Option<Product>>> {
        Some(top_products(first).map(|i| Some(Product(i))).collect())
    }
}

fn reviews(indices: &'static [usize]) -> Option<Vec<Option<Review>>> {
    Some(
        indices
            .iter()
            .map(|&r| Some(Review(&data().reviews[r])))
            .collect(),
    )
}

pub struct User(usize);

#[Object]
impl User {
    async fn id(&self) -> ID {
        ID(data().users[self.0].id.clone())
    }

    async fn name(&self) -> Option<&str> {
        Some(&data().users[self.0].name)
    }

    async fn username(&self) -> Option<&str> {
        Some(&data().users[self.0].username)
    }

    async fn birthday(&self) -> Option<i32> {
        Some(data().users[self.0].birthday)
    }

    async fn reviews(&self) -> Option<Vec<Option<Review>>> {
        reviews(&data().user_reviews[self.0])
    }
}

/// Index into the shared products.
pub struct Product(usize);

impl Product {
    fn get(&self) -> &'static data::Product {
        &data().products[self.0]
    }
}

#[Object]
impl Product {
    async fn upc(&self) -> &str {
        &self.get().upc
    }

    async fn name(&self) -> Option<&str> {
        Some(&self.get().name)
    }

    async fn price(&self) -> Option<i32> {
        Some(self.get().price)
    }

    async fn weight(&self) -> Option<i32> {
        Some(self.get().weight)
    }

    async fn in_stock(&self) -> Option<bool> {
        Some(self.get().in_stock)
    }

    async fn shipping_estimate(&self) -> Option<i32> {
        Some(data::shipping_estimate(self.get().price, self.get().weight))
    }

    async fn reviews(&self) -> Option<Vec<Option<Review>>> {
        reviews(&data().product_reviews[self.0])
    }
}

pub struct Review(&'static data::Review);

#[Object]
impl Review {
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }

    async fn body(&self) -> Option<&str> {
        Some(&self.0.body)
    }

    async fn author(&self) -> Option<User> {
        Some(User(self.0.author))
    }

    async fn product(&self) -> Option<Product> {
        Some(Product(self.0.product))
    }
}
