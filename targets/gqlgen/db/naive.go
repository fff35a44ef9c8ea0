// The naive database mode: every resolver runs its own query as soon as it is called, as
// code written without batching does (medium.graphql: 1 user + 1 posts + 10 comments + 50
// authors = 62 queries).
package db

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"gqlbench/gqlgen/graph/model"
)

const (
	naiveUserSQL      = "SELECT " + userColumns + " FROM users u WHERE u.idx = $1"
	naivePostsSQL     = "SELECT " + postColumns + " FROM posts p WHERE p.author_idx = $1 AND p.pos < $2 ORDER BY p.pos"
	naiveCommentsSQL  = "SELECT " + commentColumns + " FROM comments c WHERE c.post_idx = $1 AND c.pos < $2 ORDER BY c.pos"
	naiveFollowersSQL = "SELECT " + userColumns + " FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = $1 AND f.pos < $2 ORDER BY f.pos"
)

// Naive is the graph.Source of the naive mode.
type Naive struct{ Pool *pgxpool.Pool }

func (n Naive) User(ctx context.Context, id string) (*model.User, error) {
	idx := userIdxFromID(id)
	if idx < 0 {
		return nil, nil
	}
	return n.UserByIndex(ctx, idx)
}

func (n Naive) UserByIndex(ctx context.Context, idx int) (*model.User, error) {
	users, err := queryUsers(ctx, n.Pool, naiveUserSQL, int32(idx))
	if err != nil || len(users) == 0 {
		return nil, err
	}
	return users[0], nil
}

func (n Naive) TrendingPosts(ctx context.Context, limit *int32) ([]*model.Post, error) {
	return queryPosts(ctx, n.Pool, trendingSQL, trendingBound(limit))
}

func (n Naive) Posts(ctx context.Context, u *model.User, limit *int32) ([]*model.Post, error) {
	return queryPosts(ctx, n.Pool, naivePostsSQL, int32(u.Index), posBound(limit))
}

func (n Naive) Followers(ctx context.Context, u *model.User, limit *int32) ([]*model.User, error) {
	return queryUsers(ctx, n.Pool, naiveFollowersSQL, int32(u.Index), posBound(limit))
}

func (n Naive) Comments(ctx context.Context, p *model.Post, limit *int32) ([]*model.Comment, error) {
	rows, err := n.Pool.Query(ctx, naiveCommentsSQL, int32(p.Index), posBound(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Comment{}
	for rows.Next() {
		c, _, _, err := scanComment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RenameUser answers null: the database modes serve no write (the Node servers' database
// resolvers have no Mutation resolver either).
func (Naive) RenameUser(context.Context, string, string) (*model.User, error) { return nil, nil }
