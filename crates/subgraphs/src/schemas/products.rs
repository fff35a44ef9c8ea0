//! The products subgraph: owns `Product` (upc, name, price, weight) and `topProducts`.

use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema};

use crate::data::{self, data};

pub type ProductsSchema = Schema<Query, EmptyMutation, EmptySubscription>;

pub fn schema() -> ProductsSchema {
    Schema::build(Query, EmptyMutation, EmptySubscription)
        .enable_federation()
        .finish()
}

pub struct Query;

#[Object]
impl Query {
    async fn top_products(
        &self,
        #[graphql(default = 5)] first: Option<i32>,
    ) -> Option<Vec<Option<Product>>> {
        Some(
            top_products(first)
                .map(|i| Some(Product(&data().products[i])))
                .collect(),
        )
    }

    #[graphql(entity)]
    async fn find_product_by_upc(&self, upc: String) -> Option<Product> {
        data()
            .product_index(&upc)
            .map(|i| Product(&data().products[i]))
    }
}

/// Indices of the first `first` products (all of them when null, none when negative).
pub fn top_products(first: Option<i32>) -> std::ops::Range<usize> {
    let len = data().products.len();
    let n = first.map_or(len, |n| usize::try_from(n).unwrap_or(0));
    0..n.min(len)
}

pub struct Product(&'static data::Product);

#[Object(name = "Product")]
impl Product {
    async fn upc(&self) -> &str {
        &self.0.upc
    }

    async fn name(&self) -> Option<&str> {
        Some(&self.0.name)
    }

    async fn price(&self) -> Option<i32> {
        Some(self.0.price)
    }

    async fn weight(&self) -> Option<i32> {
        Some(self.0.weight)
    }
}
