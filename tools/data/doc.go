// Package data holds tools that work on structured data rather than files
// or processes: QueryJSON (jq queries through github.com/itchyny/gojq).
package data
