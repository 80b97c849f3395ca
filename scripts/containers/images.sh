# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# The images: the local Debian base and stand-ins for the public ones, the Maven repository for the builds, and
# rdmamon's two images from their Dockerfiles (non-root, class-data archive that maps).

# The debootstrapped Debian base, imported once; the root filesystem's tarball is cached for the next podman store.
ensure_base() {
  pm image exists "$base_image" && return 0
  local tarball="$cache/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    say "debootstrapping Debian bookworm (minbase) into $cache, once (about a minute)"
    mkdir -p "$cache"
    rm -rf "$cache/rootfs.tmp"
    debootstrap --variant=minbase bookworm "$cache/rootfs.tmp" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
      || { tail -20 "$work/debootstrap.log" >&2; return 1; }
    tar -C "$cache/rootfs.tmp" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$cache/rootfs.tmp"
  fi
  pm import "$tarball" "$base_image" >/dev/null
}

# podman can run a container on this machine (runc, host network, explicit limits)
can_run_containers() {
  pm run --rm "${run_flags[@]}" "$base_image" true >"$work/smoke.log" 2>&1 || { cat "$work/smoke.log" >&2; return 1; }
}

build() {
  local file=$1 image=$2 context=$3; shift 3
  say "building $image from $file"
  # nice: the machine's cores are shared with other builds
  nice podman --runtime runc build --network host --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$@" \
    -f "$file" -t "$image" "$context" \
    >"$work/build-$(basename "$image" | tr ':/' '__').log" 2>&1 \
    || { tail -30 "$work/build-$(basename "$image" | tr ':/' '__').log" >&2; return 1; }
}

# Stand-ins for eclipse-temurin:17-jre and maven:3.9-eclipse-temurin-17, built once on the local base and kept
# in podman's image store.
build_stand_ins() {
  pm image exists "$jre_image" || build scripts/containers/jre.Containerfile "$jre_image" scripts/containers
  pm image exists "$maven_image" || build scripts/containers/maven.Containerfile "$maven_image" scripts/containers
}

# The project's Dockerfiles as they are, with the base images swapped by build argument. The Maven build inside runs
# offline on the host's local repository (mounted read-only), which 'mvn dependency:resolve dependency:resolve-plugins'
# fills first: this machine reaches Maven Central only through the host's trust store.
# Resolving takes 15-20 s even when nothing is missing, so it is skipped while pom.xml is the one last resolved
# (its hash is kept in the cache folder).
prepare_maven_repository() {
  printf '<settings><offline>true</offline></settings>\n' >"$work/m2-settings.xml"
  local stamp="$cache/m2-resolved-pom.sha256" hash
  hash="$(sha256sum pom.xml | cut -d' ' -f1)"
  if [ -d "$HOME/.m2/repository" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
    say "pom.xml unchanged since its dependencies were resolved into ~/.m2 (remove $stamp to resolve again)"
    return 0
  fi
  mvn -q -B dependency:resolve dependency:resolve-plugins >"$work/mvn-resolve.log" 2>&1 \
    || { tail -20 "$work/mvn-resolve.log" >&2; return 1; }
  echo "$hash" >"$stamp"
}

rdmamon_build_args() {
  echo --build-arg "BUILD_IMAGE=$maven_image" --build-arg "RUNTIME_IMAGE=$jre_image" \
    -v "$HOME/.m2/repository:/root/.m2/repository:ro" -v "$work/m2-settings.xml:/root/.m2/settings.xml:ro"
}

build_streams_image() {
  # shellcheck disable=SC2046
  build streams/Dockerfile "$streams_image" . $(rdmamon_build_args)
  image_runs_as_non_root "$streams_image"
  image_maps_class_archive "$streams_image" server
}

build_collector_image() {
  # shellcheck disable=SC2046
  build collector/Dockerfile "$collector_image" . $(rdmamon_build_args)
  image_runs_as_non_root "$collector_image"
  image_maps_class_archive "$collector_image" collector
}

# The image's class-data archive is valid for its ENTRYPOINT's class path: the JVM would otherwise ignore it silently
# and only start slower. -Xshare:on makes a mismatch fail.
image_maps_class_archive() {
  local image=$1 name=$2 out
  out="$(pm run --rm "${run_flags[@]}" --entrypoint java "$image" -Xshare:on \
    -XX:SharedArchiveFile="/opt/rdmamon/$name.jsa" -cp '/opt/rdmamon/rdmamon.jar:/opt/rdmamon/lib/*' -version 2>&1)" \
    || { say "$image: the JVM cannot map /opt/rdmamon/$name.jsa: $out"; return 1; }
}

image_runs_as_non_root() {
  local user
  user="$(pm image inspect --format '{{.Config.User}}' "$1")"
  [ "$user" = "10001" ] || { say "$1 runs as '$user', expected 10001"; return 1; }
}
