#!/usr/bin/env bash
# `make install` and `make deb`: the static release build (built once here, reused by both),
# installed under a temporary PREFIX with its man page and completions, no libswift* in its
# `ldd`; then the Debian package: its file list, its Depends, and a binary that runs once
# unpacked with `dpkg -x` (--version, analyze of captures/multi-device.pcap).
# Prints `ok …` / `FAIL …` per check, then `install: N passed, M failed`.
# Usage: Tests/cli/install.sh   (slow the first time: a whole release build)
set -u

SUITE=install
# lib.sh wants a binary; the one checked here is the static build, made below.
CASTSCOPE=${CASTSCOPE:-.build/release/castscope}
[[ -x $CASTSCOPE ]] || CASTSCOPE=/bin/true
# shellcheck source=Tests/cli/lib.sh
source "$(dirname "$0")/lib.sh" || exit 2
RC=0
: >"$T/err"

FILES="bin/castscope share/man/man1/castscope.1 share/bash-completion/completions/castscope
share/zsh/site-functions/_castscope share/fish/vendor_completions.d/castscope.fish"

if ! make --no-print-directory static >"$T/build.log" 2>&1; then
    fail "make static: $(tail -n 5 "$T/build.log" | tr '\n' '|')"
    summary
    exit 1
fi

# ---------------------------------------------------------------- profile-guided build
# make build trains an instrumented copy on captures/ (scripts/pgo-profile) and hands the profile
# to the release build: the flags must name it, and the training must have reached the tracker's
# per-packet path (a profile of start-up and usage errors alone would steer nothing that counts).
PROFDATA=$(scripts/pgo-profile --profdata)
if [[ ${PGO:-1} == 0 ]]; then
    ok "make build without a profile (PGO=0)"
elif [[ -z $PROFDATA ]]; then
    check "the toolchain has no llvm-profdata: built without a profile (.build/pgo/flags empty)" \
        eval '[[ ! -s .build/pgo/flags ]] || { cat .build/pgo/flags >"$T/err"; false; }'
else
    # The flags name a copy of .build/pgo/castscope.profdata named by its hash (so that a new
    # profile rebuilds every module with it).
    USED=.build/pgo/castscope-$(sha256sum .build/pgo/castscope.profdata | cut -c1-16).profdata
    check "make build used the profile (.build/pgo/flags names $USED)" \
        eval 'grep -q -- "-ir-profile-use=$PWD/$USED" .build/pgo/flags && cmp -s "$USED" .build/pgo/castscope.profdata \
            || { cat .build/pgo/flags >"$T/err"; false; }'
    "$PROFDATA" show --counts --function=ingestResponse .build/pgo/castscope.profdata >"$T/profile" 2>"$T/err"
    check "the profile counts the tracker's responses (ingestResponse ran in training)" \
        eval 'grep "Block counts:" "$T/profile" | grep -q "[1-9]" || { head -c 300 "$T/profile" >"$T/err"; false; }'
    check "the release binary is not the instrumented one (no profile runtime in it)" \
        eval '! grep -q __llvm_profile_runtime "$CASTSCOPE" 2>/dev/null || { echo "instrumented" >"$T/err"; false; }'
fi

PREFIX=$T/prefix
check "make install PREFIX=… succeeds" eval 'make --no-print-directory install PREFIX="$PREFIX" >"$T/install.log" 2>&1'
missing=""
for f in $FILES; do [[ -s $PREFIX/$f ]] || missing="$missing $f"; done
check "it installs the binary, the man page and the three completions" \
    eval '[[ -z "$missing" ]] || { echo "missing:$missing" >"$T/err"; false; }'
check "the installed binary is executable" test -x "$PREFIX/bin/castscope"
ldd "$PREFIX/bin/castscope" >"$T/ldd" 2>&1
check "ldd shows no libswift* (the Swift runtime is linked in), and libpcap, libz, libzstd, liblz4, libssl, libzip" \
    eval '! grep -q libswift "$T/ldd" && grep -q libpcap "$T/ldd" && grep -q "libz\.so" "$T/ldd" \
        && grep -q libzstd "$T/ldd" && grep -q liblz4 "$T/ldd" && grep -q libssl "$T/ldd" && grep -q libzip "$T/ldd" \
        || { cp "$T/ldd" "$T/err"; false; }'
check "the installed man page is docs/castscope.1" cmp -s "$PREFIX/share/man/man1/castscope.1" docs/castscope.1
check "the installed bash completion is the binary's" \
    eval 'cmp -s "$PREFIX/share/bash-completion/completions/castscope" <("$PREFIX/bin/castscope" completion bash)'
"$PREFIX/bin/castscope" analyze captures/multi-device.pcap >"$T/installed.txt" 2>"$T/err"
RC=$?
check "the installed binary analyses captures/multi-device.pcap" \
    eval '[[ $RC == 0 ]] && grep -q "^Devices" "$T/installed.txt"'

# ---------------------------------------------------------------- Debian package
if make --no-print-directory deb >"$T/deb.log" 2>&1; then
    DEB=$(tail -n1 "$T/deb.log")
    ok "make deb builds $DEB"
    dpkg-deb --contents "$DEB" >"$T/contents"
    missing=""
    for f in $FILES; do grep -q " \./usr/$f\$" "$T/contents" || missing="$missing $f"; done
    check "dpkg-deb --contents lists the binary, the man page and the completions under /usr" \
        eval '[[ -z "$missing" ]] || { echo "missing:$missing" >"$T/err"; false; }'
    depends=$(dpkg-deb --field "$DEB" Depends)
    check "Depends names libpcap0.8 and libc6 ($depends)" eval '[[ $depends == *libpcap0.8* && $depends == *libc6* ]]'
    check "Package is castscope, Version the binary's" \
        eval '[[ $(dpkg-deb --field "$DEB" Package) == castscope ]] && [[ "castscope $(dpkg-deb --field "$DEB" Version)" == "$("$PREFIX/bin/castscope" --version)" ]]'
    dpkg -x "$DEB" "$T/unpacked"
    "$T/unpacked/usr/bin/castscope" --version >"$T/out" 2>"$T/err"
    RC=$?
    check "dpkg -x: the unpacked binary runs (--version)" eval '[[ $RC == 0 ]] && grep -q "^castscope [0-9]" "$T/out"'
    "$T/unpacked/usr/bin/castscope" analyze captures/multi-device.pcap >"$T/out" 2>"$T/err"
    RC=$?
    check "dpkg -x: the unpacked binary analyses captures/multi-device.pcap, as installed" \
        eval '[[ $RC == 0 ]] && cmp -s "$T/out" "$T/installed.txt"'
else
    fail "make deb: $(tail -n 5 "$T/deb.log" | tr '\n' '|')"
fi

summary
