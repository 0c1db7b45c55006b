#!/usr/bin/env bash
# Prints the directory of a Debian 12 root file system for the deploy tier, building it first when
# it is missing: minbase with systemd as init, PostgreSQL 15 with pg_partman and nginx, as an
# operator's fresh host has them before keeper is installed. Nothing of keeper's own dependencies
# is in it, so `apt-get install ./keeper_*.deb` in the container proves the package's Depends.
#
# The image is cached outside the clone (KEEPER_DEPLOY_CACHE, default /var/cache/keeper-deploy),
# under a name made from this recipe: a change of the package list (or of this file) builds a new
# one and removes the old. Runs as root; needs debootstrap and the Debian mirror.
set -euo pipefail

CACHE=${KEEPER_DEPLOY_CACHE:-/var/cache/keeper-deploy}
MIRROR=${KEEPER_DEPLOY_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
# What an operator's database-and-web host has before keeper: PostgreSQL 15 with pg_partman
# (docs/operations.md, "Configure"), nginx, node_exporter as a monitored host
# has it, and systemd booted as PID 1.
PACKAGES=systemd,systemd-sysv,dbus,ca-certificates,postgresql-15,postgresql-15-partman,nginx,prometheus-node-exporter

key=$( { cat "${BASH_SOURCE[0]}"; echo "$MIRROR $SUITE"; } | sha256sum | cut -c1-16)
image="$CACHE/image-$key"
if [ -f "$image/complete" ]; then
  printf '%s\n' "$image/root"
  exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
flock 9  # two runs at once build it once
if [ ! -f "$image/complete" ]; then
  rm -rf "$image" "$CACHE"/image-*.partial
  partial="$CACHE/image-$key.partial"
  mkdir -p "$partial"
  echo "deploy image: debootstrap $SUITE ($PACKAGES) into $partial" >&2
  debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$partial/root" "$MIRROR" >"$partial/debootstrap.log" 2>&1 ||
    { tail -n 20 "$partial/debootstrap.log" >&2; exit 1; }
  root="$partial/root"
  # The package lists, so apt in the container resolves keeper's Depends; the archives it fetches
  # are cleaned out again after each install.
  cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb http://deb.debian.org/debian-security $SUITE-security main
EOF
  chroot "$root" apt-get update -qq >/dev/null
  # A container has no console to log in on, nor hardware clocks or udev to wait for.
  for unit in console-getty.service getty.target systemd-timesyncd.service; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
  done
  echo keeper-deploy >"$root/etc/hostname"
  # The host's name resolution, for apt inside the container.
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  for old in "$CACHE"/image-*; do [ "$old" = "$partial" ] || rm -rf "$old"; done
  mv "$partial" "$image"
  du -sh "$image/root" | cut -f1 >"$image/size"
  touch "$image/complete"
fi
printf '%s\n' "$image/root"
