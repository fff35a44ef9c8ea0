//! The demo's data set: users, products and reviews derived from integers only.
//!
//! Every subgraph and the monolith read the same precomputed tables, so a gateway's answer
//! can be checked against the monolith's, and resolvers only index slices (no per-request
//! work beyond building the response).

use std::sync::LazyLock;

/// Number of users ("1" ..= "10").
pub const USER_COUNT: usize = 10;
/// Number of products (upc "1" ..= "9").
pub const PRODUCT_COUNT: usize = 9;

#[derive(Debug)]
pub struct User {
    pub id: String,
    pub name: String,
    pub username: String,
    pub birthday: i32,
}

#[derive(Debug)]
pub struct Product {
    pub upc: String,
    pub name: String,
    pub price: i32,
    pub weight: i32,
    pub in_stock: bool,
}

#[derive(Debug)]
pub struct Review {
    pub id: String,
    pub body: String,
    /// Index into [`Data::users`].
    pub author: usize,
    /// Index into [`Data::products`].
    pub product: usize,
}

#[derive(Debug)]
pub struct Data {
    pub users: Vec<User>,
    pub products: Vec<Product>,
    pub reviews: Vec<Review>,
    /// Review indices per user index, in review order.
    pub user_reviews: Vec<Vec<usize>>,
    /// Review indices per product index, in review order.
    pub product_reviews: Vec<Vec<usize>>,
}

const FIRST: [&str; 10] = [
    "Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Radia", "Ken",
];
const LAST: [&str; 10] = [
    "Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Perlman",
    "Thompson",
];
const PRODUCT_NAMES: [&str; PRODUCT_COUNT] = [
    "Table", "Couch", "Chair", "Lamp", "Desk", "Shelf", "Rug", "Bed", "Stool",
];
const OPINIONS: [&str; 5] = [
    "Love it",
    "Too expensive",
    "Could be better",
    "Exactly as described",
    "Would buy again",
];

impl Data {
    fn build() -> Data {
        let users: Vec<User> = (1..=USER_COUNT)
            .map(|i| {
                let first = FIRST[(i - 1) % FIRST.len()];
                let last = LAST[(i * 3) % LAST.len()];
                User {
                    id: i.to_string(),
                    name: format!("{first} {last}"),
                    username: format!("@{}{}", first.to_lowercase(), i),
                    // Days since 1970: spread over the 1980s and 1990s.
                    birthday: 3653 + (i as i32 * 1777) % 7300,
                }
            })
            .collect();
        let products: Vec<Product> = (1..=PRODUCT_COUNT)
            .map(|i| Product {
                upc: i.to_string(),
                name: PRODUCT_NAMES[i - 1].to_string(),
                // Some prices are above 1000 so both branches of shippingEstimate show up.
                price: (i as i32 * 317) % 1500 + 10,
                weight: 10 + (i as i32 * 73) % 190,
                in_stock: i % 3 != 0,
            })
            .collect();
        let mut reviews = Vec::new();
        for (u, user) in users.iter().enumerate() {
            // Two or three reviews per user.
            let count = 2 + (u + 1) % 2;
            for k in 0..count {
                let product = ((u + 1) * 3 + k * 5) % PRODUCT_COUNT;
                let id = reviews.len() + 1;
                reviews.push(Review {
                    id: id.to_string(),
                    body: format!(
                        "{} ({} on the {}, review {id})",
                        OPINIONS[id % OPINIONS.len()],
                        user.username,
                        products[product].name.to_lowercase()
                    ),
                    author: u,
                    product,
                });
            }
        }
        let mut user_reviews = vec![Vec::new(); users.len()];
        let mut product_reviews = vec![Vec::new(); products.len()];
        for (r, review) in reviews.iter().enumerate() {
            user_reviews[review.author].push(r);
            product_reviews[review.product].push(r);
        }
        Data {
            users,
            products,
            reviews,
            user_reviews,
            product_reviews,
        }
    }

    /// The user with this id, if any ("1" is the first).
    pub fn user_index(&self, id: &str) -> Option<usize> {
        index_of(id, self.users.len())
    }

    pub fn product_index(&self, upc: &str) -> Option<usize> {
        index_of(upc, self.products.len())
    }

    pub fn review_index(&self, id: &str) -> Option<usize> {
        index_of(id, self.reviews.len())
    }
}

/// Ids are "1"-based decimal strings; anything else (including "01") is unknown.
fn index_of(id: &str, len: usize) -> Option<usize> {
    let n: usize = id.parse().ok()?;
    (n >= 1 && n <= len && n.to_string() == id).then(|| n - 1)
}

/// Shipping estimate of the classic demo: free above 1000, else half the weight.
pub fn shipping_estimate(price: i32, weight: i32) -> i32 {
    if price > 1000 {
        0
    } else {
        weight / 2
    }
}

static DATA: LazyLock<Data> = LazyLock::new(Data::build);

/// The shared, immutable data set.
pub fn data() -> &'static Data {
    &DATA
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_user_has_two_or_three_reviews() {
        let d = data();
        assert_eq!(d.users.len(), USER_COUNT);
        assert!(d.user_reviews.iter().all(|r| (2..=3).contains(&r.len())));
        assert_eq!(d.reviews.len(), 25);
    }

    #[test]
    fn every_product_is_reviewed_and_prices_cover_both_shipping_branches() {
        let d = data();
        assert!(d.product_reviews.iter().all(|r| !r.is_empty()));
        assert!(d.products.iter().any(|p| p.price > 1000));
        assert!(d.products.iter().any(|p| p.price <= 1000));
    }

    #[test]
    fn ids_round_trip_and_odd_ids_are_unknown() {
        let d = data();
        assert_eq!(d.user_index("1"), Some(0));
        assert_eq!(d.user_index("10"), Some(9));
        assert_eq!(d.user_index("11"), None);
        assert_eq!(d.user_index("0"), None);
        assert_eq!(d.user_index("01"), None);
        assert_eq!(d.product_index("x"), None);
    }
}
