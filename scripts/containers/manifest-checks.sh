# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# The checks of the manifests' containers (scripts/containers/manifests.sh plans and starts them): deploy/kubernetes
# and the chart's defaults, each example values file, the collector's --config clash caught, and what the collectors
# publish (host samples of the default route's interface, collector --once in the collector's container).

# collector.host.interfaces=auto: where this machine's default-route interface (the collector reads /proc/1/net/route,
# the host's through hostPID) is in the fixture tree, its samples must be on rdma.host-samples.
mf_host_samples() {
  local source=$1 node=$2 iface sysfs
  iface="$(awk '$2 == "00000000" { print $1; exit }' /proc/1/net/route)"
  sysfs="$(sed -n 's#^--volume=\(.*\):/host/sys:ro$#\1#p' "$work/mf/$source"/*/args | head -1)"
  if [ -z "$iface" ] || [ ! -e "$sysfs/class/net/$iface" ]; then
    say "$source: host interfaces auto: this machine's default route (${iface:-none}) is not in the fixture tree: not checked"
    return 0
  fi
  pm run --rm "${run_flags[@]}" "$streams_image" testbed consume --bootstrap-servers "$bootstrap" \
    --topic rdma.host-samples --min 100000000 --timeout PT15S >"$work/mf-host.jsonl" 2>/dev/null || true
  grep -q "\"node\":\"$node\",\"iface\":\"$iface\"" "$work/mf-host.jsonl" \
    || { say "$source: no host sample of $iface (the default route's) from $node"; return 1; }
  say "$source: host interfaces auto: samples of $iface, the default route's interface, on rdma.host-samples"
}

# The checks (containers-test runs each through check, after mf_setup)

manifests_plain_and_chart_defaults() {
  mf_plan plain ct-plain mlx4
  mf_plan chart-defaults ct-plain mlx4 --chart
  diff <(cat "$work/mf/plain"/*/fingerprint) <(cat "$work/mf/chart-defaults"/*/fingerprint) >/dev/null \
    || { say "the chart rendered with its defaults starts other containers than deploy/kubernetes"; return 1; }
  say "chart with default values: the same $(ls "$work/mf/plain" | wc -l) containers as deploy/kubernetes (arguments and files)"
  mf_run_source plain ct-plain
}

manifests_example() {
  local values=$1 node=$2 sysfs=$3 source
  source="$(basename "$values" .yaml)"
  mf_plan "$source" "$node" "$sysfs" --chart --values "$values"
  mf_run_source "$source" "$node"
}
manifests_ack_erdma() { manifests_example deploy/helm/rdmamon/examples/ack-erdma.yaml ct-ack erdma; }
manifests_volcano_mlx5() { manifests_example deploy/helm/rdmamon/examples/volcano-mlx5.yaml ct-volcano mlx5; }

# The collector DaemonSet's args under the image's old ENTRYPOINT, which ended in --config: the collector refuses the
# second --config and exits 2, and mf_wait_ready reports it. This is what the checks above would show if it came back.
manifests_config_clash_is_caught() {
  local plan name="rdmamon-ct-mf-$$-clash" old
  plan="$(grep -lx collector "$work/mf/plain"/*/role | head -1)"; plan="${plan%/role}"
  old="$(podman image inspect --format '{{json .Config.Entrypoint}}' "$collector_image" \
    | sed 's#\]$#,"--config","/etc/rdmamon/collector.properties"]#')"
  say "the old ENTRYPOINT: $old, then the DaemonSet's args: $(sed -n '/^localhost/,$p' "$plan/args" | tail -n +2 | tr '\n' ' ')"
  if mf_run "$plan" "$name" --entrypoint "$old" && mf_wait_ready "$plan" "$name" 2>"$work/mf-clash.log"; then
    say "the collector started with two --config options"; pm rm -f "$name" >/dev/null; return 1
  fi
  cat "$work/mf-clash.log" >&2
  local code log
  code="$(podman inspect --format '{{.State.ExitCode}}' "$name")"
  log="$(podman logs "$name" 2>&1)"   # not piped into grep -q: podman logs would die of SIGPIPE (pipefail)
  grep -q "should be specified only once" <<<"$log" && [ "$code" = 2 ] \
    || { say "expected exit 2 and 'should be specified only once', got exit $code"; return 1; }
  pm rm -f "$name" >/dev/null
  say "caught: exit 2, \"option '--config' should be specified only once\" (the check above would FAIL)"
}

# docs/quickstart-kubernetes.md's check inside the collector's pod (kubectl exec ds/rdmamon-collector -- ...): what the
# collector reads, printed as the records it would publish, without Kafka
mf_collector_once() {
  local name
  name="$(podman ps --format '{{.Names}}' --filter "label=$label" | grep -- "-rdmamon-collector-collector$" | head -1)"
  pm exec "$name" java -cp '/opt/rdmamon/rdmamon.jar:/opt/rdmamon/lib/*' io.rdmamon.collector.CollectorMain --once \
    --config /etc/rdmamon/site/collector.properties >"$work/mf-once.jsonl" 2>"$work/mf-once.log" \
    || { say "$1: collector --once in the collector's container failed:"; tail -5 "$work/mf-once.log" >&2; return 1; }
  grep -q '"device":' "$work/mf-once.jsonl" || { say "$1: collector --once printed no port record"; return 1; }
  say "$1: collector --once in the collector's container: $(grep -c '"device":' "$work/mf-once.jsonl") port records"
}
