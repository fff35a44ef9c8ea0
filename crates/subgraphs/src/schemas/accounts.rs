//! The accounts subgraph: owns `User` (id, name, username, birthday) and the user queries.

use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema, ID};

use crate::data::{self, data};

pub type AccountsSchema = Schema<Query, EmptyMutation, EmptySubscription>;

pub fn schema() -> AccountsSchema {
    Schema::build(Query, EmptyMutation, EmptySubscription)
        .enable_federation()
        .finish()
}

pub struct Query;

#[Object]
impl Query {
    // The signed-in user of the demo: always user "1".
    async fn me(&self) -> Option<User> {
        Some(User(&data().users[0]))
    }

    async fn user(&self, id: ID) -> Option<User> {
        data().user_index(&id).map(|i| User(&data().users[i]))
    }

    async fn users(&self) -> Option<Vec<Option<User>>> {
        Some(data().users.iter().map(|u| Some(User(u))).collect())
    }

    #[graphql(entity)]
    async fn find_user_by_id(&self, id: ID) -> Option<User> {
        data().user_index(&id).map(|i| User(&data().users[i]))
    }
}

pub struct User(&'static data::User);

#[Object(name = "User")]
impl User {
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }

    async fn name(&self) -> Option<&str> {
        Some(&self.0.name)
    }

    // Shareable (Federation 2) because the reviews subgraph provides it on `Review.author`.
    #[graphql(shareable)]
    async fn username(&self) -> Option<&str> {
        Some(&self.0.username)
    }

    async fn birthday(&self) -> Option<i32> {
        Some(self.0.birthday)
    }
}
