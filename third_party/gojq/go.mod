module github.com/itchyny/gojq

go 1.24.0

require github.com/itchyny/timefmt-go v0.1.9
