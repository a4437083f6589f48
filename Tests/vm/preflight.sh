# Sourced by Tests/vm/run.sh and Tests/vm/wifi/run.sh: fail fast, with the install
# command, when a host tool the VM tests need is missing. Without this a missing
# piece shows up only as "the guest script did not finish" (vng's own message is
# easy to miss), e.g. virtme-ng refuses to boot without a *statically linked*
# busybox (Debian's busybox-static; the plain busybox package is dynamic).
# Usage: vm_preflight TOOL... (extra tools the guest script runs, besides the VM itself)
vm_preflight() {
    local missing=() apt=() t b found=""
    local path="$PATH:/usr/sbin:/sbin"
    PATH="$path" command -v vng >/dev/null || missing+=("vng (pip install virtme-ng)")
    PATH="$path" command -v qemu-system-x86_64 >/dev/null || apt+=(qemu-system-x86)
    ls /boot/vmlinuz-* >/dev/null 2>&1 || apt+=(linux-image-amd64)
    # virtme-ng takes the first of these it finds and needs it statically linked.
    for b in busybox-static busybox.static busybox; do
        found=$(PATH="$path" command -v "$b") && break
    done
    # (ldd exits 1 on a static binary: read its output, not its status; run.sh has pipefail.)
    local lddout=""
    [ -n "$found" ] && lddout=$(LC_ALL=C ldd "$found" 2>&1 || true)
    case "$lddout" in
        *"not a dynamic executable"*|*"statically linked"*) ;;
        *) apt+=(busybox-static) ;;
    esac
    for t in "$@"; do
        PATH="$path" command -v "${t%%:*}" >/dev/null || apt+=("${t#*:}")
    done
    if [ ${#apt[@]} -gt 0 ]; then
        missing+=("apt-get install -y $(printf '%s\n' "${apt[@]}" | sort -u | tr '\n' ' ')")
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        echo "VM test: missing host tools; install them with:" >&2
        printf '  %s\n' "${missing[@]}" >&2
        exit 2
    fi
}
