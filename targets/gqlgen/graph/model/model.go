// Package model holds the Go types gqlgen binds the schema's object types to (autobind in
// gqlgen.yml): the rows the social and authors workloads keep in memory, shaped as
// targets/_node/social.mjs and authors.mjs shape theirs. A schema field with no struct
// field or method of the same name here (relations, computed fields) is a resolver in
// graph/schema.resolvers.go.
package model

import "sync/atomic"

// User is one of the 10,000 users built at start-up. Its name is the one value a request
// can change (renameUser), so it is read and written atomically: requests run on many
// goroutines, unlike the Node servers' single thread.
type User struct {
	Index     int
	ID        string
	Email     string
	FirstName string
	LastName  string
	CreatedAt string
	// CreatedMs is CreatedAt as milliseconds after the data's epoch, for accountAgeDays.
	CreatedMs int64

	name atomic.Pointer[string]
}

// Name is the user's current name (gqlgen binds the `name` field to this method).
func (u *User) Name() string { return *u.name.Load() }

// SetName replaces the user's name for every later request.
func (u *User) SetName(name string) { u.name.Store(&name) }

// Post is one of the 100,000 posts built at start-up (10 per user).
type Post struct {
	Index       int
	ID          string
	Title       string
	Content     string
	PublishedAt string
	ViewCount   int32
	AuthorIndex int
}

// Comment is made per request from its post's index and position, as the Node servers
// make theirs.
type Comment struct {
	ID          string
	Text        string
	AuthorIndex int
}

// Author is one of the authors workload's 20 authors.
type Author struct {
	ID    string
	Name  string
	Books []*Book
}

// Book is one of an author's three books.
type Book struct {
	ID   string
	Name string
}
