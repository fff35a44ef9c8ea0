// Package social is the social and authors workloads' data, as targets/_node/social.mjs and
// authors.mjs make it: every value a pure function of integer indices and a fixed epoch, so
// this server's answers equal the Node servers' byte for byte (`gqlbench check` compares
// them). Users and posts are built once at start-up, comments per request, as there.
package social

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gqlbench/gqlgen/graph/model"
)

const (
	UserCount            = 10_000
	PostsPerUser         = 10
	CommentsPerPost      = 5
	FollowersPerUser     = 25
	TrendingCount        = 50
	TrendingDefaultLimit = 10
	MeUser               = 1

	dayMs                = 86_400_000
	excerptDefaultLength = 80
	wordsPerMinute       = 200
)

var (
	first = []string{
		"Ada", "Alan", "Barbara", "Brian", "Claude", "Dennis", "Donald", "Edsger", "Frances",
		"Grace", "Guido", "Hedy", "Ivan", "John", "Ken", "Leslie", "Linus", "Margaret", "Niklaus",
		"Radia", "Robin", "Shafi", "Sophie", "Tim", "Tony", "Vint", "Whitfield", "Yukihiro",
	}
	last = []string{
		"Lovelace", "Turing", "Liskov", "Kernighan", "Shannon", "Ritchie", "Knuth", "Dijkstra",
		"Allen", "Hopper", "Rossum", "Lamarr", "Sutherland", "McCarthy", "Thompson", "Lamport",
		"Torvalds", "Hamilton", "Wirth", "Perlman", "Milner", "Goldwasser", "Wilson", "Berners",
		"Hoare", "Cerf", "Diffie", "Matsumoto", "Backus",
	}
	topics = []string{
		"caching", "query planning", "schema design", "federation", "pagination", "batching",
		"persisted queries", "subscriptions", "error handling", "rate limiting", "tracing",
		"code generation", "input validation", "nullability", "connection pooling", "testing",
	}
	words = strings.Split(
		"the server resolves each field of the selection set and returns a tree of values that "+
			"mirrors the query exactly while the client decides which fields it needs and the schema "+
			"describes every type that can be asked for so tools can check a document before it runs", " ")

	authorNames = []string{
		"Chinua Achebe", "Isabel Allende", "Margaret Atwood", "Jorge Luis Borges", "Italo Calvino",
		"Albert Camus", "Miguel de Cervantes", "Fyodor Dostoevsky", "George Eliot", "Gabriel Garcia Marquez",
		"Nikolai Gogol", "Kazuo Ishiguro", "Franz Kafka", "Ursula K. Le Guin", "Naguib Mahfouz",
		"Toni Morrison", "Haruki Murakami", "Orhan Pamuk", "Jose Saramago", "Virginia Woolf",
	}
	bookWords = []string{"Silent", "River", "Glass", "Northern", "Garden", "Winter", "Paper", "Harbour", "Lantern", "Orchard", "Distant", "Salt"}

	// 2020-01-01T00:00:00Z: the fixed epoch, never the clock, so dates are reproducible.
	epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	// Account age is measured to a fixed date, so answers never change.
	ageReferenceMs = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Sub(epoch).Milliseconds()
)

// Store is the data the resolvers read: built once by New, never replaced (only a user's
// name changes, through model.User.SetName).
type Store struct {
	Users    []*model.User
	Posts    []*model.Post
	Trending []*model.Post
	Authors  []*model.Author
}

// iso is JavaScript's Date.prototype.toISOString of the epoch plus ms.
func iso(ms int64) string { return ISO(epoch.Add(time.Duration(ms) * time.Millisecond)) }

