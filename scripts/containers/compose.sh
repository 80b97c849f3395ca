# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).

# deploy/compose/docker-compose.yml with docker-compose on podman's Docker-compatible API
#
# Debian's podman-compose 1.0.3 cannot run the file's services on the host network: it adds its project network to
# services with network_mode: host, and podman refuses ("cannot set multiple networks without bridge network mode").
# Debian's docker-compose 1.29 reads the same file and drives podman through 'podman system service' (the Docker API).
# What differs from a user's 'docker compose up', and why:
#   - the third-party services (kafka, topics, influxdb, alertmanager, grafana) have no local image and are not
#     started; their stand-ins are a fresh broker, Alertmanager and InfluxDB database of this script, on 127.0.0.1;
#   - an override file (compose_override) swaps rdmamon's images for the local builds, points the services at those
#     servers, gives the collector the fixture sysfs tree, and puts the services in the network namespace of the
#     broker's container, which is the host's (network_mode: "container:..."). Not network_mode: host, because
#     docker-compose refuses it together with the file's ports: ('"host" network_mode is incompatible with
#     port_bindings'), and an override can add ports but not remove them. Podman drops the port mappings of a
#     container that shares another container's network namespace.

# podman's Docker API on a socket of this run. CONTAINERS_CONF (runc, nofile/nproc limits) applies to it too.
start_podman_service() {
  podman system service --time=0 "unix://$work/podman.sock" >"$work/podman-service.log" 2>&1 &
  track_pid $!
  wait_for 90 curl -sf --unix-socket "$work/podman.sock" http://podman/_ping \
    || { say "podman system service did not answer:"; cat "$work/podman-service.log" >&2; return 1; }
}

# docker-compose on the project's file plus the override; NODE_NAME is the file's own variable for the collector
compose() {
  DOCKER_HOST="unix://$work/podman.sock" NODE_NAME=compose-node \
    docker-compose -p "$compose_project" -f deploy/compose/docker-compose.yml -f "$work/compose-override.yml" "$@"
}

compose_override() {
  local db=$1 net="container:$2"
  cat >"$work/compose-override.yml" <<EOF
services:
  influx-init:
    image: $streams_image
    network_mode: "$net"
    environment:
      RDMAMON_INFLUX_URL: $influx_url
      RDMAMON_INFLUX_DATABASE: $db
  streams:
    image: $streams_image
    network_mode: "$net"
    environment:
      RDMAMON_STREAMS_BOOTSTRAP_SERVERS: $bootstrap
      RDMAMON_STREAMS_METRICS_PORT: "$(free_port)"
      RDMAMON_STREAMS_METRICS_BIND_ADDRESS: 127.0.0.1
  sink:
    image: $streams_image
    network_mode: "$net"
    environment:
      RDMAMON_KAFKA_BOOTSTRAP_SERVERS: $bootstrap
      RDMAMON_INFLUX_URL: $influx_url
      RDMAMON_INFLUX_DATABASE: $db
      RDMAMON_METRICS_PORT: "$(free_port)"
      RDMAMON_METRICS_BIND_ADDRESS: 127.0.0.1
  alerts:
    image: $streams_image
    network_mode: "$net"
    environment:
      RDMAMON_KAFKA_BOOTSTRAP_SERVERS: $bootstrap
      RDMAMON_ALERTS_ALERTMANAGER_URL: $alertmanager_url
      RDMAMON_METRICS_PORT: "$(free_port)"
      RDMAMON_METRICS_BIND_ADDRESS: 127.0.0.1
  collector:
    image: $collector_image
    network_mode: "$net"
    volumes:
      - $work/sysfs/sys:/host/sys:ro
    environment:
      RDMAMON_KAFKA_BOOTSTRAP_SERVERS: $bootstrap
      RDMAMON_METRICS_PORT: "$(free_port)"
      RDMAMON_METRICS_BIND_ADDRESS: 127.0.0.1
EOF
}

