// Package scripts holds the shell scripts of the build (deps.sh installs
// what a fresh machine lacks, e2e.sh runs both editors end to end,
// bench.sh the benchmarks, wine/ runs the Windows build under Wine) and a test of how the setup scripts fail: a
// failed step stops the run, names itself and shows its log, and the npm
// of another Node never sees the variables of the npm that started it.
package scripts
