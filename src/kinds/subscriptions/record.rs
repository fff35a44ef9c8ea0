//! What a subscriptions scenario records about itself: its transport and publish rate.
use serde::{Deserialize, Serialize};

use crate::results::Key;

/// `subscriptions` of a scenario.
pub const INFO: Key<SubscriptionsInfo> = Key::new("subscriptions");

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct SubscriptionsInfo {
    /// "ws" (graphql-ws) or "sse".
    pub transport: String,
    /// Messages the server published per second (every subscriber gets each one).
    pub publish_rate: f64,
    pub connect_rate: f64,
    pub operation: String,
}
