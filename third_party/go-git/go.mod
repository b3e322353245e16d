module github.com/go-git/go-git/v5

go 1.26.0
