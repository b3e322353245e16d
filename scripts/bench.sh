#!/usr/bin/env bash
# make bench: Go benchmarks, then side-by-side runs against peers, each
# printed with its ratio:
#   1. go test -bench over the packages that have benchmarks (in-process);
#   2. bench/stdio: a real `toolhost serve` over stdio (start, Read, Bash)
#      against the latency targets, and a Write of 5 MB with every line
#      changed through a client that applies workspace/applyEdit;
#   2b. test/node/bench/bigwrite.mjs: the same Write through an editor built
#      on vscode-jsonrpc, the library under VS Code's language client;
#   3. bench/search.sh: Grep and Glob against ripgrep (and fd);
#   4. bench/mcp: `toolhost mcp` against `claude mcp serve` (Claude Code from
#      npm, installed in test/mcp), when it is installed: start, Read, Bash,
#      Grep, Glob, and Edit and Write of big files, each as a ratio, and each
#      against its floor (a hello-world Go binary, bash, rg).
# Set BENCH_QUICK=1 for fewer iterations, without the Go benchmarks, the
# Node editor and the 20,000-file search (steps 1, 2b and 3). Set BASE=<commit or tag> to build that commit in a temporary
# worktree and run it in bench/mcp alongside today's build, interleaved:
# each row then shows base/toolhost, and a regression is a ratio below 1.
# The run ends with every row that has a target, gathered from the steps
# above, so that the issue's targets read side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOOLHOST_BIN:-$PWD/bin/toolhost}
say() { printf '\n== %s\n' "$*"; }

benchtime=1s starts=20 calls=300 files=20000 bigruns=3
if [ -n "${BENCH_QUICK:-}" ]; then
  benchtime=200ms starts=5 calls=50 files=3000 bigruns=1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT

base_args=()
if [ -n "${BASE:-}" ]; then
  base_tree=$(mktemp -d)
  trap 'rm -f "$log"; git worktree remove --force "$base_tree" >/dev/null 2>&1 || true; rm -rf "$base_tree"' EXIT
  say "building BASE=$BASE in a temporary worktree"
  git worktree add --detach "$base_tree/src" "$BASE" >/dev/null
  # Built as make build builds today's, so that start times compare.
  (cd "$base_tree/src" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$base_tree/toolhost" ./cmd/toolhost)
  base_args=(-base "$base_tree/toolhost")
fi

# step runs one measuring command; one that exits non-zero (a row that
# missed its target, or a failure) is noted and the later steps still run,
# so that one noisy row does not hide the rest of the comparison.
step() {
  "$@" || echo "step exited with status $?: $* (see its rows above)"
}

steps() {
  if [ -z "${BENCH_QUICK:-}" ]; then
    say "Go benchmarks (in-process)"
    step go test -run '^$' -bench . -benchmem -benchtime "$benchtime" ./...
  fi

  say "toolhost serve over stdio (bench/stdio)"
  step go run ./bench/stdio -bin "$BIN" -starts "$starts" -calls "$calls" -bigwrite-runs "$bigruns"

  say "Write through a vscode-jsonrpc editor (test/node/bench/bigwrite.mjs)"
  if [ -n "${BENCH_QUICK:-}" ]; then
    echo "skipped with BENCH_QUICK"
  elif [ -d test/node/node_modules/vscode-jsonrpc ]; then
    step env TOOLHOST_BIN="$BIN" node test/node/bench/bigwrite.mjs -runs "$bigruns"
  else
    echo "skipped: vscode-jsonrpc is not installed; run 'npm ci' in test/node (make deps)"
  fi

  say "Grep and Glob against ripgrep and fd (bench/search.sh)"
  if [ -n "${BENCH_QUICK:-}" ]; then
    echo "skipped with BENCH_QUICK (bench/mcp below times Grep and Glob against rg on a small folder)"
  else
    step bash bench/search.sh -files "$files"
  fi

  say "toolhost mcp against claude mcp serve (bench/mcp)"
  if [ -x test/mcp/node_modules/.bin/claude ]; then
    step go run ./bench/mcp -toolhost "$BIN" -starts "$((starts / 2))" -calls "$calls" -big-rounds "$bigruns" "${base_args[@]}"
  else
    echo "skipped: Claude Code is not installed; run 'npm ci' in test/mcp (make deps) to compare with it"
  fi
}

steps 2>&1 | tee "$log"
say "every row with a target, from the steps above"
grep -E ' (meets|MISSES|misses)' "$log" || echo "(none)"
# The run fails, after the summary, when a step did.
if grep -q '^step exited with status' "$log"; then
  say "steps that exited non-zero"
  grep '^step exited with status' "$log"
  exit 1
fi
