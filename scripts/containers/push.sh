# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# scripts/push-images against a local registry (Debian's docker-registry, plain HTTP on loopback): both images are
# built through the script (the image builds above are cached, so only the tags are new) and pushed; the registry
# then lists their tags.

push_images_to_local_registry() {
  local port dir="$work/registry" image tags
  port="$(free_port)"
  mkdir -p "$dir/data"
  printf 'version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:%s\n' \
    "$dir/data" "$port" >"$dir/config.yml"
  docker-registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 &
  track_pid $!
  wait_for 30 curl -sf "http://127.0.0.1:$port/v2/" || { cat "$dir/registry.log" >&2; return 1; }
  local registry="127.0.0.1:$port/rdmamon"
  scripts/push-images --registry "$registry" --tag "$tag" --tool podman --insecure \
    --build-arg "BUILD_IMAGE=$maven_image" --build-arg "RUNTIME_IMAGE=$jre_image" --build-flag=--network=host \
    --build-flag="--volume=$HOME/.m2/repository:/root/.m2/repository:ro" \
    --build-flag="--volume=$work/m2-settings.xml:/root/.m2/settings.xml:ro" >"$work/push-images.log" 2>&1 \
    || { tail -20 "$work/push-images.log" >&2; return 1; }
  grep '^push-images:' "$work/push-images.log" >&2
  for image in rdmamon-collector rdmamon-streams; do
    tags="$(curl -sf "http://127.0.0.1:$port/v2/rdmamon/$image/tags/list")"
    grep -q "\"$tag\"" <<<"$tags" || { say "the registry does not list $image:$tag: $tags"; return 1; }
    say "registry 127.0.0.1:$port lists rdmamon/$image:$tag"
    pm rmi "$registry/$image:$tag" >/dev/null 2>&1 || true   # the tag only: the image stays as $collector_image etc.
  done
}