// ISO formats a time as JavaScript's Date.prototype.toISOString does: UTC, always three
// fraction digits, a Z.
func ISO(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// MsSinceEpoch is a time as milliseconds after the data's epoch (model.User.CreatedMs).
func MsSinceEpoch(t time.Time) int64 { return t.Sub(epoch).Milliseconds() }

// contentPool is social.mjs's 64 post bodies: words are added while the text joined so
// far is shorter than the target length (the length is checked before each word).
func contentPool() []string {
	pool := make([]string, 64)
	for i := range pool {
		var parts []string
		joined := 0 // length of strings.Join(parts, " ")
		for w := 0; joined < 280+(i%7)*20; w++ {
			word := words[(i*5+w*3)%len(words)]
			if len(parts) > 0 {
				joined++
			}
			joined += len(word)
			parts = append(parts, word)
		}
		pool[i] = "Notes on " + topics[i%len(topics)] + " #" + strconv.Itoa(i) + ": " + strings.Join(parts, " ") + "."
	}
	return pool
}

// New builds every user, post, the trending list and the authors.
func New() *Store {
	s := &Store{
		Users: make([]*model.User, UserCount),
		Posts: make([]*model.Post, UserCount*PostsPerUser),
	}
	for u := range s.Users {
		f := first[u%len(first)]
		l := last[(u*7+3)%len(last)]
		created := int64(u) * 7_261_000 // one user every ~2 hours from the epoch
		user := &model.User{
			Index:     u,
			ID:        "bench-user-" + strconv.Itoa(u),
			Email:     strings.ToLower(f) + "." + strings.ToLower(l) + "." + strconv.Itoa(u) + "@bench.example.com",
			FirstName: f,
			LastName:  l,
			CreatedAt: iso(created),
			CreatedMs: created,
		}
		user.SetName(f + " " + l)
		s.Users[u] = user
	}
	pool := contentPool()
	for p := range s.Posts {
		author := p / PostsPerUser
		s.Posts[p] = &model.Post{
			Index:   p,
			ID:      "post-" + strconv.Itoa(p),
			Title:   topics[(p*3)%len(topics)] + " in practice, part " + strconv.Itoa(p%PostsPerUser+1),
			Content: pool[(p*13)%len(pool)],
			// posts appear after their author's creation date, spaced by hours
			PublishedAt: iso(int64(author)*7_261_000 + int64(p%PostsPerUser+1)*3_600_000),
			ViewCount:   int32((p * 7919) % 100_000),
			AuthorIndex: author,
		}
	}
	s.Trending = make([]*model.Post, TrendingCount)
	for k := range s.Trending {
		s.Trending[k] = s.Posts[(k*7_919+4_243)%len(s.Posts)]
	}
	s.Authors = make([]*model.Author, len(authorNames))
	for a, name := range authorNames {
		books := make([]*model.Book, 3)
		for b := range books {
			books[b] = &model.Book{
				ID:   "book-" + strconv.Itoa(a+1) + "-" + strconv.Itoa(b+1),
				Name: "The " + bookWords[(a+b*5)%len(bookWords)] + " " + bookWords[(a*3+b+7)%len(bookWords)],
			}
		}
		s.Authors[a] = &model.Author{ID: "author-" + strconv.Itoa(a+1), Name: name, Books: books}
	}
	return s
}

// Comment is the k-th comment of a post, made afresh on every call.
func Comment(postIndex, k int) *model.Comment {
	n := postIndex*CommentsPerPost + k
	return &model.Comment{
		ID:          "comment-" + strconv.Itoa(n),
		Text:        "Comment " + strconv.Itoa(k+1) + " on post-" + strconv.Itoa(postIndex) + ": " + topics[n%len(topics)] + " is worth it.",
		AuthorIndex: (postIndex*7 + k*1_013) % UserCount,
	}
}

// Cap is every list's `limit`: absent (nil) = all; negative = none.
func Cap(total int, limit *int32) int {
	if limit == nil {
		return total
	}
	if *limit < 0 {
		return 0
	}
	return min(total, int(*limit))
}

// UserIndexFromID accepts "bench-user-N" and "N" (canonical decimal: digits only, no
// leading zero, at most 5 digits) for 0 <= N < UserCount; anything else is -1 (the query
// answers null, not an error).
func UserIndexFromID(id string) int {
	digits := strings.TrimPrefix(id, "bench-user-")
	if len(digits) == 0 || len(digits) > 5 || (len(digits) > 1 && digits[0] == '0') {
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
	if n >= UserCount {
		return -1
	}
	return n
}

// The computed fields: pure functions of the parent object, as social.mjs's
// computedResolvers. All the data is ASCII, so byte lengths and indices equal the
// JavaScript string's.

func DisplayName(u *model.User) string { return u.FirstName + " " + u.LastName[:1] + "." }

func Initials(u *model.User) string { return u.FirstName[:1] + u.LastName[:1] }

func EmailDomain(u *model.User) string { return u.Email[strings.IndexByte(u.Email, '@')+1:] }

func AccountAgeDays(u *model.User) int32 {
	// Floor division; accounts created after the reference date are 0 days old.
	return int32(max(0, (ageReferenceMs-u.CreatedMs)/dayMs))
}

// Slug is the title lower-cased, every run of characters other than a-z and 0-9 replaced
// by one '-', a leading and a trailing '-' dropped, then "-<index>": a run is written only
// when a letter or digit follows it and one came before, which drops both ends at once.
func Slug(p *model.Post) string {
	var b strings.Builder
	b.Grow(len(p.Title) + 8)
	dash := false
	for _, r := range strings.ToLower(p.Title) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	b.WriteByte('-')
	b.WriteString(strconv.Itoa(p.Index))
	return b.String()
}

// WordCount counts the non-empty pieces between single spaces.
func WordCount(text string) int32 {
	var n int32
	for w := range strings.SplitSeq(text, " ") {
		if w != "" {
			n++
		}
	}
	return n
}

// Excerpt is the first `length` characters (default 80, negative = 0), trailing whitespace
// trimmed, then "..."; the whole content when it is not longer.
func Excerpt(p *model.Post, length *int32) string {
	n := excerptDefaultLength
	if length != nil {
		n = max(0, int(*length))
	}
	if len(p.Content) <= n {
		return p.Content
	}
	if n == 0 {
		return ""
	}
	return strings.TrimRightFunc(p.Content[:n], unicode.IsSpace) + "..."
}

func ReadingTimeMinutes(p *model.Post) int32 {
	return int32(max(1, math.Ceil(float64(WordCount(p.Content))/wordsPerMinute)))
}

// MD5 is the authors workload's unit of resolver work, hashed on every request.
func MD5(text string) string {
	sum := md5.Sum([]byte(text))
	return hex.EncodeToString(sum[:])
}

// Memory is the in-memory data source of the resolvers (graph.Source), the default;
// database modes read the same fields from PostgreSQL instead (package db).
type Memory struct{ S *Store }

func (m Memory) User(_ context.Context, id string) (*model.User, error) {
	n := UserIndexFromID(id)
	if n < 0 {
		return nil, nil
	}
	return m.S.Users[n], nil
}

func (m Memory) UserByIndex(_ context.Context, idx int) (*model.User, error) {
	return m.S.Users[idx], nil
}

// TrendingPosts: ten when the argument is absent or null; a negative limit means none.
func (m Memory) TrendingPosts(_ context.Context, limit *int32) ([]*model.Post, error) {
	if limit == nil {
		return m.S.Trending[:TrendingDefaultLimit], nil
	}
	return m.S.Trending[:Cap(len(m.S.Trending), limit)], nil
}

func (m Memory) Posts(_ context.Context, u *model.User, limit *int32) ([]*model.Post, error) {
	first := u.Index * PostsPerUser
	return m.S.Posts[first : first+Cap(PostsPerUser, limit)], nil
}

func (m Memory) Followers(_ context.Context, u *model.User, limit *int32) ([]*model.User, error) {
	out := make([]*model.User, Cap(FollowersPerUser, limit))
	for k := range out {
		out[k] = m.S.Users[(u.Index*31+k*17+1)%UserCount]
	}
	return out, nil
}

func (m Memory) Comments(_ context.Context, p *model.Post, limit *int32) ([]*model.Comment, error) {
	out := make([]*model.Comment, Cap(CommentsPerPost, limit))
	for k := range out {
		out[k] = Comment(p.Index, k)
	}
	return out, nil
}

// RenameUser renames a user in memory (nil for an unknown id, as the query answers); only
// the response-cache staleness check writes, and it undoes its change.
func (m Memory) RenameUser(_ context.Context, id, name string) (*model.User, error) {
	n := UserIndexFromID(id)
	if n < 0 {
		return nil, nil
	}
	m.S.Users[n].SetName(name)
	return m.S.Users[n], nil
}
