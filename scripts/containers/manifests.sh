# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# Every rdmamon container of deploy/kubernetes and of the chart (default values, each example values file) started
# under podman as its manifest says: ManifestRuns (a test-scope class) turns each into a podman run (the image's
# entrypoint with the manifest's command and args, env, the ConfigMap's files at their mount path, hostPath volumes on
# test sysfs trees, emptyDir, security context, hostPID, memory limit). What is the site's is set as an operator
# would, by lines added to the ConfigMap's properties files: the broker, influxd and Alertmanager of this script, free
# metrics ports on loopback, replication factor 1 (one broker). Each must reach ready (its readinessProbe's path, else
# /metrics) and the collectors' samples arrive on rdma.port-samples. Containers identical to one already started
# (same arguments and files: ManifestRuns' fingerprint) are not started twice. The jobs watcher talks to a stand-in
# API server (FakeKubernetesApi), named by KUBERNETES_MASTER where the kubelet would inject the service's address.

mf_java() { java -cp "target/test-classes:target/classes:$(cat "$work/test-classpath")" "$@"; }

# The test classes and their class path (Maven, offline: the build resolved them).
mf_tools() {
  [ -s "$work/test-classpath" ] && return 0
  mvn -B -q -o -Dmdep.outputFile="$work/test-classpath" -Dmdep.includeScope=test test-compile \
    dependency:build-classpath >"$work/mf-tools.log" 2>&1 || { tail -20 "$work/mf-tools.log" >&2; return 1; }
}

# A sysfs tree from ttar fixtures ($2...) under $work/mf-sysfs-$1/sys
mf_sysfs() {
  local dir="$work/mf-sysfs-$1" f; shift
  [ -d "$dir/sys" ] && return 0
  for f in "$@"; do unpack_ttar "src/test/resources/fixtures/$f.ttar" "$dir"; done
  chmod -R a+rX "$dir"
}

# Writes the plans of source $1 (plain, chart, or a values file's name) with node name $2 to $work/mf/$1
mf_plan() {
  local source=$1 node=$2 sysfs=$3; shift 3
  local plan="$work/mf/$source" p
  rm -rf "$plan"
  local -a props=()
  for p in collector sink alerts jobs-watch; do props+=(--property "$p.properties:kafka.bootstrap.servers=$bootstrap"); done
  props+=(--property "streams.properties:streams.bootstrap.servers=$bootstrap"
    --property "streams.properties:streams.replication.factor=1"
    --property "sink.properties:influx.url=$influx_url" --property "sink.properties:influx.database=rdmamon_manifests"
    --property "alerts.properties:alerts.alertmanager.url=$alertmanager_url")
  for p in collector sink alerts jobs-watch; do
    props+=(--property "$p.properties:metrics.port=${mf_ports[$p]}" --property "$p.properties:metrics.bind.address=127.0.0.1")
  done
  props+=(--property "streams.properties:streams.metrics.port=${mf_ports[streams]}"
    --property "streams.properties:streams.metrics.bind.address=127.0.0.1")
  mf_java io.rdmamon.deploy.ManifestRuns --out "$plan" --node "$node" "$@" "${props[@]}" \
    --host-path "/sys=$work/mf-sysfs-$sysfs/sys" --host-path "/var/lib/kubelet/pod-resources=$work/mf-pod-resources" \
    --host-path "/usr/local/erdma=$work/mf-eadm" --image "rdmamon-collector=$collector_image" \
    --image "rdmamon-streams=$streams_image" --volume-prefix "rdmamon-ct-$$-$source" >"$work/mf-plan-$source.log" 2>&1 \
    || { cat "$work/mf-plan-$source.log" >&2; return 1; }
}

# Polls the plan's ready endpoint until it answers 2xx; fails at once, with the log, when the container stops.
mf_wait_ready() {
  local plan=$1 name=$2 url deadline=$((SECONDS + 300))
  url="http://127.0.0.1:${mf_ports[$(mf_port_key "$plan")]}$(cat "$plan/probe")"
  until curl -sf -o /dev/null "$url"; do
    if [ "$(podman inspect --format '{{.State.Running}}' "$name" 2>/dev/null)" != true ]; then
      say "$(cat "$plan/where"): exited $(podman inspect --format '{{.State.ExitCode}}' "$name" 2>/dev/null) before $url answered:"
      podman logs "$name" 2>&1 | grep -v '^ ' | tail -8 >&2
      return 1
    fi
    [ $SECONDS -lt $deadline ] || { say "$(cat "$plan/where"): $url not ready in 300 s"; podman logs "$name" 2>&1 | tail -8 >&2; return 1; }
    sleep 1
  done
  say "$(basename "$(dirname "$plan")"): $(cat "$plan/where"): ready, $url answers ($(($(date +%s) - $(podman inspect --format '{{.State.StartedAt.Unix}}' "$name"))) s after start)"
}

