// The dataloader database mode, as gqlgen's documentation builds it: an HTTP middleware
// puts fresh DataLoaders (github.com/vikstrous/dataloadgen) in each request's context, the
// resolvers only call Load, and each loader's batch function runs ONE query for the keys
// gathered (medium.graphql: user, posts, comments, authors = 4 queries). Loaders live as
// long as their request, so no answer is ever served from another request's cache.
//
// dataloadgen gathers a batch for a fixed wait after its first key (the docs' 1 ms) rather
// than until the end of an event-loop tick as JavaScript's DataLoader does: gqlgen resolves
// sibling fields on their own goroutines, which all call Load within that window.
package db

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/vikstrous/dataloadgen"

	"gqlbench/gqlgen/graph/model"
)

// batchWait is what gqlgen's dataloader documentation passes to dataloadgen.WithWait.
const batchWait = time.Millisecond

const (
	batchUsersSQL = "SELECT " + userColumns + " FROM users u WHERE u.idx = ANY($1::int[])"
	// One query per batch even when the keys carry different limits: fetch up to the
	// largest bound and cut each key's list here.
	batchPostsSQL     = "SELECT " + postColumns + " FROM posts p WHERE p.author_idx = ANY($1::int[]) AND p.pos < $2 ORDER BY p.author_idx, p.pos"
	batchCommentsSQL  = "SELECT " + commentColumns + " FROM comments c WHERE c.post_idx = ANY($1::int[]) AND c.pos < $2 ORDER BY c.post_idx, c.pos"
	batchFollowersSQL = "SELECT f.user_idx, f.pos, " + userColumns + " FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = ANY($1::int[]) AND f.pos < $2 ORDER BY f.user_idx, f.pos"
)

// listKey asks for a parent's list up to an exclusive `pos` bound (its limit).
type listKey struct{ parent, bound int32 }

// loaders are one request's DataLoaders.
type loaders struct {
	user      *dataloadgen.Loader[int32, *model.User]
	posts     *dataloadgen.Loader[listKey, []*model.Post]
	comments  *dataloadgen.Loader[listKey, []*model.Comment]
	followers *dataloadgen.Loader[listKey, []*model.User]
}

type ctxKey struct{}

// Loaders is the graph.Source of the dataloader mode.
type Loaders struct{ Pool *pgxpool.Pool }

// Middleware gives every request its own loaders.
func (l Loaders) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, l.newLoaders())))
	})
}

func loadersOf(ctx context.Context) *loaders {
	ls, ok := ctx.Value(ctxKey{}).(*loaders)
	if !ok {
		panic("no DataLoaders in the request context: the handler must be wrapped in Loaders.Middleware")
	}
	return ls
}

func (l Loaders) newLoaders() *loaders {
	wait := dataloadgen.WithWait(batchWait)
	return &loaders{
		user:      dataloadgen.NewLoader(l.fetchUsers, wait),
		posts:     dataloadgen.NewLoader(l.fetchPosts, wait),
		comments:  dataloadgen.NewLoader(l.fetchComments, wait),
		followers: dataloadgen.NewLoader(l.fetchFollowers, wait),
	}
}

func (l Loaders) fetchUsers(ctx context.Context, idxs []int32) ([]*model.User, []error) {
	users, err := queryUsers(ctx, l.Pool, batchUsersSQL, idxs)
	if err != nil {
		return nil, []error{err}
	}
	byIdx := make(map[int32]*model.User, len(users))
	for _, u := range users {
		byIdx[int32(u.Index)] = u
	}
	out := make([]*model.User, len(idxs))
	for i, idx := range idxs {
		out[i] = byIdx[idx] // nil: no such user
	}
	return out, nil
}

// batchArgs are a list batch's distinct parents and its largest bound.
func batchArgs(keys []listKey) ([]int32, int32) {
	seen := make(map[int32]bool, len(keys))
	parents := make([]int32, 0, len(keys))
	bound := keys[0].bound
	for _, k := range keys {
		if !seen[k.parent] {
			seen[k.parent] = true
			parents = append(parents, k.parent)
		}
		bound = max(bound, k.bound)
	}
	return parents, bound
}

// entry is one row of a list batch: its parent, its pos, its value.
type entry[V any] struct {
	parent, pos int32
	value       V
}

