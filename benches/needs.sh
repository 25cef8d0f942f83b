# Sourced by benches that need tools beyond scripts/setup.sh:
# `needs COMMAND=PACKAGE ...` installs the Debian package of each command
# that is missing.
needs() {
  local missing=() pair sudo=""
  for pair in "$@"; do
    command -v "${pair%%=*}" >/dev/null || missing+=("${pair#*=}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
