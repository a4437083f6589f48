#!/usr/bin/env bash
# Builds fprint_VERSION_amd64.deb from the release binary (`make deb`):
# the binary and its scanning copy, Config/ and Scenarios/, completions, man
# pages made by swift-argument-parser's generate-manual from the binary's own
# command tree, the docs, a copyright file made from the binary's symbols, the
# gateway's systemd unit and settings, and debconf's question. Depends come
# from dpkg-shlibdeps. Usage: packaging/build-deb.sh RELEASE_BINARY OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
binary=$1
out=${2:-$repo}
fail() { echo "build-deb: $*" >&2; exit 1; }
[ -x "$binary" ] || fail "$binary: no release binary (make release)"

version=$("$binary" --version)
[[ $version =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || fail "$binary --version printed '$version', not a version"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
# Everything made here carries the last commit's time (reproducible builds).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)

install -d "$root/usr/bin" "$root/usr/lib/fprint" "$root/usr/share/fprint" "$root/usr/share/man/man1" \
    "$root/usr/share/doc/fprint" "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d" "$root/lib/systemd/system" "$root/etc/fprint" \
    "$root/usr/share/lintian/overrides" "$root/DEBIAN"

# Symbols go (about two thirds of the file); copyright.py reads them first.
python3 packaging/copyright.py "$binary" .build/checkouts >"$root/usr/share/doc/fprint/copyright"
install -m 0755 "$binary" "$root/usr/bin/fprint"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/fprint"
# The part that scans for members of the fprint group (postinst gives it
# CAP_NET_RAW and CAP_NET_ADMIN): its own inode, so the capabilities are its only.
install -m 0755 "$root/usr/bin/fprint" "$root/usr/lib/fprint/fprint-radio"
cp -R Config Scenarios "$root/usr/share/fprint/"

# Sourced, never run: no #! line (lintian's bash-completion-with-hashbang).
"$root/usr/bin/fprint" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/fprint"
"$root/usr/bin/fprint" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_fprint"
"$root/usr/bin/fprint" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/fprint.fish"

# Man pages: argument-parser's own generator, built from the checkout the
# release build resolved, reads `fprint --experimental-dump-help`. Its pages
# are named fprint.gateway.serve.1; Debian's (and git's) way is fprint-gateway-serve.
manual_tool=.build/manual-tool/release/generate-manual
if [ ! -x "$manual_tool" ]; then
    swift build -c release --package-path .build/checkouts/swift-argument-parser --scratch-path .build/manual-tool \
        --product generate-manual >"$work/manual-tool.log" 2>&1 || { tail -20 "$work/manual-tool.log" >&2; fail "generate-manual did not build"; }
fi
install -d "$work/man"
"$manual_tool" "$root/usr/bin/fprint" --multi-page --date "$day" --output-directory "$work/man" \
    --authors "fprint maintainers<maintainers@users.noreply.a-seed-2be41405.example>"
for page in "$work"/man/*.1; do
    name=$(basename "$page" .1)
    dashed=${name//./-}
    # Titles and cross references only (the pages' text may say fprint.sqlite);
    # NAME says fprint-measure, as whatis and `man fprint-measure` want, and the
    # synopsis keeps the command as typed; an empty line (mdoc warns) is .Pp.
    command=${name//./ }
    sed -e '/^\.\(Dt\|Xr\) /s/\([A-Za-z]\)\.\([A-Za-z]\)/\1-\2/g' -e 's/^$/.Pp/' \
        -e "s/^\.Nm \"$command\"\$/.Nm $dashed/" -e "/^\.Sh SYNOPSIS/,/^\.Sh /s/^\.Nm\$/.Nm \"$command\"/" \
        "$page" >"$work/man/$dashed.page"
    gzip -9n <"$work/man/$dashed.page" >"$root/usr/share/man/man1/$dashed.1.gz"
done
[ -s "$root/usr/share/man/man1/fprint-measure.1.gz" ] || fail "no man page for fprint measure"

cp README.md "$root/usr/share/doc/fprint/"
cp -R docs "$root/usr/share/doc/fprint/docs"
printf 'fprint (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' "$version" \
    "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "fprint maintainers <maintainers@users.noreply.a-seed-2be41405.example>" \
    "$(date -u -R -d "@$SOURCE_DATE_EPOCH")" | gzip -9n >"$root/usr/share/doc/fprint/changelog.gz"

install -m 0644 packaging/fprint-gateway.service "$root/lib/systemd/system/fprint-gateway.service"
install -m 0644 packaging/gateway.conf "$root/etc/fprint/gateway.conf"
install -m 0644 packaging/lintian-overrides "$root/usr/share/lintian/overrides/fprint"
install -m 0755 packaging/postinst packaging/prerm packaging/postrm packaging/config "$root/DEBIAN/"
install -m 0644 packaging/templates "$root/DEBIAN/templates"
echo /etc/fprint/gateway.conf >"$root/DEBIAN/conffiles"
chmod 0644 "$root/DEBIAN/conffiles"

# Depends from the binary's own needs (libcurl is dlopened: named in control.in).
install -d "$work/shlibs/debian"
printf 'Source: fprint\n\nPackage: fprint\nArchitecture: amd64\n' >"$work/shlibs/debian/control"
shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O -e"$root/usr/bin/fprint" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || fail "dpkg-shlibdeps found no dependency of $root/usr/bin/fprint"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" -e "s/@SHLIBS@/$shlibs/" packaging/control.in >"$root/DEBIAN/control"

find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
find "$root" -type d -exec chmod 0755 {} +
find "$root/usr/share" "$root/etc" "$root/lib" -type f -exec chmod 0644 {} +
deb=$out/fprint_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
