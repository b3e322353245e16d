#!/usr/bin/env bash
# Runs toolhost's Windows build on Linux under Wine (make test-windows):
# the unit tests of the packages that need no real Windows shell, built for
# windows/amd64 and run as Windows programs, then toolhost.exe itself: one
# `toolhost call` of each file tool and a scripted `serve` session.
#
# Wine is not Windows: it has no PowerShell, and its cmd.exe, access lists,
# file-sharing locks, symbolic links and Job Objects are its own. The tests
# Wine cannot host are skipped here by name (WINE_SKIP) and run on a real
# Windows machine with plain `go test` (docs/windows.md lists them).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
here=$repo/scripts/wine

# The packages of process lifetimes (a Job Object per call), paths, URIs,
# the jail, edits (CRLF, BOM), permission rules, the Go walk and the file
# and search tools; Read/Write/Edit/Glob/Grep also run end to end through
# toolhost.exe below. Tests that meet a
# limit of Wine skip themselves there (internal/wine).
packages=(
  ./internal/wine
  ./internal/lifetime
  ./internal/pathutil
  ./internal/udiff
  ./internal/rpcfault
  ./internal/ignore
  ./discovery
  ./workspace
  ./tools/fs
  ./tools/search
  ./tools/permission
  ./tools/permission/shellcmd
)
# Tests Wine cannot host, by name: they make symbolic links (Wine 8's are
# not seen as links), run Unix commands (git, true, sh), check Unix modes,
# or count open descriptors the Unix way. docs/windows.md lists them.
links='TestRealPath|TestDanglingLinkIsOutside|TestWriteThroughLinkKeepsIt|TestOpenDirApproved|TestApprovedReads|TestApprovedReadsNameTheRealPath|TestARootIsTheFolderThatWasOpened|TestSetRootsKeepsThePinOfAKeptRoot|TestARootIsPinnedWhenItFirstExists|TestOpenDir|TestReadJail|TestWritesThroughALinkLeadingOutside|TestDenyBeatsAskBeatsAllow|TestModes|TestOutsideWorkspace|TestProtectedFilesAskWhateverTheRules|TestSandboxBinds|TestSandboxBindsLinks'
unix='TestCleanStaleTemps|TestWalkAgreesWithGit|TestBashNamingProtectedFilesIsNotPreApproved|TestBashNamingTheUsersConfigIsNotPreApproved'
# Unix-only fixtures: /-rooted URIs, mode bits, a newline in a file name,
# Unix error texts, an executable without .exe.
fixtures='TestLookPathAbsPassesOverRelativeEntries|TestDocumentChanges|TestDocumentLifecycle|TestModify|TestResolveKeepsWhiteSpaceOfNamesThatExist|TestReadFileIntoReusesAndGrowsTheBuffer'
# Access lists: Wine keeps its own (tested only by review).
acl='TestWriteIsPrivate'
WINE_SKIP=${WINE_SKIP:-"^($links|$unix|$fixtures|$acl)\$"}

prefix=$(mktemp -d "${TMPDIR:-/tmp}/toolhost-wine.XXXXXX")
cleanup() {
  WINEPREFIX=$prefix wineserver -k >/dev/null 2>&1 || true
  rm -rf "$prefix"
}
trap cleanup EXIT
export WINEPREFIX=$prefix
start=$SECONDS
"$here/setup.sh"
echo "wine: prefix ready in $((SECONDS - start)) s"

GOOS=windows GOARCH=amd64 go test -count=1 -overlay "$prefix/go-overlay.json" \
  -exec "$here/exec.sh" -skip "$WINE_SKIP" "${packages[@]}"

# tools/shell needs a real bash for most of its tests; under Wine run the
# ones that need none: the PowerShell tool (with this test program as a
# fake powershell.exe: Wine's own is a stub that runs nothing), the
# lookups of bash and PowerShell, the console code pages, and the risk
# label of a Bash command (pure parsing).
GOOS=windows GOARCH=amd64 go test -c -overlay "$prefix/go-overlay.json" -o "$prefix/shell.test.exe" ./tools/shell
"$here/exec.sh" "$prefix/shell.test.exe" -test.run '^(TestPowerShell.*|TestFindPowerShell|TestFindBash|TestDecodeCodePage|TestCommandRisk)$'

# The scripted editor sessions (testdata/sessions, lspserver.TestSessions)
# replayed by the Windows test program: the root is a drive path, its URI
# file:///Z:/... Skipped: the sessions that run Bash (Wine has no Git Bash,
# so PowerShell is offered instead) or list the tools (the same swap), and
# those whose trust hint quotes the Windows root for a shell.
sessions_skip='core|check-permission|disktruth|errors|permission|permission-fallback|permission-none|lifecycle|skills|trust'
GOOS=windows GOARCH=amd64 go test -c -overlay "$prefix/go-overlay.json" -o "$prefix/lspserver.test.exe" ./lspserver
(cd lspserver && "$here/exec.sh" "$prefix/lspserver.test.exe" -test.run '^TestSessions$' \
  -test.skip "^TestSessions\$/^($sessions_skip)\$")