compose_logs() {
  podman ps -a --filter "label=com.docker.compose.project=$compose_project" --format '{{.Names}} {{.Status}}' >&2
  local c
  for c in influx-init streams sink alerts collector; do
    say "--- compose $c log"; podman logs "${compose_project}_${c}_1" 2>&1 | tail -10 >&2
  done
}

# The file's influx-init, streams, sink, alerts and collector, in the order of its depends_on: influx-init must have
# exited 0 before the sink starts (streams and alerts start beside it); the collector starts once the stream app has
# created the topics, which the file's 'topics' service would have created before. Then the same
# flow as above: the collector's records (node compose-node, from the file's NODE_NAME) arrive on rdma.port-samples,
# and the hang reaches a fresh Alertmanager and the database rdmamon_compose.
compose_up_and_flow() {
  local db=rdmamon_compose broker="rdmamon-ct-broker-compose-$$"
  start_broker compose && start_alertmanager compose && start_podman_service || return 1
  fixture_sysfs && hang_scenario || return 1
  compose_override "$db" "$broker"
  echo "$compose_project" >"$work/compose-project"
  compose up -d --no-deps --no-build influx-init streams alerts >"$work/compose-up.log" 2>&1 \
    || { tail -30 "$work/compose-up.log" >&2; return 1; }
  local rc
  rc="$(podman wait "${compose_project}_influx-init_1")"
  [ "$rc" = 0 ] || { say "compose influx-init exited $rc"; compose_logs; return 1; }
  compose up -d --no-deps --no-build sink >>"$work/compose-up.log" 2>&1 \
    || { tail -30 "$work/compose-up.log" >&2; return 1; }
  pm run --rm "${run_flags[@]}" "$streams_image" testbed await-topic --bootstrap-servers "$bootstrap" \
    --topic rdma.alerts >"$work/await-topic.log" 2>&1 || { cat "$work/await-topic.log" >&2; compose_logs; return 1; }
  compose up -d --no-deps --no-build collector >>"$work/compose-up.log" 2>&1 \
    || { tail -30 "$work/compose-up.log" >&2; return 1; }
  local out="$work/compose-collector-records.jsonl"
  pm run --rm "${run_flags[@]}" "$streams_image" testbed consume --bootstrap-servers "$bootstrap" \
    --topic rdma.port-samples --min 6 --timeout PT240S >"$out" 2>"$work/consume.log" \
    || { cat "$work/consume.log" >&2; compose_logs; return 1; }
  grep -q '"node":"compose-node","device":"mlx4_0","port":1' "$out" \
    || { say "compose: no record of mlx4_0 port 1 from compose-node:"; head -3 "$out" >&2; return 1; }
  say "compose: $(wc -l <"$out") records from the collector (node compose-node) on rdma.port-samples"
  pm run --rm "${run_flags[@]}" -v "$work/scenario:/scenario:ro" "$streams_image" testbed publish \
    --bootstrap-servers "$bootstrap" --scenario /scenario/hang --end-at-now >"$work/publish.log" 2>&1 \
    || { cat "$work/publish.log" >&2; return 1; }
  local ok=0
  wait_for 300 alert_in_alertmanager && say "compose: STALLED_SYNC llama-pretrain is active in Alertmanager" || ok=1
  wait_for 180 alert_in_influx "$db" && say "compose: STALLED_SYNC is in InfluxDB database $db" || ok=1
  [ $ok -eq 0 ] || compose_logs
  return $ok
}

# Frees the machine for the next checks: the compose services, their volumes and network, the compose broker.
stop_compose() {
  [ -f "$work/compose-project" ] || return 0
  compose down -v -t 10 >"$work/compose-down.log" 2>&1 || tail -5 "$work/compose-down.log" >&2
  rm -f "$work/compose-project"
  pm rm -f -v -t 10 "rdmamon-ct-broker-compose-$$" >/dev/null 2>&1 || true
}
