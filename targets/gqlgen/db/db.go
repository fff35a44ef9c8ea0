// Package db serves the social workload from the PostgreSQL tables gqlbench seeds
// (workload "social-db"), with the same answers as in memory, in the two modes the Node
// servers have (targets/_node/db.mjs, whose SQL this repeats):
//
//	GQLBENCH_RESOLVERS     unset: in memory, nothing here is used
//	                       naive: one SQL query per resolved field (the N+1 pattern)
//	                       dataloader: per-request DataLoaders (github.com/vikstrous/dataloadgen,
//	                       what gqlgen's documentation uses), one `= ANY($1)` query per batch
//	GQLBENCH_DATABASE_URL  e.g. postgres://gqlbench@127.0.0.1:54321/gqlbench
//	GQLBENCH_DB_POOL       the pgx pool's MaxConns (default 20, pg.Pool's max in the Node servers)
package db

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"gqlbench/gqlgen/graph/model"
	"gqlbench/gqlgen/social"
)

const (
	defaultPoolSize = 20
	// A database that accepts connections but never answers would otherwise hang
	// requests; 10 s is far above any wait for a pooled connection in a valid run.
	connectTimeout = 10 * time.Second
)

// Config is what the environment asks for; nil from ConfigFromEnv means memory.
type Config struct {
	Mode     string // "naive" or "dataloader"
	URL      string
	PoolSize int
}

// ConfigFromEnv reads GQLBENCH_RESOLVERS, GQLBENCH_DATABASE_URL and GQLBENCH_DB_POOL. A
// bad value is an error: a run that silently fell back to memory would report the wrong
// thing.
func ConfigFromEnv() (*Config, error) {
	mode := os.Getenv("GQLBENCH_RESOLVERS")
	if mode == "" {
		return nil, nil
	}
	if mode != "naive" && mode != "dataloader" {
		return nil, fmt.Errorf("invalid GQLBENCH_RESOLVERS %q: expected naive or dataloader", mode)
	}
	url := os.Getenv("GQLBENCH_DATABASE_URL")
	if url == "" {
		return nil, fmt.Errorf("GQLBENCH_RESOLVERS is set but GQLBENCH_DATABASE_URL is not")
	}
	pool := defaultPoolSize
	if v := os.Getenv("GQLBENCH_DB_POOL"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("invalid GQLBENCH_DB_POOL %q: expected a whole number above 0", v)
		}
		pool = n
	}
	return &Config{Mode: mode, URL: url, PoolSize: pool}, nil
}

// Open makes the pool (connections are opened when first needed, as pg.Pool does).
func Open(cfg *Config) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("GQLBENCH_DATABASE_URL: %w", err)
	}
	pc.MaxConns = int32(cfg.PoolSize)
	pc.ConnConfig.ConnectTimeout = connectTimeout
	pc.ConnConfig.RuntimeParams["application_name"] = "gqlbench-gqlgen"
	return pgxpool.NewWithConfig(context.Background(), pc)
}

// ---------------------------------------------------------------------------------------
// Rows to the objects social builds in memory: same fields, same id strings, the same ISO
// timestamps (timestamptz has microseconds; the stored values have whole milliseconds).

const (
	userColumns    = "u.idx, u.first_name, u.last_name, u.email, u.created_at"
	postColumns    = "p.idx, p.author_idx, p.pos, p.title, p.content, p.published_at, p.view_count"
	commentColumns = "c.idx, c.post_idx, c.pos, c.text, c.author_idx"
	maxInt         = math.MaxInt32
)

func newUser(idx int32, first, last, email string, created time.Time) *model.User {
	u := &model.User{
		Index:     int(idx),
		ID:        "bench-user-" + strconv.Itoa(int(idx)),
		Email:     email,
		FirstName: first,
		LastName:  last,
		CreatedAt: social.ISO(created),
		CreatedMs: social.MsSinceEpoch(created),
	}
	u.SetName(first + " " + last)
	return u
}

// scanUser reads userColumns, after any leading columns scanned into `lead`.
func scanUser(rows pgx.Rows, lead ...any) (*model.User, error) {
	var idx int32
	var first, last, email string
	var created time.Time
	if err := rows.Scan(append(lead, &idx, &first, &last, &email, &created)...); err != nil {
		return nil, err
	}
	return newUser(idx, first, last, email, created), nil
}

// scanPost reads postColumns and returns the post with its pos.
func scanPost(rows pgx.Rows) (*model.Post, int32, error) {
	var idx, author, pos, views int32
	var title, content string
	var published time.Time
	if err := rows.Scan(&idx, &author, &pos, &title, &content, &published, &views); err != nil {
		return nil, 0, err
	}
	return &model.Post{
		Index:       int(idx),
		ID:          "post-" + strconv.Itoa(int(idx)),
		Title:       title,
		Content:     content,
		PublishedAt: social.ISO(published),
		ViewCount:   views,
		AuthorIndex: int(author),
	}, pos, nil
}

// scanComment reads commentColumns and returns the comment with its post and pos.
func scanComment(rows pgx.Rows) (*model.Comment, int32, int32, error) {
	var idx, post, pos, author int32
	var text string
	if err := rows.Scan(&idx, &post, &pos, &text, &author); err != nil {
		return nil, 0, 0, err
	}
	return &model.Comment{ID: "comment-" + strconv.Itoa(int(idx)), Text: text, AuthorIndex: int(author)}, post, pos, nil
}

// userIdxFromID takes "bench-user-N" or "N" (canonical decimal) like the in-memory
// resolver, but for any N an integer key can hold (gqlbench can seed more users than the
// in-memory 10,000); anything else is -1, answered null without a query.
func userIdxFromID(id string) int {
	digits := id
	if len(id) > 11 && id[:11] == "bench-user-" {
		digits = id[11:]
	}
	if len(digits) == 0 || len(digits) > 10 || (len(digits) > 1 && digits[0] == '0') {
		return -1
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	if n > maxInt {
		return -1
	}
	return n
}

// posBound is a list's `limit` as an exclusive bound on `pos`: absent = all; a negative
// limit matches no row, which is "none" as in memory.
func posBound(limit *int32) int32 {
	if limit == nil {
		return maxInt
	}
	return *limit
}

func trendingBound(limit *int32) int32 {
	if limit == nil {
		return social.TrendingDefaultLimit
	}
	return *limit
}

const trendingSQL = "SELECT " + postColumns + " FROM trending t JOIN posts p ON p.idx = t.post_idx WHERE t.rank < $1 ORDER BY t.rank"

func queryPosts(ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) ([]*model.Post, error) {
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Post{}
	for rows.Next() {
		p, _, err := scanPost(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func queryUsers(ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) ([]*model.User, error) {
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
