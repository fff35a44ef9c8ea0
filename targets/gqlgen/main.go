// gqlgen on net/http: the Go server of the servers suite, serving the social and authors
// workloads (graph/schema.graphqls, data in social/) at POST /graphql on HOST:PORT
// (127.0.0.1:4000 by default).
//
// The handler is gqlgen's handler.New with what handler.NewDefaultServer (deprecated: "only
// suitable for use in examples") used to add that a production JSON API keeps: the POST
// transport, the LRU cache of 1000 parsed and validated documents, and introspection. Left
// out: the websocket, OPTIONS and multipart-form transports, which no scenario of this
// target's workloads uses, and the GET transport and automatic persisted queries, which
// only the APQ scenarios use: with GQLBENCH_APQ=1 (what gqlbench gives a target in those)
// both are added as NewDefaultServer added them (APQ hashes in an LRU of 100). Added: the
// depth limit (depth.go). With GQLBENCH_RESOLVERS=naive|dataloader the social fields are
// read from PostgreSQL (package db) instead of memory. GOMAXPROCS is left at the runtime's
// default (the CPUs the process may run on: gqlbench pins a server to one).
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/vektah/gqlparser/v2/ast"

	"gqlbench/gqlgen/db"
	"gqlbench/gqlgen/graph"
	"gqlbench/gqlgen/social"
)

const (
	graphqlPath = "/graphql"
	depthLimit  = 10
	// The Node servers' body limit (server-common.mjs): far above any operation sent.
	maxBodyBytes = 1 << 20
	// gqlbench signals the process group and kills what is left after its grace period:
	// in-flight requests get this long, then every connection is closed.
	shutdownGrace = 500 * time.Millisecond
)

func main() {
	port := portFromEnv()
	host := os.Getenv("HOST")
	if host == "" {
		host = "127.0.0.1"
	}

	// The data is built before listening, so the first request finds it ready.
	data := social.New()
	resolver := &graph.Resolver{Source: social.Memory{S: data}, Data: data}
	// social-db: the social fields from PostgreSQL (db.ConfigFromEnv), naive or batched.
	dbConfig, err := db.ConfigFromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gqlgen: %v\n", err)
		os.Exit(2)
	}
	var pool *pgxpool.Pool
	var withLoaders func(http.Handler) http.Handler
	if dbConfig != nil {
		if pool, err = db.Open(dbConfig); err != nil {
			fmt.Fprintf(os.Stderr, "gqlgen: %v\n", err)
			os.Exit(2)
		}
		defer pool.Close()
		if dbConfig.Mode == "naive" {
			resolver.Source = db.Naive{Pool: pool}
		} else {
			loaders := db.Loaders{Pool: pool}
			resolver.Source = loaders
			withLoaders = loaders.Middleware
		}
		fmt.Printf("gqlgen: %s resolvers on PostgreSQL (pool max %d)\n", dbConfig.Mode, dbConfig.PoolSize)
	}

	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: resolver}))
	srv.AddTransport(transport.POST{})
	apq := os.Getenv("GQLBENCH_APQ") == "1"
	if apq {
		// Apollo Client's useGETForHashedQueries sends the hash-only form as a GET.
		srv.AddTransport(transport.GET{})
	}
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	if apq {
		srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	}
	srv.SetValidationRulesFn(depthLimitRules(depthLimit))

	var h http.Handler = srv
	if withLoaders != nil {
		h = withLoaders(h) // fresh DataLoaders in every request's context
	}
	mux := http.NewServeMux()
	mux.Handle(graphqlPath, http.MaxBytesHandler(h, maxBodyBytes))

	server := &http.Server{
		Handler: mux,
		// Slow or idle clients cannot hold a connection's goroutine forever.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "gqlgen: cannot listen on %s:%d: %v\n", host, port, err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- server.Serve(ln) }()

	fmt.Printf("ready: gqlgen %s listening on http://%s%s (%s, GOMAXPROCS %d, APQ %t, pid %d)\n",
		gqlgenVersion(), ln.Addr(), graphqlPath, runtime.Version(), runtime.GOMAXPROCS(0), apq, os.Getpid())

	select {
	case err := <-served:
		fmt.Fprintf(os.Stderr, "gqlgen: server error: %v\n", err)
		os.Exit(1)
	case <-ctx.Done():
	}
	stop() // a second signal now ends the process at once (the default action)

	// Stop accepting, let in-flight requests finish within the grace period, then close
	// whatever is still open (keep-alive connections mid-request).
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(os.Stderr, "gqlgen: shutdown: %v\n", err)
	}
	_ = server.Close()
}

// portFromEnv reads PORT (4000 when unset); a bad value exits 2, as the Node servers do.
func portFromEnv() int {
	v := os.Getenv("PORT")
	if v == "" {
		return 4000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		fmt.Fprintf(os.Stderr, "invalid PORT %q\n", v)
		os.Exit(2)
	}
	return n
}

// gqlgenVersion is the gqlgen module version the binary was built with (from its build
// information), so the ready line names what actually runs.
func gqlgenVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/99designs/gqlgen" {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}
