# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# Streams, sink, alerts: an injected hang reaches Alertmanager and InfluxDB

role() {
  local name=$1; shift
  date +%s%N >"$work/started-$name"
  pm run -d --name "rdmamon-ct-$name-$$" "${run_flags[@]}" --read-only --tmpfs /tmp "$@" >/dev/null
}

# Start-up: from 'podman run' to the metrics endpoint answering (the JVM is up and the role configured).
record_startup() {
  local name=$1 port=$2 started now
  started="$(cat "$work/started-$name")"
  wait_for 300 curl -sf "http://127.0.0.1:$port/metrics" || { say "$name: no metrics on $port"; return 1; }
  now="$(date +%s%N)"
  echo "$(( (now - started) / 1000000 ))" >"$work/startup-ms-$name"
}

# Resident memory of a container's process (the JVM is its pid 1), now.
rss_mib() {
  local pid
  pid="$(podman inspect --format '{{.State.Pid}}' "$1")"
  awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status"
}

report_measurements() {
  local name image size
  say "measured (image size; start-up = podman run to metrics endpoint answering; resident memory after the hang flow):"
  for image in "$collector_image" "$streams_image"; do
    size="$(podman image inspect --format '{{.Size}}' "$image")"
    say "  image $image: $((size / 1000000)) MB"
  done
  for name in collector streams sink alerts; do
    [ -f "$work/startup-ms-$name" ] || continue
    say "  $name: start-up $(cat "$work/startup-ms-$name") ms, resident $(rss_mib "rdmamon-ct-$name-$$" 2>/dev/null || echo '?') MiB"
  done
}

alert_in_alertmanager() {
  curl -sf -G "$alertmanager_url/api/v2/alerts" --data-urlencode 'filter=alertname="STALLED_SYNC"' \
    --data-urlencode 'filter=job="llama-pretrain"' | grep -q '"alertname":"STALLED_SYNC"'
}

alert_in_influx() {
  curl -sf -G "$influx_url/query" --data-urlencode "db=${1:-rdmamon}" \
    --data-urlencode "q=SELECT count(firing) FROM alert WHERE \"type\" = 'STALLED_SYNC'" | grep -q '"count"'
}

# streams, sink and alerts from the streams image, configured by environment, read-only root; the stream app creates
# every topic (6 partitions) before the collector or the scenario publish to them
start_roles() {
  pm volume create --label "$label" "rdmamon-ct-state-$$" >/dev/null
  pm run --rm "${run_flags[@]}" --read-only -e RDMAMON_INFLUX_URL="$influx_url" "$streams_image" \
    influx init --config /etc/rdmamon/sink.properties >"$work/influx-init.log" 2>&1 \
    || { cat "$work/influx-init.log" >&2; return 1; }
  local streams_port sink_port alerts_port
  streams_port="$(free_port)"; sink_port="$(free_port)"; alerts_port="$(free_port)"
  role streams -v "rdmamon-ct-state-$$:/var/lib/rdmamon" -e RDMAMON_STREAMS_BOOTSTRAP_SERVERS="$bootstrap" \
    -e RDMAMON_STREAMS_REPLICATION_FACTOR=1 -e RDMAMON_STREAMS_METRICS_PORT="$streams_port" \
    -e RDMAMON_STREAMS_METRICS_BIND_ADDRESS=127.0.0.1 "$streams_image" streams
  role sink -e RDMAMON_KAFKA_BOOTSTRAP_SERVERS="$bootstrap" -e RDMAMON_INFLUX_URL="$influx_url" \
    -e RDMAMON_METRICS_PORT="$sink_port" -e RDMAMON_METRICS_BIND_ADDRESS=127.0.0.1 \
    "$streams_image" sink --config /etc/rdmamon/sink.properties
  role alerts -e RDMAMON_KAFKA_BOOTSTRAP_SERVERS="$bootstrap" -e RDMAMON_ALERTS_ALERTMANAGER_URL="$alertmanager_url" \
    -e RDMAMON_METRICS_PORT="$alerts_port" -e RDMAMON_METRICS_BIND_ADDRESS=127.0.0.1 \
    "$streams_image" alerts --config /etc/rdmamon/alerts.properties
  record_startup streams "$streams_port"
  record_startup sink "$sink_port"
  record_startup alerts "$alerts_port"
  pm run --rm "${run_flags[@]}" "$streams_image" testbed await-topic --bootstrap-servers "$bootstrap" \
    --topic rdma.alerts >"$work/await-topic.log" 2>&1 \
    || { cat "$work/await-topic.log" >&2; podman logs "rdmamon-ct-streams-$$" 2>&1 | tail -20 >&2; return 1; }
  local r
  for r in streams sink alerts; do
    [ "$(podman inspect --format '{{.State.Running}}' "rdmamon-ct-$r-$$")" = true ] \
      || { say "$r stopped:"; podman logs "rdmamon-ct-$r-$$" 2>&1 | tail -20 >&2; return 1; }
  done
}

# The 'hang' scenario of rdmamon simulate (every rank of llama-pretrain quiet from 6 min on, job still Running),
# shifted to end now and published as the collectors and the job source would have
hang_scenario() {
  local scenario="$work/scenario"
  [ -d "$scenario/hang" ] && return 0
  mkdir -p "$scenario" && chmod 777 "$scenario"
  pm run --rm "${run_flags[@]}" -v "$scenario:/scenario" "$streams_image" \
    simulate --scenario hang --out /scenario/hang >"$work/simulate.log" 2>&1 || { cat "$work/simulate.log" >&2; return 1; }
}

hang_reaches_alertmanager_and_influx() {
  hang_scenario
  pm run --rm "${run_flags[@]}" -v "$work/scenario:/scenario:ro" "$streams_image" testbed publish \
    --bootstrap-servers "$bootstrap" --scenario /scenario/hang --end-at-now >"$work/publish.log" 2>&1 \
    || { cat "$work/publish.log" >&2; return 1; }
  say "$(tail -1 "$work/publish.log")"
  local ok=0
  wait_for 300 alert_in_alertmanager && say "STALLED_SYNC llama-pretrain is active in Alertmanager" || ok=1
  wait_for 180 alert_in_influx && say "STALLED_SYNC is in InfluxDB (measurement alert)" || ok=1
  if [ $ok -ne 0 ]; then
    local r
    for r in streams sink alerts; do say "--- $r log"; podman logs "rdmamon-ct-$r-$$" 2>&1 | tail -15 >&2; done
    curl -s "$alertmanager_url/api/v2/alerts" | head -c 1000 >&2; echo >&2
  fi
  return $ok
}

# One 'podman rm' per container: given several names, podman 4.3.1's 'rm -f' removes none of them when one does not
# exist (the collector's, when its image did not build), and still exits 0.
stop_roles() {
  local r
  for r in streams sink alerts collector; do pm rm -f -v -t 10 "rdmamon-ct-$r-$$" >/dev/null 2>&1 || true; done
}
