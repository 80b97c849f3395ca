# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# The collector image on node_exporter's InfiniBand fixture tree: its records reach rdma.port-samples.

# Unpacks a ttar archive (the fake-sysfs format of node_exporter, src/test/resources/fixtures) under $2.
unpack_ttar() {
  awk -v dest="$2" '
    function dir_of(p) { sub(/\/[^\/]*$/, "", p); return p }
    /^Directory: / { system("mkdir -p \"" dest "/" substr($0, 12) "\""); next }
    /^Path: / { path = dest "/" substr($0, 7); system("mkdir -p \"" dir_of(path) "\""); next }
    /^SymlinkTo: / { system("ln -s \"" substr($0, 12) "\" \"" path "\""); next }
    /^Lines: / { n = substr($0, 8) + 0; printf "" > path
                 for (i = 0; i < n; i++) { getline line; if (i == n - 1 && line ~ /EOF$/) { sub(/EOF$/, "", line); printf "%s", line > path } else print line > path }
                 close(path); next }
  ' "$1"
}

# node_exporter's InfiniBand fixture as a sysfs tree under $work/sysfs/sys, once (the collector check and compose's)
fixture_sysfs() {
  [ -d "$work/sysfs/sys" ] && return 0
  unpack_ttar src/test/resources/fixtures/node-exporter-infiniband.ttar "$work/sysfs"
  chmod -R a+rX "$work/sysfs"
}

collector_publishes_fixture_ports() {
  local sysfs="$work/sysfs" metrics_port out="$work/collector-records.jsonl" name="rdmamon-ct-collector-$$"
  fixture_sysfs
  metrics_port="$(free_port)"
  pm volume create --label "$label" "rdmamon-ct-spill-$$" >/dev/null
  date +%s%N >"$work/started-collector"
  pm run -d --name "$name" "${run_flags[@]}" --read-only \
    -v "$sysfs/sys:/host/sys:ro" -v "rdmamon-ct-spill-$$:/var/lib/rdmamon" \
    -e NODE_NAME=containers-test-node -e RDMAMON_COLLECTOR_SYSFS_ROOT=/host/sys \
    -e RDMAMON_KAFKA_BOOTSTRAP_SERVERS="$bootstrap" -e RDMAMON_EADM_ENABLED=false \
    -e RDMAMON_METRICS_PORT="$metrics_port" -e RDMAMON_METRICS_BIND_ADDRESS=127.0.0.1 \
    "$collector_image" >/dev/null
  record_startup collector "$metrics_port"
  # three rounds of the fixture's ports (mlx4_0 ports 1 and 2 among them), keyed by this node
  pm run --rm "${run_flags[@]}" "$streams_image" testbed consume --bootstrap-servers "$bootstrap" \
    --topic rdma.port-samples --min 6 --timeout PT240S >"$out" 2>"$work/consume.log" \
    || { cat "$work/consume.log" >&2; podman logs "$name" 2>&1 | tail -30 >&2; return 1; }
  grep -q '"node":"containers-test-node","device":"mlx4_0","port":1' "$out" \
    || { say "no record of mlx4_0 port 1 from containers-test-node:"; head -3 "$out" >&2; return 1; }
  local uid
  uid="$(pm exec "$name" id -u)"
  [ "$uid" = 10001 ] || { say "collector runs as uid $uid"; return 1; }
  if pm exec "$name" touch /opt/rdmamon/written 2>/dev/null; then say "the root filesystem is writable"; return 1; fi
  pm exec "$name" sh -c 'touch /var/lib/rdmamon/probe && rm /var/lib/rdmamon/probe' \
    || { say "uid 10001 cannot write the spill volume /var/lib/rdmamon"; return 1; }
  local metrics
  metrics="$(curl -sf "http://127.0.0.1:$metrics_port/metrics")" || { say "no metrics endpoint on $metrics_port"; return 1; }
  grep -q '^rdmamon_' <<<"$metrics" || { say "no rdmamon_ metric on the collector's metrics port"; return 1; }
  say "collector: $(wc -l <"$out") records from the fixture tree, uid 10001, read-only root, spill volume writable"
}
