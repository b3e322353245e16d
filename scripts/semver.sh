# semver VERSION: the semantic version npm, vsce and the release archives'
# names use for a `git describe` VERSION. A tag v1.2.3 gives 1.2.3;
# v1.2.3-4-gabcdef[-dirty] is already one (a pre-release); an untagged
# commit abcdef gives 0.0.0-gabcdef. POSIX sh: sourced by scripts/dist.sh
# and by the Neovim plugin's build step, so both name an archive alike.
semver() {
  v=${1#v}
  case $v in
    [0-9]*.[0-9]*.[0-9]*) printf '%s\n' "$v" ;;
    *) printf '0.0.0-g%s\n' "$v" ;;
  esac
}
