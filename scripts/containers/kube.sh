# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# Kubernetes manifests with 'podman kube play'

# podman 4.3 plays Pod, Deployment and PersistentVolumeClaim (ConfigMaps through --configmap); every other kind of
# deploy/kubernetes is reported as skipped, and so is the jobs watcher's Deployment (it needs an API server).
#
# The sink's Deployment is played with one change, restartPolicy: OnFailure in its pod template. podman 4.3.1 gives
# init containers the pod's restart policy, which a Deployment leaves at Always: once 'influx init' has exited 0,
# podman restarts it, and its removal of the finished 'once' init container then races with that restart and often
# fails ("failed to remove once init container ...: cannot remove container ... as it is running"; 2 of 3 plays
# here). containers/podman#18481 (merged May 2023, after 4.3) gives init containers the restart policy "no". With
# OnFailure the init container runs once, as in Kubernetes. Kubernetes itself accepts only Always for a Deployment,
# so the manifests keep it. (The annotation io.podman.annotations.init.container.type would not help: podman 4.3
# reads it from the Deployment's own metadata only, and its "always" type restarts the init container just the same.)

# A copy of the manifests for this machine: the site addresses of the ConfigMap point at this script's servers (the
# first broker, whose rdma.alerts holds the hang's STALLED_SYNC, a fresh Alertmanager, the database rdmamon_kube),
# the sink and alerts consume in groups of their own, the metrics ports are free loopback ports, the images the local
# builds. Container ports and the readiness probe on them go: with the host network, podman refuses port mappings.
kube_copy() {
  local dir="$work/kube"
  mkdir -p "$dir"
  cp deploy/kubernetes/*.yaml "$dir/"
  # keys added after the last line of sink.properties and of alerts.properties (\n: a new line in sed's replacement)
  local sink_keys="    kafka.group.id=rdmamon-sink-kube\\n    metrics.port=$(free_port)\\n    metrics.bind.address=127.0.0.1"
  local alerts_keys="    kafka.group.id=rdmamon-alerts-kube\\n    metrics.port=$(free_port)\\n    metrics.bind.address=127.0.0.1"
  sed -i -e "s#kafka:9092#$bootstrap#" -e "s#http://influxdb:8086#$influx_url#" \
    -e "s#http://alertmanager:9093#$alertmanager_url#" -e "s#^    influx.database=.*#    influx.database=rdmamon_kube#" \
    -e "s#^    influx.rollup.retention.duration=.*#&\\n$sink_keys#" -e "s#^    alerts.generator.url=.*#&\\n$alerts_keys#" \
    "$dir/configmap.yaml"
  sed -i -e "s#image: rdmamon-streams:.*#image: $streams_image#" -e "s#image: rdmamon-collector:.*#image: $collector_image#" \
    -e '/^          ports:$/{N;d}' -e '/^          readinessProbe:$/{N;N;d}' "$dir"/*.yaml
  sed -i 's#^      automountServiceAccountToken: false$#      restartPolicy: OnFailure\n&#' "$dir/sink-deployment.yaml"
  grep -q 'restartPolicy: OnFailure' "$dir/sink-deployment.yaml" \
    || { say "kube copy: the sink's pod template is not as expected"; return 1; }
}

# The kinds and names of a manifest file's documents, one "Kind name" a line.
kube_objects() {
  awk '/^kind: / { kind = $2 } /^  name: / && kind != "" { print kind, $2; kind = "" }' "$1"
}

report_kube_skips() {
  local file kind name version
  version="$(podman version --format '{{.Client.Version}}')"
  for file in deploy/kubernetes/*.yaml; do
    while read -r kind name; do
      case "$kind" in
        ConfigMap) ;;
        Deployment) case "$name" in
          rdmamon-alerts|rdmamon-sink) ;;
          *) skip "kube play $kind/$name" "needs a Kubernetes API server (pods watch); the manifests check starts \
its container as written, with a stand-in API server";;
        esac;;
        DaemonSet|StatefulSet) skip "kube play $kind/$name" "podman kube play $version does not play kind $kind; the \
manifests check starts its container as written";;
        *) skip "kube play $kind/$name" "podman kube play $version does not play kind $kind";;
      esac
    done < <(kube_objects "$file")
  done
  # deploy/acs (issue 38): its jobs are PyTorchJobs, a custom resource, and the collector sidecar takes POD_NAMESPACE
  # and NODE_NAME from the downward API fields metadata.namespace and spec.nodeName, which podman 4.3.1's kube play
  # refuses ("fieldPath metadata.namespace is either not valid or not supported"). A Pod made by hand of the GU8TF
  # master's sidecar, those two given as plain values, plays and runs (docs/acs.md, "podman kube play").
  skip "kube play deploy/acs" "PyTorchJob is not a kind podman kube play $version plays, and it refuses the downward \
API fields metadata.namespace and spec.nodeName of the collector sidecar"
}

# The sink and alerts Deployments with the ConfigMap: each pod runs as uid 10001 with a read-only root and serves its
# metrics; the sink's init container creates rdmamon_kube; the two read the hang's STALLED_SYNC from rdma.alerts and
# deliver it to Alertmanager and InfluxDB.
kube_play_deployments() {
  start_alertmanager kube && kube_copy || return 1
  local dir="$work/kube" file pod container metrics_port
  # the volumes before the play ('-' keeps the list non-empty for grep -f in cleanup)
  { echo -; podman volume ls -q; } >"$work/volumes-before-kube"
  for file in sink-deployment.yaml alerts-deployment.yaml; do
    echo "$dir/$file" >>"$work/kube-played"
    pm kube play --network host --configmap "$dir/configmap.yaml" "$dir/$file" >"$work/kube-$file.log" 2>&1 \
      || { cat "$work/kube-$file.log" >&2; return 1; }
  done
  for pod in sink alerts; do
    container="rdmamon-$pod-pod-0-$pod"
    metrics_port="$(awk -v role="$pod.properties" '$1 == role":" { in_role = 1; next } /^  [a-z]/ { in_role = 0 }
      in_role && /metrics.port=/ { sub(/.*=/, ""); print }' "$dir/configmap.yaml")"
    wait_for 300 curl -sf "http://127.0.0.1:$metrics_port/metrics" \
      || { say "$container serves no metrics on $metrics_port"; podman logs "$container" 2>&1 | tail -20 >&2; return 1; }
    [ "$(pm exec "$container" id -u)" = 10001 ] || { say "$container does not run as uid 10001"; return 1; }
    if pm exec "$container" touch /opt/rdmamon/written 2>/dev/null; then say "$container: root is writable"; return 1; fi
    say "kube play: $container runs (uid 10001, read-only root, metrics on 127.0.0.1:$metrics_port)"
  done
  local ok=0
  wait_for 300 alert_in_alertmanager && say "kube play: STALLED_SYNC llama-pretrain is active in Alertmanager" || ok=1
  wait_for 180 alert_in_influx rdmamon_kube && say "kube play: STALLED_SYNC is in InfluxDB database rdmamon_kube" || ok=1
  if [ $ok -ne 0 ]; then
    say "kube play: the alert comes from rdma.alerts of the first broker, which holds it once the hang check passed"
    for pod in sink alerts; do say "--- kube $pod log"; podman logs "rdmamon-$pod-pod-0-$pod" 2>&1 | tail -10 >&2; done
  fi
  return $ok
}