// cut gives each key the rows of its parent below its own bound, in the query's order.
func cut[V any](keys []listKey, rows []entry[V]) [][]V {
	byParent := make(map[int32][]entry[V], len(keys))
	for _, e := range rows {
		byParent[e.parent] = append(byParent[e.parent], e)
	}
	out := make([][]V, len(keys))
	for i, k := range keys {
		list := []V{}
		for _, e := range byParent[k.parent] {
			if e.pos < k.bound {
				list = append(list, e.value)
			}
		}
		out[i] = list
	}
	return out
}

func (l Loaders) fetchPosts(ctx context.Context, keys []listKey) ([][]*model.Post, []error) {
	parents, bound := batchArgs(keys)
	rows, err := l.Pool.Query(ctx, batchPostsSQL, parents, bound)
	if err != nil {
		return nil, []error{err}
	}
	defer rows.Close()
	var entries []entry[*model.Post]
	for rows.Next() {
		p, pos, err := scanPost(rows)
		if err != nil {
			return nil, []error{err}
		}
		entries = append(entries, entry[*model.Post]{int32(p.AuthorIndex), pos, p})
	}
	if err := rows.Err(); err != nil {
		return nil, []error{err}
	}
	return cut(keys, entries), nil
}

func (l Loaders) fetchComments(ctx context.Context, keys []listKey) ([][]*model.Comment, []error) {
	parents, bound := batchArgs(keys)
	rows, err := l.Pool.Query(ctx, batchCommentsSQL, parents, bound)
	if err != nil {
		return nil, []error{err}
	}
	defer rows.Close()
	var entries []entry[*model.Comment]
	for rows.Next() {
		c, post, pos, err := scanComment(rows)
		if err != nil {
			return nil, []error{err}
		}
		entries = append(entries, entry[*model.Comment]{post, pos, c})
	}
	if err := rows.Err(); err != nil {
		return nil, []error{err}
	}
	return cut(keys, entries), nil
}

func (l Loaders) fetchFollowers(ctx context.Context, keys []listKey) ([][]*model.User, []error) {
	parents, bound := batchArgs(keys)
	rows, err := l.Pool.Query(ctx, batchFollowersSQL, parents, bound)
	if err != nil {
		return nil, []error{err}
	}
	defer rows.Close()
	var entries []entry[*model.User]
	for rows.Next() {
		var parent, pos int32
		u, err := scanUser(rows, &parent, &pos)
		if err != nil {
			return nil, []error{err}
		}
		entries = append(entries, entry[*model.User]{parent, pos, u})
	}
	if err := rows.Err(); err != nil {
		return nil, []error{err}
	}
	return cut(keys, entries), nil
}

func (l Loaders) User(ctx context.Context, id string) (*model.User, error) {
	idx := userIdxFromID(id)
	if idx < 0 {
		return nil, nil
	}
	return l.UserByIndex(ctx, idx)
}

func (l Loaders) UserByIndex(ctx context.Context, idx int) (*model.User, error) {
	return loadersOf(ctx).user.Load(ctx, int32(idx))
}

// TrendingPosts: a root field runs once per request, so there is nothing to batch.
func (l Loaders) TrendingPosts(ctx context.Context, limit *int32) ([]*model.Post, error) {
	return queryPosts(ctx, l.Pool, trendingSQL, trendingBound(limit))
}

func (l Loaders) Posts(ctx context.Context, u *model.User, limit *int32) ([]*model.Post, error) {
	return loadersOf(ctx).posts.Load(ctx, listKey{int32(u.Index), posBound(limit)})
}

func (l Loaders) Followers(ctx context.Context, u *model.User, limit *int32) ([]*model.User, error) {
	return loadersOf(ctx).followers.Load(ctx, listKey{int32(u.Index), posBound(limit)})
}

func (l Loaders) Comments(ctx context.Context, p *model.Post, limit *int32) ([]*model.Comment, error) {
	return loadersOf(ctx).comments.Load(ctx, listKey{int32(p.Index), posBound(limit)})
}

// RenameUser answers null, as in the naive mode.
func (Loaders) RenameUser(context.Context, string, string) (*model.User, error) { return nil, nil }
