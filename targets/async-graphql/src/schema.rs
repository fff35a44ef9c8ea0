//! The social and authors schema, code first with async-graphql: `#[Object]` impls for
//! users and posts and `#[derive(SimpleObject)]` for the plain types (comments, authors,
//! books), with the same types, fields and arguments as the Node targets' SDL
//! (targets/_node). async-graphql names fields and arguments in camelCase by default, so
//! `view_count` is served as `viewCount`. `Subscription { ticks }` is the subscriptions
//! workload's (graphql-ws, main.rs): one ticker publishes to every subscriber through a
//! tokio broadcast channel, only when GQLBENCH_PUBLISH_RATE is set. The one mutation
//! (`renameUser`) is the response-cache scenarios'. With GQLBENCH_RESOLVERS set, users,
//! posts and comments come from PostgreSQL (db.rs) instead of memory; the computed fields
//! are the same functions.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_graphql::dataloader::DataLoader;
use async_graphql::{
    ComplexObject, Context, ID, Object, Result, Schema, SchemaBuilder, SimpleObject,
    Subscription as SubscriptionRoot,
};
use md5::{Digest, Md5};
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{Stream, StreamExt};

use crate::data::{self, Post, Store, User};
use crate::db::{self, CommentsKey, Db, FollowersKey, ListKey, Mode, PgLoader, PostsKey, UserKey};

/// The data, made once at start-up by [`init`] and read by every resolver: process-wide
/// statics rather than schema data (`Schema::data`) so that the nested resolvers need no
/// `Context` look-up to reach them, as the Node resolvers reach their module's arrays.
static STORE: OnceLock<Store> = OnceLock::new();
static AUTHORS: OnceLock<Vec<Author>> = OnceLock::new();
/// Set only in database mode.
static DB: OnceLock<Db> = OnceLock::new();

fn store() -> &'static Store {
    STORE
        .get()
        .expect("schema::init() runs before the server starts")
}

/// Builds the users, posts and authors (before the server listens, so the first request
/// pays nothing), and keeps the database pool when there is one.
pub fn init(database: Option<Db>) {
    STORE.get_or_init(Store::build);
    AUTHORS.get_or_init(|| {
        data::AUTHOR_NAMES
            .iter()
            .enumerate()
            .map(|(a, name)| Author {
                id: ID(format!("author-{}", a + 1)),
                name: (*name).to_string(),
                books: (0..3)
                    .map(|b| Book {
                        id: ID(format!("book-{}-{}", a + 1, b + 1)),
                        name: data::book_name(a, b),
                    })
                    .collect(),
            })
            .collect()
    });
    if let Some(database) = database {
        let _ = DB.set(database);
    }
}

pub type AppSchema = Schema<Query, Mutation, Subscription>;

pub fn builder() -> SchemaBuilder<Query, Mutation, Subscription> {
    Schema::build(Query, Mutation, Subscription)
}

/// The request's DataLoader (dataloader mode: main.rs adds one to every request's data).
fn loader<'a>(ctx: &Context<'a>) -> &'a DataLoader<PgLoader> {
    ctx.data_unchecked::<DataLoader<PgLoader>>()
}

/// A row of the start-up store, or one read from PostgreSQL for this request.
pub enum Row<T: 'static> {
    Store(&'static T),
    Db(Arc<T>),
}

impl<T> Deref for Row<T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Row::Store(t) => t,
            Row::Db(t) => t,
        }
    }
}

pub struct UserObject(Row<User>);
pub struct PostObject(Row<Post>);

fn db_users(users: Vec<Arc<User>>) -> Vec<UserObject> {
    users.into_iter().map(|u| UserObject(Row::Db(u))).collect()
}

fn db_posts(posts: Vec<Arc<Post>>) -> Vec<PostObject> {
    posts.into_iter().map(|p| PostObject(Row::Db(p))).collect()
}

/// A user by index: from memory, or from PostgreSQL (its own query, or the DataLoader's).
async fn user_at(ctx: &Context<'_>, index: usize) -> Result<Option<UserObject>> {
    let Some(database) = DB.get() else {
        return Ok(store().users.get(index).map(|u| UserObject(Row::Store(u))));
    };
    let idx = index as i32;
    let user = match database.mode {
        Mode::Naive => database.user(idx).await?,
        Mode::Dataloader => loader(ctx).load_one(UserKey(idx)).await?,
    };
    Ok(user.map(|u| UserObject(Row::Db(u))))
}

/// A user who must exist (an author): null in a non-null field is an error, as in Node.
async fn author_at(ctx: &Context<'_>, index: usize) -> Result<UserObject> {
    user_at(ctx, index)
        .await?
        .ok_or_else(|| format!("no user {index}").into())
}

