module github.com/sergi/go-diff

go 1.21
