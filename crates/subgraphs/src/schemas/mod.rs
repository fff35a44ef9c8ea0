//! The four federated subgraph schemas, one module each.

pub mod accounts;
pub mod inventory;
pub mod products;
pub mod reviews;