# toolhost.exe end to end: a call of each file tool on a CRLF file with a
# BOM, then a scripted editor session on `toolhost serve`.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$prefix/toolhost.exe" ./cmd/toolhost
ws=$prefix/ws
mkdir -p "$ws"
run() { (cd "$ws" && "$here/exec.sh" "$prefix/toolhost.exe" "$@"); }
expect() { # expect WHAT WANT GOT
  if [[ "$3" != *"$2"* ]]; then
    printf 'wine: %s: want output containing %q, got:\n%s\n' "$1" "$2" "$3" >&2
    exit 1
  fi
}
printf '\xef\xbb\xbfone\r\ntwo\r\n' >"$ws/crlf.txt"
expect "Read" "2	two" "$(run call Read '{"file_path":"crlf.txt"}')"
run call Edit '{"file_path":"crlf.txt","old_string":"two","new_string":"deux"}' >/dev/null
[ "$(od -An -tx1 "$ws/crlf.txt" | tr -d ' \n')" = efbbbf6f6e650d0a646575780d0a ] ||
  { echo "wine: Edit lost the BOM or the CRLF line ends: $(od -c "$ws/crlf.txt")" >&2; exit 1; }
run call Write '{"file_path":"sub\\new.txt","content":"hello\n"}' >/dev/null
[ "$(cat "$ws/sub/new.txt")" = hello ] || { echo "wine: Write with a backslash path did not write sub/new.txt" >&2; exit 1; }
expect "Glob" "new.txt" "$(run call Glob '{"pattern":"**/*.txt"}')"
expect "Grep" "crlf.txt" "$(run call Grep '{"pattern":"deux"}')"
# No Git Bash here: PowerShell is offered instead of Bash, and runs the
# program TOOLHOST_POWERSHELL_PATH names (the fake) with its arguments.
expect "PowerShell offered without bash" 'no tool named "Bash"' "$(run call Bash '{"command":"echo hi"}' 2>&1 || true)"
fake=$(cd "$prefix" && "$here/exec.sh" cmd.exe /c cd | tr -d '\r')\\shell.test.exe
expect "PowerShell" '["-NoProfile","-NonInteractive","-Command","Get-Date"]' \
  "$(TOOLHOST_POWERSHELL_PATH=$fake TOOLHOST_TEST_FAKE_POWERSHELL=1 run call PowerShell '{"command":"Get-Date"}')"
# A scripted editor session on toolhost.exe serve: LSP framing both ways,
# a file:///c%3A/... root URI as VS Code sends it, a Read by a Windows path.
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
winws=$(cd "$ws" && "$here/exec.sh" cmd.exe /c cd | tr -d '\r')   # Z:\...
uri="file:///${winws:0:1}%3A$(printf '%s' "${winws:2}" | tr '\\' /)"
# The editor side: writes a request, reads frames until the answer with
# that id comes (no timing: every step waits for its answer).
coproc SERVER { cd "$ws" && exec "$here/exec.sh" "$prefix/toolhost.exe" serve 2>/dev/null; }
# answer ID: the body of the server's message with "id":ID, on stdout.
answer() {
  local line len body
  while IFS= read -r line <&"${SERVER[0]}"; do
    line=${line%$'\r'}
    case $line in
      Content-Length:*) len=${line#Content-Length: } ;;
      "")
        # Content-Length counts bytes: read bytes, not characters.
        LC_ALL=C IFS= read -r -N "$len" body <&"${SERVER[0]}"
        if [[ $body == *"\"id\":$1,"* || $body == *"\"id\":$1}"* ]]; then
          printf '%s\n' "$body"
          return 0
        fi ;;
    esac
  done
  echo "wine: serve ended before answering request $1" >&2
  return 1
}
frame '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"'"$uri"'","capabilities":{}}}' >&"${SERVER[1]}"
expect "serve: initialize" '"name":"toolhost"' "$(answer 1)"
frame '{"jsonrpc":"2.0","method":"initialized","params":{}}' >&"${SERVER[1]}"
frame '{"jsonrpc":"2.0","id":2,"method":"toolhost/callTool","params":{"name":"Read","callId":"r1","input":{"file_path":"'"${winws//\\/\\\\}"'\\crlf.txt"}}}' >&"${SERVER[1]}"
expect "serve: Read of a Windows path" 'deux' "$(answer 2)"
frame '{"jsonrpc":"2.0","id":3,"method":"shutdown"}' >&"${SERVER[1]}"
expect "serve: shutdown" '"result":null' "$(answer 3)"
frame '{"jsonrpc":"2.0","method":"exit"}' >&"${SERVER[1]}"
eval "exec ${SERVER[1]}>&-"
wait "$SERVER_PID" || { echo "wine: toolhost serve exited with status $? after exit" >&2; exit 1; }
echo "wine: all Windows tests passed in $((SECONDS - start)) s"
