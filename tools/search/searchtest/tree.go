// Package searchtest generates source trees for the tests and benchmarks
// of the search tools: folders of Go, TypeScript, Python and Markdown files
// with known words in them, ignore files, ignored folders, hidden files, a
// binary file, CRLF line endings and an over-long line. Trees are the same
// for the same size, and every file has its own modification time.
package searchtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// words are the known words of generated files; tests and benchmarks
// search them.
var words = []string{
	"alpha", "beta", "gamma", "delta", "server", "client", "request", "response",
	"handler", "config", "buffer", "stream", "token", "parser", "cache", "worker",
	"TODO", "FIXME", "ErrorHandler", "NewServer", "context", "deadline", "retry",
}

var exts = []string{".go", ".ts", ".py", ".md", ".txt", ".js"}

// Generate writes a tree of about files files under dir and returns the
// paths written, relative to dir.
func Generate(dir string, files int) ([]string, error) {
	rng := rand.New(rand.NewPCG(uint64(files), 7))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var written []string
	write := func(rel, content string) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
		mt := base.Add(time.Duration(len(written)) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	}
	fixed := map[string]string{
		".gitignore":             "build/\n*.log\n!keep.log\n",
		"pkg/.gitignore":         "generated_*.go\n",
		".ignore":                "scratch/\n",
		"keep.log":               "server started\nTODO rotate\n",
		"debug.log":              "server crashed\nTODO ignored\n",
		"build/out.go":           "package build // TODO ignored\n",
		"scratch/notes.md":       "TODO ignored scratch\n",
		"pkg/generated_types.go": "package pkg // TODO ignored generated\n",
		".hidden/config.yaml":    "server: alpha\ntoken: TODO\n",
		"crlf/windows.txt":       "alpha server\r\nbeta TODO client\r\ngamma\r\n",
		"long/minified.js":       "var a=1;" + strings.Repeat("server(alpha);", 80) + "TODO\n",
		"multi/struct.go":        "package multi\n\ntype Config struct {\n\tName string\n\tRetry int\n}\n\ntype Server struct {\n\tName string\n}\n",
		"unicode/grüße.txt":      "Grüße, server ünïcode TODO\nalpha\nnumbers \u0661\u0662\u0663 and 42\u00a0end\n",
		"unicode/fold.txt":       "ErrorHandler\nERRORHANDLER\nerrorhandler\n\u212Aelvin sign\nthe long \u017Fign\n",
		"space dir/file name.md": "a server with spaces TODO\n",
		"empty.txt":              "",
		"nonewline.txt":          "alpha server TODO",
		"context/ctx.txt":        "one\ntwo alpha\nthree\nfour\nfive alpha\nsix\nseven\neight\nnine\nten alpha\n",
	}
	for rel, content := range fixed {
		if err := write(rel, content); err != nil {
			return nil, err
		}
	}
	if err := write("bin/data.bin", "alpha\x00server TODO\n"); err != nil {
		return nil, err
	}
	if err := write("bom/utf8.txt", "\xEF\xBB\xBFserver with a byte-order mark TODO\nalpha\n"); err != nil {
		return nil, err
	}
	// "TODO server\nbeta\n" in UTF-16, little- and big-endian.
	if err := write("bom/utf16le.txt", "\xFF\xFET\x00O\x00D\x00O\x00 \x00s\x00e\x00r\x00v\x00e\x00r\x00\n\x00b\x00e\x00t\x00a\x00\n\x00"); err != nil {
		return nil, err
	}
	if err := write("bom/utf16be.txt", "\xFE\xFF\x00T\x00O\x00D\x00O\x00 \x00s\x00e\x00r\x00v\x00e\x00r\x00\n\x00b\x00e\x00t\x00a\x00\n"); err != nil {
		return nil, err
	}
	perDir := 40
	for i := 0; len(written) < files; i++ {
		d := i / perDir
		folder := fmt.Sprintf("src/mod%02d/pkg%03d", d%25, d)
		ext := exts[rng.IntN(len(exts))]
		rel := fmt.Sprintf("%s/file%05d%s", folder, i, ext)
		if err := write(rel, fileContent(rng, ext)); err != nil {
			return nil, err
		}
	}
	return written, nil
}

// synthetic is the number of filler identifiers besides words.
const synthetic = 400

// fileContent writes a file of filler identifiers in which four of the
// known words (the file's topics) recur, so each known word appears in
// about a sixth of the files, as names do in real code.
func fileContent(rng *rand.Rand, ext string) string {
	var topics [4]string
	for i := range topics {
		topics[i] = words[rng.IntN(len(words))]
	}
	word := func() string {
		if rng.IntN(4) == 0 {
			return topics[rng.IntN(len(topics))]
		}
		return fmt.Sprintf("ident%03d", rng.IntN(synthetic))
	}
	var b strings.Builder
	lines := 10 + rng.IntN(60)
	switch ext {
	case ".go":
		b.WriteString("package generated\n\n")
	case ".py":
		b.WriteString("import os\n\n")
	}
	for l := 0; l < lines; l++ {
		switch rng.IntN(12) {
		case 0:
			w := word()
			fmt.Fprintf(&b, "func %s%s%d(ctx context.Context) error {\n", strings.ToUpper(w[:1]), w[1:], l)
		case 1:
			b.WriteString("}\n")
		case 2:
			b.WriteString("\n")
		default:
			n := 3 + rng.IntN(8)
			for w := 0; w < n; w++ {
				if w > 0 {
					b.WriteString(" ")
				}
				b.WriteString(word())
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
