// Apollo Router external coprocessor (protocol version 1) for gqlbench's extensibility
// suite: the contract is targets/_coprocessors/CONTRACT.md. Standard net/http (a goroutine
// per connection, GOMAXPROCS at its default), golang-jwt v5 for HS256, google/uuid for the
// UUID v4s (crypto/rand). Logs nothing per request.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// The answer's body when a token is refused: a JSON string holding a GraphQL response.
const rejectBody = `{"errors":[{"message":"invalid token"}]}`

var (
	secret = []byte(envOr("GQLBENCH_JWT_SECRET", "apollo"))
	parser = jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}))

	served struct{ static, guid, client, rejected atomic.Uint64 }

	guidNames = func() (n [10]string) {
		for i := range n {
			n[i] = fmt.Sprintf("guid-%d", i+1)
		}
		return
	}()

	breakControl    = json.RawMessage(`{"break":401}`)
	continueControl = json.RawMessage(`"continue"`)
	breakBody       = func() json.RawMessage { b, _ := json.Marshal(rejectBody); return b }()
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// payload is the router's JSON object; fields other than the ones changed are passed
// back as they came.
type payload map[string]json.RawMessage

// read parses the request body as a JSON object and its `headers` (lower-case name ->
// values); false (after answering 400) when it is not one.
func read(w http.ResponseWriter, r *http.Request) (payload, map[string][]string, bool) {
	raw, err := io.ReadAll(r.Body)
	var p payload
	if err == nil {
		err = json.Unmarshal(raw, &p)
	}
	headers := map[string][]string{}
	if err == nil && p == nil {
		err = fmt.Errorf("not an object")
	}
	if err == nil {
		if h, ok := p["headers"]; ok && string(h) != "null" {
			err = json.Unmarshal(h, &headers)
			if headers == nil {
				headers = map[string][]string{}
			}
		}
	}
	if err != nil {
		http.Error(w, "payload is not a JSON object", http.StatusBadRequest)
		return nil, nil, false
	}
	// Hive Router's payloads carry no `control` but need one back; Apollo's carry it.
	if _, ok := p["control"]; !ok {
		p["control"] = continueControl
	}
	return p, headers, true
}

func write(w http.ResponseWriter, p payload, headers map[string][]string) {
	h, err := json.Marshal(headers)
	if err == nil {
		p["headers"] = h
		var out []byte
		if out, err = json.Marshal(p); err == nil {
			w.Header().Set("Content-Type", "application/json")
			w.Write(out)
			return
		}
	}
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// POST /static-subgraph (SubgraphRequest): adds `source: coprocessor`.
func staticSubgraph(w http.ResponseWriter, r *http.Request) {
	p, headers, ok := read(w, r)
	if !ok {
		return
	}
	headers["source"] = []string{"coprocessor"}
	served.static.Add(1)
	write(w, p, headers)
}

// POST /guid-response (RouterResponse): sets guid-1 .. guid-10 to fresh UUID v4s.
func guidResponse(w http.ResponseWriter, r *http.Request) {
	p, headers, ok := read(w, r)
	if !ok {
		return
	}
	for _, name := range guidNames {
		headers[name] = []string{uuid.NewString()}
	}
	served.guid.Add(1)
	write(w, p, headers)
}

// claims verifies `authentication: Bearer <HS256 JWT>` and returns its client name and
// version; ok is false for a missing, malformed or badly signed token or missing claims.
func claims(headers map[string][]string) (name, version string, ok bool) {
	values := headers["authentication"]
	if len(values) == 0 {
		return
	}
	raw, found := strings.CutPrefix(values[0], "Bearer ")
	if !found {
		return
	}
	tok, err := parser.Parse(raw, func(*jwt.Token) (any, error) { return secret, nil })
	if err != nil || !tok.Valid {
		return
	}
	c, isMap := tok.Claims.(jwt.MapClaims)
	if !isMap {
		return
	}
	name, ok1 := c["client_name"].(string)
	version, ok2 := c["client_version"].(string)
	return name, version, ok1 && ok2
}

// POST /client-awareness (RouterRequest): client name and version from the token's
// claims, or a 401 break.
func clientAwareness(w http.ResponseWriter, r *http.Request) {
	p, headers, ok := read(w, r)
	if !ok {
		return
	}
	served.client.Add(1)
	if name, version, good := claims(headers); good {
		headers["apollographql-client-name"] = []string{name}
		headers["apollographql-client-version"] = []string{version}
	} else {
		served.rejected.Add(1)
		p["control"] = breakControl
		p["body"] = breakBody
	}
	write(w, p, headers)
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		log.Fatal("PORT is not set")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"static-subgraph":%d,"guid-response":%d,"client-awareness":%d,"rejected":%d}`,
			served.static.Load(), served.guid.Load(), served.client.Load(), served.rejected.Load())
	})
	mux.HandleFunc("POST /static-subgraph", staticSubgraph)
	mux.HandleFunc("POST /guid-response", guidResponse)
	mux.HandleFunc("POST /client-awareness", clientAwareness)
	// Any other path: the mux answers 404.

	addr := net.JoinHostPort(envOr("HOST", "127.0.0.1"), port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("coprocessor-go listening on http://%s", addr)
	log.Fatal(http.Serve(ln, mux))
}
