#!/usr/bin/env bash
# The .deb as a Debian user meets it (`make test-deb`): installed with apt into
# a clean bookworm root (debootstrap from the Debian archive), then that root
# booted with systemd as PID 1 (systemd-nspawn) for the service, upgrade,
# remove and purge checks (Tests/deb/in-container.sh). The upgrade installs
# the same package repacked as a higher version (VERSION+test1).
# Needs root, debootstrap and systemd-container; skips loudly without them
# (fails under FPRINT_REQUIRE_REAL=1). Usage: Tests/deb/install-test.sh DEB
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
deb=$(realpath "$1")
started=$SECONDS
step() { echo "test-deb: $*" >&2; }
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }
skip() {
    [ "${FPRINT_REQUIRE_REAL:-}" = 1 ] && fail "cannot run: $*"
    echo "test-deb: SKIPPED: $*" >&2; exit 0
}
[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, systemd-nspawn)"
command -v debootstrap >/dev/null || skip "no debootstrap (apt install debootstrap)"
command -v systemd-nspawn >/dev/null || skip "no systemd-nspawn (apt install systemd-container)"

# A clean root from the archive apt uses here, made once and kept as a tarball.
# fprint's own dependencies are in it, so installing the .deb needs no network.
cache=$repo/.build/deb-cache
base=$cache/bookworm-base.tar
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
if [ ! -s "$base" ]; then
    step "debootstrap bookworm from $mirror (once; kept in $base)"
    mkdir -p "$cache"
    rm -rf "$cache/root"
    debootstrap --variant=minbase --cache-dir="$cache" \
        --include=systemd,dbus,man-db,bash-completion,curl,libcurl4,adduser,libcap2-bin,procps,libsqlite3-0,libzstd1,passwd \
        bookworm "$cache/root" "$mirror" >"$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log" >&2; fail "debootstrap"; }
    tar -C "$cache/root" -cf "$base.new" . && mv "$base.new" "$base"
    rm -rf "$cache/root"
fi

work=$(mktemp -d /var/tmp/fprint-test-deb.XXXXXX)
root=$work/root
mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir "$root"
tar -C "$root" -xf "$base"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
mount_chroot() {
    mount -t proc proc "$root/proc" && mounted+=("$root/proc")
    mount --bind /dev "$root/dev" && mounted+=("$root/dev")
}
unmount_chroot() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}"; done
    mounted=()
}

step "apt install ./$(basename "$deb") (debconf: fprint/group-scan true)"
mount_chroot
cp "$deb" "$root/tmp/"
echo "fprint fprint/group-scan boolean true" | in_root debconf-set-selections
# A base made before a dependency was added fetches it from the archive.
in_root apt-get update -q >"$work/update.log" 2>&1 || { tail -10 "$work/update.log" >&2; fail "apt-get update"; }
in_root apt-get install -y -q "/tmp/$(basename "$deb")" >"$work/install.log" 2>&1 || { tail -30 "$work/install.log" >&2; fail "apt install"; }
version=$(in_root fprint --version)
[ "$(basename "$deb")" = "fprint_${version}_amd64.deb" ] || fail "fprint --version says $version"

step "man fprint-measure, bash completion, systemd-analyze verify"
man=$(in_root env MANWIDTH=80 man -P cat fprint-measure 2>&1) || fail "man fprint-measure: $man"
grep -q -- "--map" <<<"$man" || fail "man fprint-measure does not show --map: $(head -20 <<<"$man")"
grep -q "fprint measure" <<<"$man" || fail "man fprint-measure names no command"
in_root man -w fprint-gateway-serve >/dev/null || fail "no man page fprint-gateway-serve"
completion=$(in_root bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader fprint; complete -p fprint') \
    || fail "bash completion does not load"
grep -q "_fprint" <<<"$completion" || fail "bash completion: $completion"
in_root systemd-analyze verify /lib/systemd/system/fprint-gateway.service >"$work/verify.log" 2>&1 \
    || { cat "$work/verify.log" >&2; fail "systemd-analyze verify"; }

step "who may scan: /usr/lib/fprint/fprint-radio"
radio=$(in_root stat -c '%U:%G %a' /usr/lib/fprint/fprint-radio)  # names as the installed root has them
[ "$radio" = "root:fprint 750" ] || fail "fprint-radio is $radio, not root:fprint 750"
getcap "$root/usr/lib/fprint/fprint-radio" | grep -q "cap_net_admin,cap_net_raw=ep" || fail "fprint-radio has no capabilities"
[ "$(stat -c '%a' "$root/usr/bin/fprint")" = 755 ] || fail "/usr/bin/fprint is not 0755"
[ -z "$(getcap "$root/usr/bin/fprint")" ] || fail "/usr/bin/fprint holds capabilities"
in_root adduser --quiet --disabled-password --gecos "" alice >/dev/null
in_root adduser --quiet --disabled-password --gecos "" bob >/dev/null
in_root adduser --quiet alice fprint >/dev/null
# A user's own store, which nothing of the package may touch.
in_root runuser -u bob -- env HOME=/home/bob fprint measure --map J1NP --x 363 --y 701 --simulate --fast --duration 5 --seed 1 >/dev/null 2>&1 \
    || fail "bob's measure"
in_root runuser -u bob -- env HOME=/home/bob fprint config set measurement-seconds 30 >/dev/null 2>&1 || fail "bob's config set"
for f in /home/bob/.local/share/fprint/fprint.sqlite /home/bob/.config/fprint/settings.json; do
    [ -s "$root$f" ] || fail "no $f"
done
unmount_chroot

# The upgrade: this package as a higher version (fast to pack: not compressed).
upgrade=$work/upgrade
dpkg-deb -R "$deb" "$upgrade"
sed -i "s/^Version: .*/Version: ${version}+test1/" "$upgrade/DEBIAN/control"
dpkg-deb --root-owner-group -Znone --build "$upgrade" "$root/root/fprint_${version}+test1_amd64.deb" >/dev/null
rm -rf "$upgrade"

step "boot the root with systemd (nspawn): the service, reload, restart, the group's capabilities, upgrade, remove, purge"
install -m 0755 Tests/deb/in-container.sh "$root/root/in-container.sh"
cat >"$root/etc/systemd/system/fprint-deb-test.service" <<EOF
[Unit]
Description=fprint package test
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/bin/sh -c '/root/in-container.sh /root/fprint_${version}+test1_amd64.deb >/root/in-container.out 2>&1; echo "exit \$?" >>/root/in-container.out'
ExecStartPost=/bin/systemctl poweroff --no-block
[Install]
WantedBy=multi-user.target
EOF
ln -s /etc/systemd/system/fprint-deb-test.service "$root/etc/systemd/system/multi-user.target.wants/fprint-deb-test.service"
# Its own network (loopback only; no port taken on this machine).
timeout 300 systemd-nspawn -q -D "$root" -b --register=no --keep-unit --private-network --console=pipe \
    >"$work/nspawn.log" 2>&1 || true
[ -s "$root/root/in-container.out" ] || { tail -30 "$work/nspawn.log" >&2; fail "the container's test did not run"; }
sed 's/^/  /' "$root/root/in-container.out" >&2
tail -1 "$root/root/in-container.out" | grep -qx "exit 0" || fail "in the container (above)"
echo "test-deb: ok ($(basename "$deb"), $(du -k "$deb" | cut -f1) KiB) in $((SECONDS - started)) s" >&2
