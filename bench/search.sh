#!/usr/bin/env bash
# Times toolhost's Grep and Glob against ripgrep (and fd when installed) on
# a generated tree of about 20,000 files, printing medians and ratios; or,
# with -tree, on an existing tree such as a real repository.
# Usage: bench/search.sh [-files N] [-runs N] [-dir NEW-OR-EMPTY-DIR]
#        bench/search.sh -tree DIR [-grep PATTERN] [-glob PATTERN] [-runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/searchbench "$@"