#[Object(name = "User")]
impl UserObject {
    async fn id(&self) -> &ID {
        &self.0.id
    }

    async fn name(&self) -> String {
        // A poisoned lock only means a writer panicked mid-rename; the name is still whole.
        self.0
            .name
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn email(&self) -> &str {
        &self.0.email
    }

    async fn first_name(&self) -> &str {
        &self.0.first_name
    }

    async fn last_name(&self) -> &str {
        &self.0.last_name
    }

    async fn created_at(&self) -> &str {
        &self.0.created_at
    }

    async fn posts(&self, ctx: &Context<'_>, limit: Option<i32>) -> Result<Vec<PostObject>> {
        let Some(database) = DB.get() else {
            // A user's posts are contiguous in the store.
            let first = self.0.index * data::POSTS_PER_USER;
            let n = data::cap(data::POSTS_PER_USER, limit);
            return Ok(store().posts[first..first + n]
                .iter()
                .map(|p| PostObject(Row::Store(p)))
                .collect());
        };
        let key = ListKey {
            parent: self.0.index as i32,
            bound: db::pos_bound(limit),
        };
        Ok(db_posts(match database.mode {
            Mode::Naive => database.posts(key.parent, key.bound).await?,
            Mode::Dataloader => loader(ctx)
                .load_one(PostsKey(key))
                .await?
                .unwrap_or_default(),
        }))
    }

    async fn followers(&self, ctx: &Context<'_>, limit: Option<i32>) -> Result<Vec<UserObject>> {
        let Some(database) = DB.get() else {
            let users = &store().users;
            return Ok((0..data::cap(data::FOLLOWERS_PER_USER, limit))
                .map(|k| {
                    let u = &users[(self.0.index * 31 + k * 17 + 1) % data::USER_COUNT];
                    UserObject(Row::Store(u))
                })
                .collect());
        };
        let key = ListKey {
            parent: self.0.index as i32,
            bound: db::pos_bound(limit),
        };
        Ok(db_users(match database.mode {
            Mode::Naive => database.followers(key.parent, key.bound).await?,
            Mode::Dataloader => loader(ctx)
                .load_one(FollowersKey(key))
                .await?
                .unwrap_or_default(),
        }))
    }

    async fn display_name(&self) -> String {
        format!("{} {}.", self.0.first_name, &self.0.last_name[..1])
    }

    async fn initials(&self) -> String {
        format!("{}{}", &self.0.first_name[..1], &self.0.last_name[..1])
    }

    async fn email_domain(&self) -> &str {
        let at = self.0.email.find('@').map_or(0, |i| i + 1);
        &self.0.email[at..]
    }

    async fn account_age_days(&self) -> i32 {
        data::account_age_days(self.0.created_ms)
    }
}

#[Object(name = "Post")]
impl PostObject {
    async fn id(&self) -> &ID {
        &self.0.id
    }

    async fn title(&self) -> &str {
        &self.0.title
    }

    async fn content(&self) -> &str {
        &self.0.content
    }

    async fn published_at(&self) -> &str {
        &self.0.published_at
    }

    async fn view_count(&self) -> i32 {
        self.0.view_count
    }

    async fn author(&self, ctx: &Context<'_>) -> Result<UserObject> {
        author_at(ctx, self.0.author_index).await
    }

    // In memory, made per request from integers, as the Node targets make theirs.
    async fn comments(&self, ctx: &Context<'_>, limit: Option<i32>) -> Result<Vec<Comment>> {
        let Some(database) = DB.get() else {
            return Ok((0..data::cap(data::COMMENTS_PER_POST, limit))
                .map(|k| Comment::from(data::comment(self.0.index, k)))
                .collect());
        };
        let key = ListKey {
            parent: self.0.index as i32,
            bound: db::pos_bound(limit),
        };
        let rows = match database.mode {
            Mode::Naive => database.comments(key.parent, key.bound).await?,
            Mode::Dataloader => loader(ctx)
                .load_one(CommentsKey(key))
                .await?
                .unwrap_or_default(),
        };
        Ok(rows.into_iter().map(Comment::from).collect())
    }

    async fn slug(&self) -> String {
        data::slug(&self.0.title, self.0.index)
    }

    async fn word_count(&self) -> i32 {
        data::word_count(&self.0.content)
    }

    async fn excerpt(&self, length: Option<i32>) -> String {
        data::excerpt(&self.0.content, length)
    }

    async fn reading_time_minutes(&self) -> i32 {
        data::reading_time_minutes(&self.0.content)
    }
}

#[derive(SimpleObject)]
#[graphql(complex)]
pub struct Comment {
    id: ID,
    text: String,
    #[graphql(skip)]
    author_index: usize,
}

impl From<data::CommentRow> for Comment {
    fn from(c: data::CommentRow) -> Comment {
        Comment {
            id: c.id,
            text: c.text,
            author_index: c.author_index,
        }
    }
}

#[ComplexObject]
impl Comment {
    async fn author(&self, ctx: &Context<'_>) -> Result<UserObject> {
        author_at(ctx, self.author_index).await
    }

