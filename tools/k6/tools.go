//go:build tools

// Package tools pins the k6 load tester that gqlbench's k6 export and import are tested
// with; `go build go.k6.io/k6` in this folder builds exactly the version in go.mod/go.sum.
package tools

import _ "go.k6.io/k6"
