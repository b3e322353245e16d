# toolhost — build, test, demo, bench, lint.
GO      ?= go
BIN     := bin/toolhost
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/toolhost/toolhost/internal/version.stamped=$(VERSION)

.PHONY: all build deps fuzz test test-go test-windows test-node test-nvim test-vscode test-vscode-e2e demo bench lint docs e2e vscode clean

all: build

# build makes a static binary (no cgo): it runs on any Linux the editor
# extensions are installed on, and starts without the dynamic loader.
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/toolhost

# deps installs what a fresh machine lacks (Debian packages, npm packages, Go modules).
deps:
	bash scripts/deps.sh

# test runs every test: Go (unit, scripted editor sessions, MCP against real
# servers), the Node protocol test with vscode-jsonrpc, the Neovim plugin in
# headless Neovim, the VS Code extension's unit tests, and the extension end
# to end in a real VS Code (code-server + headless Chromium; its first run
# installs them, about three minutes).
test: deps build test-go test-windows test-node test-nvim test-vscode test-vscode-e2e
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
	$(MAKE) fuzz

# test-windows runs the Windows build under Wine: the unit tests of the
# packages that need no real Windows shell, then toolhost.exe end to end
# (scripts/wine/test.sh; docs/windows.md says what only real Windows shows).
test-windows:
	bash scripts/wine/test.sh

# fuzz runs the fuzz targets of the two input framings and of Bash
# permission rules against real bash briefly (FUZZTIME
# each); `make fuzz FUZZTIME=10m` digs deeper. A failure is saved under the
# package's testdata/fuzz and replayed by every later go test.
FUZZTIME ?= 10s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzStream$$' -fuzztime $(FUZZTIME) ./lspserver
	$(GO) test -run '^$$' -fuzz '^FuzzLineGuard$$' -fuzztime $(FUZZTIME) ./mcpserver
	$(GO) test -run '^$$' -fuzz '^FuzzCoveredCommandsRunOnlyWhatTheRulesName$$' -fuzztime $(FUZZTIME) ./tools/permission

test-node: build
	@if [ -f test/node/package.json ]; then cd test/node && TOOLHOST_BIN=$(CURDIR)/$(BIN) npm test; fi
	@if [ -f test/mcp/package.json ]; then cd test/mcp && TOOLHOST_BIN=$(CURDIR)/$(BIN) npm test; fi

test-nvim: build
	@if [ -x editor-client/nvim/test/run.sh ]; then TOOLHOST_BIN=$(CURDIR)/$(BIN) editor-client/nvim/test/run.sh; fi

test-vscode:
	@if [ -f editor-client/vscode/package.json ]; then cd editor-client/vscode && npm test; fi

test-vscode-e2e: build
	@if [ -f editor-client/vscode/package.json ]; then cd editor-client/vscode && TOOLHOST_BIN=$(CURDIR)/$(BIN) npm run e2e; fi

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
docs: build
	./$(BIN) tools docs -o docs/tools.md
	./$(BIN) tools lm | node editor-client/vscode/scripts/lmTools.mjs

# e2e runs both editors' end-to-end tests in the real editors.
e2e: build
	TOOLHOST_BIN=$(CURDIR)/$(BIN) bash scripts/e2e.sh

vscode:
	cd editor-client/vscode && npm ci && npm run build && npm run package

clean:
	rm -rf bin
