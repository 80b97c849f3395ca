# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# Servers on loopback: a broker (the project's EmbeddedKafkaBroker, from the streams image), influxd, Alertmanager

start_broker() {
  local name="rdmamon-ct-broker${1:+-$1}-$$"
  kafka_port="$(free_port)"
  bootstrap="127.0.0.1:$kafka_port"
  pm run -d --name "$name" "${run_flags[@]}" --tmpfs /tmp:size=512m "$streams_image" \
    testbed broker --dir /tmp/kafka --port "$kafka_port" >/dev/null || return 1
  wait_for 180 sh -c "podman logs $name 2>/dev/null | grep -qx '$bootstrap'" \
    || { podman logs "$name" 2>&1 | tail -20 >&2; return 1; }
  say "broker at $bootstrap"
}

start_influxd() {
  influx_port="$(free_port)"
  local rpc_port dir="$work/influxd"
  rpc_port="$(free_port)"
  mkdir -p "$dir" || return 1
  cat >"$dir/influxdb.conf" <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$rpc_port"
[meta]
  dir = "$dir/meta"
[data]
  dir = "$dir/data"
  wal-dir = "$dir/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  enabled = true
  bind-address = "127.0.0.1:$influx_port"
  auth-enabled = false
  log-enabled = false
[logging]
  level = "warn"
[subscriber]
  enabled = false
EOF
  influxd -config "$dir/influxdb.conf" >"$dir/influxd.log" 2>&1 &
  track_pid $!
  influx_url="http://127.0.0.1:$influx_port"
  wait_for 90 curl -sf "$influx_url/ping" || { tail -20 "$dir/influxd.log" >&2; return 1; }
  say "influxd at $influx_url"
}

start_alertmanager() {
  local port dir="$work/alertmanager${1:+-$1}"
  port="$(free_port)"
  mkdir -p "$dir"
  printf 'route:\n  receiver: nobody\n  group_wait: 1s\nreceivers:\n  - name: nobody\n' >"$dir/alertmanager.yml"
  prometheus-alertmanager --config.file="$dir/alertmanager.yml" --storage.path="$dir/data" \
    --web.listen-address="127.0.0.1:$port" --cluster.listen-address= >"$dir/alertmanager.log" 2>&1 &
  track_pid $!
  alertmanager_url="http://127.0.0.1:$port"
  wait_for 90 curl -sf "$alertmanager_url/-/ready" || { tail -20 "$dir/alertmanager.log" >&2; return 1; }
  say "Alertmanager at $alertmanager_url"
}

start_servers() {
  start_broker && start_influxd && start_alertmanager
}
