// The root resolver gqlgen's generated code calls into (this file is written by hand and
// never regenerated): where the resolvers in schema.resolvers.go read the social data
// from (memory, or PostgreSQL naive or through DataLoaders), and the authors.
package graph

import (
	"context"

	"gqlbench/gqlgen/graph/model"
	"gqlbench/gqlgen/social"
)

// Resolver is the root of the resolvers in schema.resolvers.go.
type Resolver struct {
	// Source answers the social workload's lookups and lists.
	Source Source
	// Data holds the authors (always in memory, as in the Node servers' database mode).
	Data *social.Store
}

// Source is where the social fields come from: *social.Store (in memory, the default) or a
// PostgreSQL mode of package db (GQLBENCH_RESOLVERS=naive|dataloader). Computed fields do
// not go through it: they are pure functions of the parent object.
type Source interface {
	// User takes "bench-user-N" or "N"; nil (no error) for an id that names no user.
	User(ctx context.Context, id string) (*model.User, error)
	UserByIndex(ctx context.Context, idx int) (*model.User, error)
	TrendingPosts(ctx context.Context, limit *int32) ([]*model.Post, error)
	Posts(ctx context.Context, u *model.User, limit *int32) ([]*model.Post, error)
	Followers(ctx context.Context, u *model.User, limit *int32) ([]*model.User, error)
	Comments(ctx context.Context, p *model.Post, limit *int32) ([]*model.Comment, error)
	// RenameUser is the one write; a database mode answers null, as the Node servers'
	// database resolvers (which have no Mutation resolver) do.
	RenameUser(ctx context.Context, id, name string) (*model.User, error)
}
