# Sourced by benches: helpers more than one of them uses.

# Copy $1 of plugin $2 on stdout: a custom section "ssr-density" holding $1
# appended (payload under 128 bytes, so its size is one LEB128 byte), so
# that each copy has its own SHA-256 and is compiled as a new plugin, the
# way distinct sites built by one `ssr` differ in data only.
variant() {
  cat "$2"
  printf '\x00'"\\x$(printf %02x $((12 + ${#1})))"'\x0bssr-density%s' "$1"
}

pct() { # p (0-100) of the numbers on stdin
  sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; print a[i]}'
}

wait_for() { # url: waits up to a minute for anything to answer there
  for _ in $(seq 1 240); do
    curl -s "$1" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  echo "nothing answered at $1" >&2; exit 1
}