    async fn length(&self) -> i32 {
        self.text.len() as i32
    }

    async fn shout(&self) -> String {
        self.text.to_uppercase()
    }
}

#[derive(SimpleObject)]
pub struct Book {
    id: ID,
    name: String,
}

#[derive(SimpleObject)]
#[graphql(complex)]
pub struct Author {
    id: ID,
    name: String,
    books: Vec<Book>,
}

#[ComplexObject]
impl Author {
    // Hashed on every request: the authors workload's unit of resolver work.
    async fn md5(&self) -> String {
        format!("{:x}", Md5::digest(self.name.as_bytes()))
    }
}

pub struct Query;

#[Object]
impl Query {
    // "bench-user-N" or "N"; anything else is null, not an error. From PostgreSQL, any N
    // the table holds.
    async fn user(&self, ctx: &Context<'_>, id: ID) -> Result<Option<UserObject>> {
        let index = if DB.get().is_some() {
            db::user_idx_from_id(&id).map(|n| n as usize)
        } else {
            data::user_index_from_id(&id)
        };
        match index {
            Some(n) => user_at(ctx, n).await,
            None => Ok(None),
        }
    }

    async fn me(&self, ctx: &Context<'_>) -> Result<Option<UserObject>> {
        user_at(ctx, data::ME_USER).await
    }

    // A root field runs once per request: nothing to batch, in either database mode.
    async fn trending_posts(&self, limit: Option<i32>) -> Result<Vec<PostObject>> {
        if let Some(database) = DB.get() {
            return Ok(db_posts(database.trending(limit).await?));
        }
        let s = store();
        let limit = limit.unwrap_or(data::TRENDING_DEFAULT_LIMIT);
        Ok(s.trending[..data::cap(s.trending.len(), Some(limit))]
            .iter()
            .map(|&p| PostObject(Row::Store(&s.posts[p])))
            .collect())
    }

    async fn authors(&self) -> &'static [Author] {
        AUTHORS
            .get()
            .expect("schema::init() runs before the server starts")
    }
}

pub struct Mutation;

#[Object]
impl Mutation {
    // Renames the user in memory (null for an unknown id, like the query); only the
    // response-cache scenarios send it, never in database mode.
    async fn rename_user(&self, id: ID, name: String) -> Option<UserObject> {
        let user = &store().users[data::user_index_from_id(&id)?];
        *user.name.write().unwrap_or_else(|e| e.into_inner()) = name;
        Some(UserObject(Row::Store(user)))
    }
}

#[derive(SimpleObject, Clone, Copy)]
pub struct Tick {
    seq: i32,
    published_at: f64,
}

/// Ticks a slow subscriber may fall behind by before it skips the oldest (a gap in `seq`
/// its client sees, as a lost tick).
const TICKS_BACKLOG: usize = 1024;

static TICKS: OnceLock<broadcast::Sender<Tick>> = OnceLock::new();

fn ticks() -> &'static broadcast::Sender<Tick> {
    TICKS.get_or_init(|| broadcast::channel(TICKS_BACKLOG).0)
}

/// Publishes `{ seq, publishedAt }` to every subscriber `rate` times a second, forever.
/// publishedAt is wall-clock milliseconds since 1970 with sub-millisecond resolution, so a
/// client on the same machine can subtract it from its receive time. Ticks are scheduled
/// against the start time, not chained by a fixed delay (targets/_node/subscriptions.mjs):
/// timer lateness never lowers the rate, and ticks that fell due meanwhile go out at once.
pub async fn run_ticker(rate: f64) {
    let sender = ticks();
    let period = Duration::from_secs_f64(1.0 / rate);
    let start = tokio::time::Instant::now();
    let mut seq: u64 = 0;
    loop {
        let due = (start.elapsed().as_secs_f64() / period.as_secs_f64()).floor() as u64 + 1;
        while seq < due {
            let published_at = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
            // An error only means nobody is subscribed right now.
            let _ = sender.send(Tick {
                seq: seq as i32,
                published_at,
            });
            seq += 1;
        }
        tokio::time::sleep_until(start + period.mul_f64(seq as f64)).await;
    }
}

pub struct Subscription;

#[SubscriptionRoot]
impl Subscription {
    async fn ticks(&self) -> impl Stream<Item = Tick> + use<> {
        // A lagging subscriber's missed ticks are skipped, not an error.
        BroadcastStream::new(ticks().subscribe()).filter_map(|t| t.ok())
    }
}
