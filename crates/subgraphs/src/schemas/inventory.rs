//! The inventory subgraph: adds `inStock` and `shippingEstimate` to `Product`; the latter
//! requires `price` and `weight`, which the gateway fetches from products and passes in the
//! representation.

use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema};

use crate::data::{self, data};

pub type InventorySchema = Schema<Query, EmptyMutation, EmptySubscription>;

pub fn schema() -> InventorySchema {
    Schema::build(Query, EmptyMutation, EmptySubscription)
        .enable_federation()
        .finish()
}

pub struct Query;

#[Object]
impl Query {
    // `price` and `weight` come from the representation (`@requires`), never from the
    // shared data: a gateway that forgets to pass them gets a null estimate.
    #[graphql(entity)]
    async fn find_product_by_upc(
        &self,
        #[graphql(key)] upc: String,
        price: Option<i32>,
        weight: Option<i32>,
    ) -> Option<Product> {
        let index = data().product_index(&upc)?;
        Some(Product {
            product: &data().products[index],
            price,
            weight,
        })
    }
}

pub struct Product {
    product: &'static data::Product,
    price: Option<i32>,
    weight: Option<i32>,
}

#[Object(name = "Product")]
impl Product {
    async fn upc(&self) -> &str {
        &self.product.upc
    }

    #[graphql(external)]
    async fn price(&self) -> Option<i32> {
        self.price
    }

    #[graphql(external)]
    async fn weight(&self) -> Option<i32> {
        self.weight
    }

    async fn in_stock(&self) -> Option<bool> {
        Some(self.product.in_stock)
    }

    #[graphql(requires = "price weight")]
    async fn shipping_estimate(&self) -> Option<i32> {
        Some(data::shipping_estimate(self.price?, self.weight?))
    }
}
