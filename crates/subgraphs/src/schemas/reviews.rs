//! The reviews subgraph: owns `Review`, adds `reviews` to `User` and `Product`, and provides
//! `username` on `Review.author` so a gateway need not ask accounts for it.

use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema, ID};

use crate::data::{self, data};

pub type ReviewsSchema = Schema<Query, EmptyMutation, EmptySubscription>;

pub fn schema() -> ReviewsSchema {
    Schema::build(Query, EmptyMutation, EmptySubscription)
        .enable_federation()
        .finish()
}

pub struct Query;

#[Object]
impl Query {
    #[graphql(entity)]
    async fn find_review_by_id(&self, id: ID) -> Option<Review> {
        data().review_index(&id).map(Review)
    }

    #[graphql(entity)]
    async fn find_user_by_id(&self, id: ID) -> Option<User> {
        data().user_index(&id).map(User)
    }

    #[graphql(entity)]
    async fn find_product_by_upc(&self, upc: String) -> Option<Product> {
        data().product_index(&upc).map(Product)
    }
}

fn reviews(indices: &'static [usize]) -> Option<Vec<Option<Review>>> {
    Some(indices.iter().map(|&r| Some(Review(r))).collect())
}

/// Index into the shared reviews.
pub struct Review(usize);

impl Review {
    fn get(&self) -> &'static data::Review {
        &data().reviews[self.0]
    }
}

#[Object(name = "Review")]
impl Review {
    async fn id(&self) -> ID {
        ID(self.get().id.clone())
    }

    async fn body(&self) -> Option<&str> {
        Some(&self.get().body)
    }

    #[graphql(provides = "username")]
    async fn author(&self) -> Option<User> {
        Some(User(self.get().author))
    }

    async fn product(&self) -> Option<Product> {
        Some(Product(self.get().product))
    }
}

/// Index into the shared users.
pub struct User(usize);

#[Object(name = "User")]
impl User {
    async fn id(&self) -> ID {
        ID(data().users[self.0].id.clone())
    }

    // External: owned by accounts, resolvable here only under `Review.author`.
    #[graphql(external)]
    async fn username(&self) -> Option<&str> {
        Some(&data().users[self.0].username)
    }

    async fn reviews(&self) -> Option<Vec<Option<Review>>> {
        reviews(&data().user_reviews[self.0])
    }
}

/// Index into the shared products.
pub struct Product(usize);

#[Object(name = "Product")]
impl Product {
    async fn upc(&self) -> &str {
        &data().products[self.0].upc
    }

    async fn reviews(&self) -> Option<Vec<Option<Review>>> {
        reviews(&data().product_reviews[self.0])
    }
}
