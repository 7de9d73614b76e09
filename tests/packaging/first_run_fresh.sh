#!/usr/bin/env bash
# The first run on a fresh machine, timed: a minimal Debian 12 root (debootstrap --variant=minbase:
# no compiler, no Python, nothing of ours), a clean clone of this checkout's HEAD in it, and the
# README's first command, `bash jobs/run_local.sh`, run inside it as root. run_local.sh's last
# line gives the wall time of each phase (packages, build, study, report); the figure of
# docs/PERFORMANCE.md "First run on a fresh machine" comes from here.
#
#   sudo bash tests/packaging/first_run_fresh.sh [ROOT_DIR] [MIRROR]
#     ROOT_DIR  where the fresh root goes (default /var/tmp/wordsens-fresh; removed first)
#     MIRROR    Debian mirror (default http://deb.debian.org/debian)
#
# Needs root, debootstrap and the network to the Debian archive; not part of ctest (it downloads
# about 250 MB and takes minutes). The minimal root is the slowest fresh machine there is: a
# cloud image already has Python and part of the toolchain, so its package phase is shorter.
set -euo pipefail
ROOT_DIR=${1:-/var/tmp/wordsens-fresh}
MIRROR=${2:-http://deb.debian.org/debian}
CHECKOUT=$(cd "$(dirname "$0")/../.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "first_run_fresh: needs root (debootstrap, chroot)" >&2
  exit 2
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  echo "first_run_fresh: needs debootstrap (apt-get install debootstrap)" >&2
  exit 2
fi

unmount_all() {
  for m in dev/pts dev proc sys; do
    if mountpoint -q "$ROOT_DIR/$m"; then umount "$ROOT_DIR/$m"; fi
  done
}
trap unmount_all EXIT

unmount_all
rm -rf "$ROOT_DIR"
debootstrap --variant=minbase bookworm "$ROOT_DIR" "$MIRROR" >"$ROOT_DIR.debootstrap.log" 2>&1 || {
  echo "first_run_fresh: debootstrap failed; see $ROOT_DIR.debootstrap.log" >&2
  exit 1
}
for m in proc sys dev dev/pts; do mount --bind "/$m" "$ROOT_DIR/$m"; done
cp /etc/resolv.conf "$ROOT_DIR/etc/resolv.conf"
# The user cloned the repository, so their machine has git: the root gets it before the clock
# starts (untimed), and the clone is made from outside (this checkout is not inside the root).
chroot "$ROOT_DIR" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  /bin/bash -c 'apt-get update -q && apt-get install -y -q --no-install-recommends git' \
  >"$ROOT_DIR.git.log" 2>&1 || {
  echo "first_run_fresh: installing git in the root failed; see $ROOT_DIR.git.log" >&2
  exit 1
}
git clone -q "$CHECKOUT" "$ROOT_DIR/root/wordsens"

echo "first_run_fresh: bash jobs/run_local.sh in a fresh bookworm root ($(nproc) cores)"
chroot "$ROOT_DIR" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c 'cd /root/wordsens && time bash jobs/run_local.sh' 2>&1 | tee "$ROOT_DIR.run.log" |
  grep -E '^(install_deps|run_local|real)' || true
grep -q '^run_local: wall time' "$ROOT_DIR.run.log" || {
  echo "first_run_fresh: the run did not finish; see $ROOT_DIR.run.log" >&2
  exit 1
}
