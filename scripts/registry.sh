# The backend registry for shell scripts (sourced): backends/meson.build's backend_names line (auto's
# order) and each entry's boolean keys (backends/<name>/meson.build). Scripts pick backends by what
# they are (driverless, ...), never by name (scripts/check_backend_names.py).
_registry_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# registry_names: every backend, in the registry's order, one per line.
registry_names() {
  sed -n "s/^backend_names = \[\(.*\)\]/\1/p" "$_registry_root/backends/meson.build" | tr -d "'," | tr ' ' '\n' |
    sed '/^$/d'
}

# registry_with KEY: the backends whose entry sets KEY to true, in the registry's order.
registry_with() {
  local b
  for b in $(registry_names); do
    if grep -Eq "'$1': *true" "$_registry_root/backends/$b/meson.build"; then echo "$b"; fi
  done
}

# registry_driverless: the first backend that runs no driver library (what the embedded checks,
# the footprint and the subproject consumer build).
registry_driverless() {
  local b
  b=$(registry_with driverless | head -1)
  [ -n "$b" ] || { echo "registry: no driverless backend" >&2; return 1; }
  echo "$b"
}
