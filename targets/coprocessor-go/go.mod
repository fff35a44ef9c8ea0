module gqlbench/coprocessor-go

go 1.26

require (
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/google/uuid v1.6.0
)
