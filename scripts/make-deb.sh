#!/usr/bin/env bash
# Builds the Debian package of castscope with dpkg-deb: the binary, the man page and the
# bash, zsh and fish completions under /usr (as `make install PREFIX=/usr` lays them out).
# Depends: the package (dpkg -S) of every library the binary names (readelf -d: NEEDED), found
# where `ldd` resolves it; libpcap0.8 among them. Their own dependencies are theirs to declare.
#
# Usage: scripts/make-deb.sh BINARY OUTDIR   (`make deb` passes the static release build)
# Prints the path of the .deb.
set -euo pipefail
bin=$1
out=$2
cd "$(dirname "$0")/.."
version=$("$bin" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
stage=$(mktemp -d "${TMPDIR:-/tmp}/castscope-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT

make --no-print-directory install DESTDIR="$stage/root" PREFIX=/usr >/dev/null

# The package owning each library the binary needs (the dynamic loader itself included).
depends=()
resolved=$(ldd "$bin")
while read -r name; do
    lib=$(awk -v n="$name" '$1 == n && $3 ~ /^\// { print $3 } $1 ~ "/" n "$" { print $1 }' <<<"$resolved" | head -n1)
    [[ -n $lib ]] || { echo "make-deb: ldd does not resolve $name" >&2; exit 1; }
    pkg=""
    for path in "$lib" "$(readlink -f "$lib")" "${lib/#\/usr\/lib/\/lib}" "${lib/#\/lib/\/usr\/lib}"; do
        pkg=$(dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1) && [[ -n $pkg ]] && break
    done
    [[ -n $pkg ]] || { echo "make-deb: no Debian package owns $lib" >&2; exit 1; }
    depends+=("$pkg")
done < <(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
depends_line=$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, | sed 's/,/, /g')
[[ $depends_line == *libpcap0.8* ]] || { echo "make-deb: libpcap0.8 not among the dependencies" >&2; exit 1; }

mkdir -p "$stage/root/DEBIAN" "$stage/root/usr/share/doc/castscope"
cp README.md "$stage/root/usr/share/doc/castscope/README.md"
size=$(du -sk "$stage/root/usr" | cut -f1)
cat >"$stage/root/DEBIAN/control" <<CONTROL
Package: castscope
Version: $version
Architecture: $arch
Maintainer: CastScope developers <castscope@localhost>
Installed-Size: $size
Depends: $depends_line
Section: net
Priority: optional
Description: why doesn't my Cast button find the TV?
 Reads packet captures (pcap or pcapng from tcpdump, Wireshark, rvictl, PCAPdroid), decodes
 Google Cast discovery traffic (mDNS and SSDP/DIAL) and reports which receivers were visible,
 which hosts searched for them, how fast each device answered, and what is wrong when
 discovery fails. Also captures live, like tcpdump -i that understands Cast.
CONTROL
mkdir -p "$out"
deb="$out/castscope_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group "$stage/root" "$deb" >/dev/null
echo "$deb"
