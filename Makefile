# toolhost — build, test, demo, bench, lint.
GO      ?= go
BIN     := bin/toolhost
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/toolhost/toolhost/internal/version.stamped=$(VERSION)

.PHONY: all build deps dist fuzz test test-go test-windows test-node test-nvim nvim-screens test-vscode test-dist test-vscode-e2e demo bench lint docs e2e vscode clean

all: build

# build makes a static binary (no cgo): it runs on any Linux the editor
# extensions are installed on, and starts without the dynamic loader.
# -trimpath (as make dist and the Neovim build step) keeps the checkout's
# path out of the binary and lets a checkout elsewhere reuse the build cache.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/toolhost

# deps installs what a fresh machine lacks (Debian packages, npm packages, Go modules).
deps:
	bash scripts/deps.sh

# dist builds every release artifact into dist/ (scripts/dist.sh): static
# binaries for linux/darwin × amd64/arm64 in archives with checksums.txt,
# a VSIX per platform carrying its binary, the npm launcher and per-platform
# packages, and the changelog entry; it lists them with their sizes.
dist:
	VERSION=$(VERSION) GO=$(GO) bash scripts/dist.sh

# test runs every test: Go (unit, scripted editor sessions, MCP against real
# servers), the Node protocol test with vscode-jsonrpc, the Neovim plugin in
# headless Neovim, the VS Code extension's unit tests, the release artifacts
# installed as users install them, and the extension end to end in a real
# VS Code (code-server + headless Chromium; its first run installs them,
# about three minutes). Every run cross-builds every platform (make dist),
# so a broken cross-build fails it.
test: deps build test-go test-windows test-node test-nvim test-vscode test-dist test-vscode-e2e
	@echo "all test suites passed"

test-go:
	@if git grep -nE '^(<<<<<<<|>>>>>>>)( |$$)' -- . ':!*.txtar' ':!third_party'; then echo 'merge conflict markers are committed in the files above: resolve them'; exit 1; fi
	$(GO) vet ./...
	@# The build for macOS is kept compiling; Windows builds and vets for
	@# both architectures and runs its tests under Wine (test-windows).
	GOOS=darwin $(GO) build -o /dev/null ./cmd/toolhost
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	GOOS=windows GOARCH=arm64 $(GO) vet ./...
	GOOS=windows GOARCH=arm64 $(GO) build -o /dev/null ./cmd/toolhost
	CI=$${CI:-} $(GO) test -count=1 ./...
	@# The one patch of a third_party copy with a test of its own there.
	$(GO) test -count=1 golang.org/x/net/html/charset
	$(MAKE) fuzz

# test-windows runs the Windows build under Wine: the unit tests of the
# packages that need no real Windows shell, then toolhost.exe end to end
# (scripts/wine/test.sh; docs/windows.md says what only real Windows shows).
test-windows:
	bash scripts/wine/test.sh

# fuzz runs the fuzz targets of the two input framings and of Bash
# permission rules against real bash briefly: a number of executions each
# (about ten seconds on two cores), not a duration, because Go's fuzzing
# coordinator can report a duration's end as "context deadline exceeded"
# and fail a run that found nothing (go.dev/issue/75804, fixed after Go
# 1.26). `make fuzz FUZZTIME=10m` digs deeper, for as long as it is given.
# A failure is saved under the package's testdata/fuzz and replayed by
# every later go test.
FUZZTIME ?=
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzStream$$' -fuzztime $(or $(FUZZTIME),40000x) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzStdio$$' -fuzztime $(or $(FUZZTIME),30000x) ./mcpserver
	$(GO) test -run '^$$' -fuzz '^FuzzCoveredCommandsRunOnlyWhatTheRulesName$$' -fuzztime $(or $(FUZZTIME),20000x) ./tools/permission

test-node: build
	@if [ -f test/node/package.json ]; then cd test/node && TOOLHOST_BIN=$(CURDIR)/$(BIN) npm test; fi
	@if [ -f test/mcp/package.json ]; then cd test/mcp && TOOLHOST_BIN=$(CURDIR)/$(BIN) npm test; fi

test-nvim: build
	@if [ -x editor-client/nvim/test/run.sh ]; then TOOLHOST_BIN=$(CURDIR)/$(BIN) editor-client/nvim/test/run.sh; fi

# Runs the Neovim suite and writes the screens it captures into
# docs/editors.md (test-nvim fails while they differ).
nvim-screens: build
	TOOLHOST_SCREENS_UPDATE=1 TOOLHOST_BIN=$(CURDIR)/$(BIN) editor-client/nvim/test/run.sh

test-vscode:
	@if [ -f editor-client/vscode/package.json ]; then cd editor-client/vscode && npm test; fi

# test-dist installs what make dist made as a user would: the npm tarballs
# in an empty folder, driven by the MCP SDK's client through
# `npx toolhost mcp` (and --attach); the Neovim plugin in a fresh Neovim,
# its build step fetching the release archive (or building with Go).
test-dist: dist
	cd test/mcp && TOOLHOST_DIST=$(CURDIR)/dist node --test npm_package.dist.mjs
	TOOLHOST_DIST=$(CURDIR)/dist VERSION=$(VERSION) editor-client/nvim/test/install.sh

# The end-to-end test installs the linux-x64 VSIX of make dist, which finds
# its bundled binary with no toolhost.path.
test-vscode-e2e: build dist
	@if [ -f editor-client/vscode/package.json ]; then cd editor-client/vscode && TOOLHOST_BIN=$(CURDIR)/$(BIN) TOOLHOST_VSIX=$$(ls $(CURDIR)/dist/toolhost-linux-x64-*.vsix) npm run e2e; fi

# demo replays the sample editor session (testdata/sessions/demo.txtar)
# against its sample workspace and prints the transcript.
demo: build
	./$(BIN) demo

bench: build
	bash scripts/bench.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo 'gofmt: run gofmt -w on the files above'; exit 1)
	$(GO) vet ./...
	staticcheck ./... || $(GO) run honnef.co/go/tools/cmd/staticcheck@latest ./...

# docs regenerates the tool reference; a test fails when it is stale.
# The tools' descriptions list the user's skills: generate them with an empty
# home, so that no developer's own skills end up in the committed files.
docs: build
	TOOLHOST_UPDATE_SCHEMAS=1 $(GO) test ./cmd/toolhost -run '^(TestGeneratedSchemasAreCurrent|TestSettingsSchemaIsCurrent)$$' -count=1 >/dev/null
	home=$$(mktemp -d) && HOME=$$home XDG_CONFIG_HOME= ./$(BIN) tools docs -o docs/tools.md && \
	HOME=$$home XDG_CONFIG_HOME= ./$(BIN) tools lm | node editor-client/vscode/scripts/lmTools.mjs; \
	rc=$$?; rm -rf "$$home"; exit $$rc

# e2e runs both editors' end-to-end tests in the real editors.
e2e: build
	TOOLHOST_BIN=$(CURDIR)/$(BIN) bash scripts/e2e.sh

vscode:
	cd editor-client/vscode && npm ci && npm run build && npm run package

clean:
	rm -rf bin dist