mf_port_key() {
  case "$(cat "$1/role")" in "jobs watch") echo jobs-watch;; *) cat "$1/role";; esac
}

mf_run() {
  local plan=$1 name=$2 a v; shift 2
  local -a args
  mapfile -t args <"$plan/args"
  # the claims' named volumes, made with the run's label so that cleanup removes them
  for a in "${args[@]}"; do
    case "$a" in --volume=rdmamon-ct-*)
      v=${a#--volume=}; v=${v%%:*}
      pm volume exists "$v" || pm volume create --label "$label" "$v" >/dev/null;;
    esac
  done
  pm run -d --name "$name" "${run_flags[@]}" "$@" "${args[@]}" >/dev/null
}

# Starts every container of one source not started before (fingerprints in $work/mf-started), waits for each to be
# ready and for the collector's samples on rdma.port-samples; then stops them.
mf_run_source() {
  local source=$1 node=$2 plan name extra ok=0
  local -a started=()
  for plan in "$work/mf/$source"/*/; do
    plan=${plan%/}
    if grep -qxF "$(cat "$plan/fingerprint")" "$work/mf-started" 2>/dev/null; then
      say "$source: $(cat "$plan/where"): the same container as one started above (arguments and files), not run again"
      continue
    fi
    cat "$plan/fingerprint" >>"$work/mf-started"
    name="rdmamon-ct-mf-$$-$(basename "$plan")"
    if [ "$(cat "$plan/init")" = true ]; then
      local -a args; mapfile -t args <"$plan/args"
      pm run --rm --name "$name" "${run_flags[@]}" "${args[@]}" >"$work/mf-init.log" 2>&1 \
        || { say "$source: init container $(cat "$plan/where") failed:"; tail -10 "$work/mf-init.log" >&2; return 1; }
      say "$source: init container $(cat "$plan/where") ran to completion"
      continue
    fi
    extra=()
    [ "$(cat "$plan/role")" = "jobs watch" ] && extra=(--env "KUBERNETES_MASTER=$mf_api")
    mf_run "$plan" "$name" "${extra[@]}"
    started+=("$plan:$name")
  done
  local entry
  for entry in "${started[@]}"; do mf_wait_ready "${entry%%:*}" "${entry#*:}" || ok=1; done
  if [ $ok = 0 ] && grep -qx collector "$work/mf/$source"/*/role; then
    pm run --rm "${run_flags[@]}" "$streams_image" testbed consume --bootstrap-servers "$bootstrap" \
      --topic rdma.port-samples --min 100000000 --timeout PT20S >"$work/mf-records.jsonl" 2>/dev/null || true
    local count
    count="$(grep -c "\"node\":\"$node\"" "$work/mf-records.jsonl" || true)"
    say "$source: $count records of node $node on rdma.port-samples, devices: $(grep -o "\"node\":\"$node\",\"device\":\"[^\"]*\"" \
      "$work/mf-records.jsonl" | sed 's/.*"device":"//; s/"//' | sort -u | tr '\n' ' ')"
    [ "$count" -gt 0 ] || ok=1
    mf_host_samples "$source" "$node" || ok=1
    mf_collector_once "$source" || ok=1
  fi
  for entry in "${started[@]}"; do pm rm -f -v -t 5 "${entry#*:}" >/dev/null 2>&1 || true; done
  return $ok
}

mf_setup() {
  # called as a condition (errexit is off): every step says when it fails
  mf_tools || return 1
  mf_sysfs mlx4 node-exporter-infiniband rdmamon-host && mf_sysfs erdma rdmamon-erdma rdmamon-host \
    && mf_sysfs mlx5 acs-pod-gu8tf && mkdir -p "$work/mf-pod-resources" "$work/mf-eadm" || return 1
  # eadm of the ACK example's hostDir: prints a rate line per second, as eadm stat -d DEVICE -l does
  printf '#!/bin/sh\nwhile true; do echo "rx: 1 MiB/s 10 p/s; tx: 3 KiB/s 20 p/s"; sleep 1; done\n' >"$work/mf-eadm/eadm"
  chmod 755 "$work/mf-eadm/eadm"
  declare -gA mf_ports=()
  local p
  for p in collector streams sink alerts jobs-watch; do mf_ports[$p]="$(free_port)"; done
  local api_port; api_port="$(free_port)"
  # java itself in the background, not a function: cleanup kills the process whose id is tracked
  java -cp "target/test-classes:target/classes:$(cat "$work/test-classpath")" io.rdmamon.deploy.FakeKubernetesApi \
    "$api_port" ct-node >"$work/mf-api.log" 2>&1 &
  track_pid $!
  mf_api="http://127.0.0.1:$api_port"
  wait_for 60 curl -sf "$mf_api/api/v1/nodes" || { cat "$work/mf-api.log" >&2; return 1; }
}
