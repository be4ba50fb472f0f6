#!/bin/sh
# debian-chroot.sh: Debian chroots for testing meterscope against the
# Wireshark of other Debian releases (bookworm 4.0, trixie 4.4, sid 4.6).
#
#   debian-chroot.sh base SUITE        make (once) the cached minbase tarball
#   debian-chroot.sh build SUITE       print the cached build chroot's path,
#                                      made from the base with install-deps.sh --tests
#   debian-chroot.sh clean SUITE DIR   unpack a pristine copy of the base in DIR
#   debian-chroot.sh run DIR CMD...    run CMD inside DIR with /proc, /sys,
#                                      /dev mounted and the host's DNS; the
#                                      mounts go when CMD ends, however it ends
#
# The cache lives in $METERSCOPE_CHROOT_CACHE (default
# /var/cache/meterscope-chroots); delete it to start over. Needs root and
# debootstrap. The mirror is the one the host's apt uses.
set -eu
cache=${METERSCOPE_CHROOT_CACHE:-/var/cache/meterscope-chroots}
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "debian-chroot: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"

host_mirror() {
    # The first non-security archive the host's apt reads, deb822 or one-line.
    # Either kind of file may be missing (a glob that matches nothing makes
    # sed fail, which set -e would end the lookup at): each read may fail.
    { sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null || true
      sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' \
          /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true
    } | tr ' ' '\n' | grep -v -e security -e '^$' | head -n 1
}

make_base() {
    suite=$1
    tar="$cache/base-$suite.tar"
    [ -f "$tar" ] && return 0
    command -v debootstrap >/dev/null || die "debootstrap not found: apt-get install debootstrap"
    mirror=$(host_mirror)
    [ -n "$mirror" ] || die "no Debian mirror in the host's apt sources"
    mkdir -p "$cache"
    tmp=$(mktemp -d "$cache/.debootstrap-$suite.XXXXXX")
    trap 'rm -rf --one-file-system "$tmp"' EXIT INT TERM
    echo "debian-chroot: debootstrap $suite from $mirror" >&2
    # Once more on a failure: a mirror may drop a download now and then.
    debootstrap --variant=minbase "$suite" "$tmp/root" "$mirror" >"$tmp/log" 2>&1 ||
        { rm -rf --one-file-system "$tmp/root" &&
          debootstrap --variant=minbase "$suite" "$tmp/root" "$mirror" >"$tmp/log" 2>&1; } ||
        { tail -n 20 "$tmp/log" >&2; die "debootstrap $suite failed"; }
    # A development suite's Release file may be past its Valid-Until date
    # on a mirror that is not refreshed; apt would then refuse it.
    echo 'Acquire::Check-Valid-Until "false";' >"$tmp/root/etc/apt/apt.conf.d/99no-valid-until"
    echo 'Acquire::Retries "3";' >"$tmp/root/etc/apt/apt.conf.d/99retries"
    tar -C "$tmp/root" -cf "$tmp/base.tar" .
    mv "$tmp/base.tar" "$tar"
    rm -rf --one-file-system "$tmp"
    trap - EXIT INT TERM
}

unpack() {
    make_base "$1"
    mkdir -p "$2"
    tar -C "$2" -xf "$cache/base-$1.tar"
}

run_in() {
    dir=$1
    shift
    [ -d "$dir/etc" ] || die "$dir is not a chroot"
    cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    mounted=""
    cleanup() {
        for m in $mounted; do umount -l "$dir/$m" 2>/dev/null || true; done
    }
    trap cleanup EXIT
    trap 'cleanup; exit 130' INT
    trap 'cleanup; exit 143' TERM
    for m in proc sys dev dev/pts; do
        mkdir -p "$dir/$m"
        # A run that was killed may have left its mount behind.
        while mountpoint -q "$dir/$m"; do umount -l "$dir/$m"; done
        mount --bind "/$m" "$dir/$m"
        mounted="$m $mounted"
    done
    rc=0
    chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
        CI="${CI:-}" "$@" || rc=$?
    cleanup
    trap - EXIT INT TERM
    return $rc
}

build_chroot() {
    suite=$1
    dir="$cache/build-$suite"
    if [ ! -f "$dir/.meterscope-ready" ]; then
        rm -rf --one-file-system "$dir"
        unpack "$suite" "$dir"
        touch "$dir/.meterscope-ready"
    fi
    # install-deps.sh is quick when nothing is missing, so the cached chroot
    # follows the package list without being made again.
    cp "$here/install-deps.sh" "$dir/root/install-deps.sh"
    run_in "$dir" sh /root/install-deps.sh --tests >&2
    echo "$dir"
}

[ $# -ge 2 ] || die "usage: debian-chroot.sh base|build SUITE | clean SUITE DIR | run DIR CMD..."
cmd=$1
shift
case $cmd in
    base)  make_base "$1" ;;
    build) build_chroot "$1" ;;
    clean) [ $# = 2 ] || die "usage: debian-chroot.sh clean SUITE DIR"; unpack "$1" "$2" ;;
    run)   run_in "$@" ;;
    *)     die "unknown command $cmd" ;;
esac
