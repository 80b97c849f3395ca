#!/usr/bin/env bash
# Unpacks Debian's iproute2 (ip, tc) and the libraries it links into testbed/nccl/.iproute2, for GPU machines
# that have no `ip` command: record.sh puts it on PATH and LD_LIBRARY_PATH there. Run it here, where apt works.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
rm -rf .iproute2 && mkdir -p .iproute2/debs
(cd .iproute2/debs && apt-get -o APT::Sandbox::User=root download iproute2 libbpf1 libelf1 libmnl0 libbsd0 libmd0 libcap2 libxtables12 zlib1g)
for deb in .iproute2/debs/*.deb; do dpkg -x "$deb" .iproute2/root; done
rm -rf .iproute2/debs
# plain files, no links: the tree may be copied to the GPU machine by a tool that keeps links as links
mkdir -p .iproute2/bin .iproute2/lib
cp -L .iproute2/root/bin/ip .iproute2/root/sbin/tc .iproute2/bin/
for lib in libbpf.so.1 libelf.so.1 libmnl.so.0 libbsd.so.0 libmd.so.0 libcap.so.2 libxtables.so.12 libz.so.1; do
  cp -L "$(find .iproute2/root -name "$lib" | head -n 1)" .iproute2/lib/
done
rm -rf .iproute2/root
echo "fetch-iproute2.sh: ip and tc in testbed/nccl/.iproute2/bin, their libraries in .iproute2/lib" >&2
