#!/usr/bin/env bash
# Times toolhost's Grep and Glob against ripgrep (and fd when installed) on
# a generated tree of about 20,000 files, printing medians and ratios.
# Usage: bench/search.sh [-files N] [-runs N] [-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/searchbench "$@"
