#!/usr/bin/env bash
# Tests/checkapp/run.sh -- integration tests of `castscope check-app` (no root, no network).
#
#   Tests/checkapp/run.sh                      # from anywhere
#   CASTSCOPE=/path/to/castscope Tests/checkapp/run.sh   # (a relative path is taken from the repository root)
#   KEEP=1 Tests/checkapp/run.sh               # keep the outputs and the .ipa files in /tmp
#
# Runs check-app on every fixture of Tests/checkapp/fixtures (Podfile.lock files, Xcode
# project folders, Package.resolved files, Info.plists) and on the .ipa files that
# make_ipas.py writes into a temporary directory, each in text and in JSON, and checks
# (check_app.py) the exit status, the exact set of finding codes, their severities, that each
# has advice, the verdict line, and the facts of the JSON (SDK versions and flavours, app IDs
# with their file:line, discovery flags, Xcode and SDK of an .ipa). Then:
#   - hostile archives (zip bomb, 100001 entries, `..` and absolute entry names, not a zip,
#     no Payload/*.app/Info.plist, a header that lies about an entry's size): exit 65, one
#     `castscope: ` line, no output, nothing written anywhere under the temporary
#     directory (also with -o), the bomb refused without inflating it into memory;
#   - options: -o, -q, --fail-on, --format markdown, --app-id, --target, options after PATH,
#     usage errors (64), missing PATH (66), unwritable output (73), help;
#   - `castscope analyze --app` with captures/no-cast-queries.pcap (NO_CAST_QUERIES: its
#     severity and detail follow the app's discovery settings).
# The fixtures and what each expects: Tests/checkapp/README.md.
# Prints one `ok ...` / `FAIL ...` line per check, then `check-app: N passed, M failed`;
# exits non-zero if any check failed.
#
# Requirements: bash, python3 (stdlib), timeout; /usr/bin/time (optional: the memory check).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
ROOT=$(cd "$HERE/../.." && pwd) || exit 2
cd "$ROOT" || exit 2
BIN=${CASTSCOPE:-.build/release/castscope}
[[ $BIN == /* ]] || BIN=$ROOT/$BIN
PY=${PYTHON:-python3}
export PYTHONDONTWRITEBYTECODE=1 # (the checkers write nothing, no __pycache__ either)
FX=Tests/checkapp/fixtures # relative: check-app's "input" is the PATH as given
PROJ=$FX/projects
PODS=$FX/podfile
CAPTURE=captures/no-cast-queries.pcap

# shellcheck source=Tests/lib/results.sh
source "$ROOT/Tests/lib/results.sh" || exit 2

T=""
# shellcheck disable=SC2317 # (run from the EXIT trap)
finish() {
  if [[ -n $T && -d $T ]]; then
    if [[ ${KEEP:-0} == 1 ]]; then note "files kept in $T"; else rm -rf "$T"; fi
  fi
  echo "check-app: $PASSED passed, $FAILED failed"
  ((FAILED)) && exit 1
  exit 0
}
trap finish EXIT
trap 'fail "interrupted by a signal"; exit 1' INT TERM HUP

T=$(mktemp -d "${TMPDIR:-/tmp}/castscope-checkapp.XXXXXX") || {
  fail "mktemp"
  exit 1
}
LOG=$T/logs  # stdout and stderr of every run (left out of the "nothing written" listings)
IPA=$T/ipa   # the archives of make_ipas.py
WD=$T/cwd    # the working directory of the hostile runs
mkdir -p "$LOG" "$IPA" "$WD" "$T/o" || {
  fail "mkdir in $T"
  exit 1
}

if [[ ! -x $BIN ]]; then
  fail "castscope binary not found at $BIN (build with: swift build -c release)"
  exit 1
fi
if ! "$BIN" help check-app >"$LOG/help.out" 2>&1; then
  fail "castscope has no check-app command ($BIN help check-app: $(head -c 200 "$LOG/help.out" | tr '\n' '|'))"
  exit 1
fi
command -v "$PY" >/dev/null || {
  fail "python3 is needed ($PY)"
  exit 1
}

# --- helpers -----------------------------------------------------------------------
# cs NAME ARGS... : castscope ARGS (at most 60 s) from the repository root, stdin /dev/null;
# RC, stdout $LOG/NAME.out, stderr $LOG/NAME.err
cs() {
  local name=$1
  shift
  # (in braces with stderr closed: no "Killed"/"Aborted" job message from bash)
  { timeout -s KILL 60 "$BIN" "$@" </dev/null >"$LOG/$name.out" 2>"$LOG/$name.err"; } 2>/dev/null
  RC=$?
}
# cs_at DIR NAME ARGS... : the same, from DIR
cs_at() {
  local dir=$1 name=$2
  shift 2
  { (cd "$dir" && exec timeout -s KILL 60 "$BIN" "$@") </dev/null >"$LOG/$name.out" 2>"$LOG/$name.err"; } 2>/dev/null
  RC=$?
}
err1() { head -c 300 "$LOG/$1.err" | tr '\n' '|'; }
lines() { if [[ -s $1 ]]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
crashed() { grep -Eqi 'fatal error|stack dump|backtrace|segmentation|^[[:space:]]*#?[0-9]+ +0x[0-9a-f]+' "$LOG/$1.err"; }

checker() { run_py_checks "$PY" "$HERE/check_app.py" "$@"; }

# app LABEL PATH [OPTION...] [-- EXPECTATION...] : check-app on PATH (with the castscope
# OPTIONs) in JSON and in text; check_app.py doc with the EXPECTATIONs
app() {
  local label=$1 path=$2 jrc
  shift 2
  local opts=()
  while (($#)) && [[ $1 != -- ]]; do
    opts+=("$1")
    shift
  done
  (($#)) && shift
  cs "$label.json" check-app "${opts[@]}" --format json "$path"
  jrc=$RC
  cs "$label.txt" check-app "${opts[@]}" "$path"
  checker doc "$label" --json "$LOG/$label.json.out" --json-rc "$jrc" --text "$LOG/$label.txt.out" \
    --text-rc "$RC" --err "$LOG/$label.json.err" --err "$LOG/$label.txt.err" --input "$path" "$@"
}

# refused LABEL WANT WHAT [PREFIX] : exit WANT, nothing on stdout, exactly one stderr line
# starting PREFIX (default `castscope: `), no crash
refused() {
  local label=$1 want=$2 what=$3 prefix=${4:-"castscope: "}
  if [[ $RC == "$want" && ! -s $LOG/$label.out && $(lines "$LOG/$label.err") == 1 ]] &&
    [[ $(head -n 1 "$LOG/$label.err") == "$prefix"* ]] &&
    ! crashed "$label"; then
    ok "$label: $what: exit $want, one \`${prefix% }\` line, nothing on stdout"
  else
    fail "$label: $what: exit $RC (want $want), stdout $(wc -c <"$LOG/$label.out") bytes, stderr: $(err1 "$label")"
  fi
}

# snapshot : every path under $T except the logs, and whether the places a `..` or absolute
# entry would land exist
snapshot() {
  find "$T" -path "$LOG" -prune -o -print | LC_ALL=C sort
  local p
  for p in /abs /tmp/evil "${TMPDIR:-/tmp}/evil" "$(dirname "$T")/evil"; do
    [[ -e $p ]] && echo "exists: $p"
  done
}
same_snapshot() { # LABEL BEFORE : nothing new under $T (nor /abs, /tmp/evil)
  local after
  after=$(snapshot)
  if [[ $2 == "$after" ]]; then
    ok "$1: no file written (nothing new under $T, no /abs, no evil/)"
  else
    fail "$1: files appeared: $(diff <(echo "$2") <(echo "$after") | grep '^>' | head -n 5 | tr '\n' '|')"
  fi
}

# maxrss NAME ARGS... : castscope ARGS under /usr/bin/time; RSS (KiB) or empty
maxrss() {
  local name=$1
  shift
  RSS=""
  [[ -x /usr/bin/time ]] || return 0
  { (cd "$WD" && exec timeout -s KILL 60 /usr/bin/time -f %M -o "$LOG/$name.rss" "$BIN" "$@") \
    </dev/null >/dev/null 2>&1; } 2>/dev/null
  RSS=$(tail -n 1 "$LOG/$name.rss" 2>/dev/null)
  [[ $RSS =~ ^[0-9]+$ ]] || RSS=""
}

# hostile LABEL FILE WHAT : exit 65 refused, also with -o (no output file), nothing written
hostile() {
  local label=$1 file=$2 what=$3 before
  before=$(snapshot)
  cs_at "$WD" "$label" check-app "$file"
  refused "$label" 65 "$what"
  cs_at "$WD" "$label-o" check-app --format json -o "$WD/$label.json" "$file"
  if [[ $RC == 65 && ! -e $WD/$label.json && ! -s $LOG/$label-o.out ]]; then
    ok "$label: with -o: exit 65 and no output file"
  else
    fail "$label: with -o: exit $RC (want 65), output file $([[ -e $WD/$label.json ]] && echo created || echo absent)"
  fi
  same_snapshot "$label" "$before"
}

FIXTURES_BEFORE=$(find "$FX" -print | LC_ALL=C sort)
ROOT_BEFORE=$(ls -A "$ROOT") # the working directory of the runs on the fixtures

# ================================================================ help
if grep -q -- "--app-id" "$LOG/help.out" && grep -q -- "--fail-on" "$LOG/help.out"; then
  ok "help check-app: exit 0, documents --app-id and --fail-on"
else
  fail "help check-app does not document --app-id and --fail-on: $(head -c 300 "$LOG/help.out" | tr '\n' '|')"
fi
cs help-flag check-app --help
if [[ $RC == 0 ]] && cmp -s "$LOG/help.out" "$LOG/help-flag.out"; then
  ok "check-app --help: exit 0, the same text as help check-app"
else
  fail "check-app --help: exit $RC, differs from help check-app"
fi

# ================================================================ Podfile.lock alone
# (no Info.plist: whether APP_BLUETOOTH_USAGE_MISSING may fire without one is open; README)
P=podfile-lock
app pod-too-old-bad "$PODS/too-old-bad/Podfile.lock" -- --kind $P --targets 1 \
  --codes APP_CAST_SDK_TOO_OLD --codes APP_CAST_SDK_TOO_OLD,APP_BLUETOOTH_USAGE_MISSING \
  --cast-sdk 'google-cast-sdk@4.5.1@guest-mode@Podfile.lock' --discovery null,null
app pod-too-old-good "$PODS/too-old-good/Podfile.lock" -- --kind $P --codes APP_OK \
  --cast-sdk 'google-cast-sdk@4.8.3@single@Podfile.lock' --discovery null,null
app pod-update-recommended "$PODS/update-recommended/Podfile.lock" -- --kind $P \
  --codes APP_CAST_SDK_UPDATE_RECOMMENDED,APP_OK \
  --codes APP_CAST_SDK_UPDATE_RECOMMENDED,APP_BLUETOOTH_USAGE_MISSING \
  --cast-sdk 'google-cast-sdk@4.7.1@guest-mode@Podfile.lock' --detail APP_CAST_SDK_UPDATE_RECOMMENDED=4.7.1
app pod-no-bluetooth "$PODS/no-bluetooth/Podfile.lock" -- --kind $P --codes APP_CAST_SDK_UPDATE_RECOMMENDED,APP_OK \
  --cast-sdk 'google-cast-sdk-no-bluetooth@4.7.1@no-bluetooth@Podfile.lock'
app pod-dynamic-xcframework "$PODS/dynamic-xcframework/Podfile.lock" -- --kind $P \
  --codes APP_CAST_SDK_UPDATE_RECOMMENDED,APP_OK \
  --codes APP_CAST_SDK_UPDATE_RECOMMENDED,APP_BLUETOOTH_USAGE_MISSING \
  --cast-sdk 'google-cast-sdk-dynamic-xcframework@4.8.0@guest-mode@Podfile.lock'
app pod-dynamic-xcframework-no-bluetooth "$PODS/dynamic-xcframework-no-bluetooth/Podfile.lock" -- --kind $P \
  --codes APP_CAST_SDK_UPDATE_RECOMMENDED,APP_OK \
  --cast-sdk 'google-cast-sdk-dynamic-xcframework-no-bluetooth@4.7.1@no-bluetooth@Podfile.lock'
app pod-no-cast "$PODS/no-cast/Podfile.lock" -- --kind $P --codes APP_NO_CAST_SDK --no-cast-sdk

# ================================================================ Package.resolved alone
R=package-resolved
SWIFTPM=SPMCast.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved
LEGACYPM=LegacyCast.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved
app resolved-v2 "$PROJ/swiftpm-good/$SWIFTPM" -- --kind $R --codes APP_OK \
  --cast-sdk 'google-cast-sdk@4.8.3@single|unknown@swiftpm/Package.resolved'
app resolved-v1-old "$PROJ/swiftpm-bad/$SWIFTPM" -- --kind $R --codes APP_CAST_SDK_TOO_OLD \
  --cast-sdk 'google-cast-sdk@4.5.3@*@swiftpm/Package.resolved'
app resolved-v3 "$PROJ/missing-service-good/$LEGACYPM" -- --kind $R --codes APP_OK \
  --cast-sdk 'google-cast-sdk@4.8.3@single|unknown@swiftpm/Package.resolved'

# ================================================================ Info.plist alone
# (no SDK can be seen in a plist: whether APP_NO_CAST_SDK fires for one is open; README)
I=info-plist
GOODPLIST=$PROJ/app-id-mismatch-good/CastApp/Info.plist
app plist-xml "$GOODPLIST" -- --kind $I --codes APP_OK --codes APP_NO_CAST_SDK \
  --target "infoPlist=*/app-id-mismatch-good/CastApp/Info.plist" --discovery null,null
"$PY" -c 'import plistlib, sys; d = plistlib.load(open(sys.argv[1], "rb")); plistlib.dump(d, open(sys.argv[2], "wb"), fmt=plistlib.FMT_BINARY)' \
  "$GOODPLIST" "$T/o/Info.plist" || fail "plist-binary: converting $GOODPLIST"
app plist-binary "$T/o/Info.plist" -- --kind $I --codes APP_OK --codes APP_NO_CAST_SDK
app plist-missing-service "$PROJ/missing-service-bad/LegacyCast/Info.plist" -- --kind $I \
  --codes PLIST_MISSING_SERVICE --codes PLIST_MISSING_SERVICE,APP_NO_CAST_SDK
app plist-app-id "$GOODPLIST" --app-id 12345678 -- --kind $I \
  --codes PLIST_MISSING_APP_ID --codes PLIST_MISSING_APP_ID,APP_NO_CAST_SDK --subject PLIST_MISSING_APP_ID=12345678

# ================================================================ Xcode projects
# at FIXTURE FILE TEXT : FILE:N, N the first line of $PROJ/FIXTURE/FILE holding TEXT (found
# here, not written down: `swift format` may move the lines of the Swift fixtures). Not found:
# FILE:0, which no app ID source matches (the check that uses it fails).
at() {
  local n
  n=$(grep -nF -- "$3" "$PROJ/$1/$2" | head -n 1 | cut -d: -f1)
  [[ -n $n ]] || echo "# fixture $1/$2 has no line with: $3" >&2
  echo "$2:${n:-0}"
}
# An app ID's source: the line that uses it or, for a constant, the line defining it (either).
# discovery: a setting the sources make must be reported as made; one they leave alone may be
# reported as its default (autostartDisabled false, afterFirstTap true) or as null (not set).
K=project
SDK_NB483='google-cast-sdk-no-bluetooth@4.8.3@no-bluetooth|single@Podfile.lock'
SDK_483='google-cast-sdk@4.8.3@single@Podfile.lock'
CONST_USE=$(at app-id-mismatch-good CastApp/AppDelegate.swift 'applicationID: kReceiverAppID')
CONST_DEF=$(at app-id-mismatch-good CastApp/AppDelegate.swift 'let kReceiverAppID = "4F8B3483"')
# (a) constant app ID, declared; Debug uses Info-Debug.plist (missing keys: must not be read);
#     decoys in Pods/, Carthage/, build/, DerivedData/ and comments must not be read
app proj-app-id-mismatch-good "$PROJ/app-id-mismatch-good" -- --kind $K --targets 1 \
  --codes APP_OK,APP_DISCOVERY_AFTER_TAP --target name=CastApp --target 'infoPlist=*/CastApp/Info.plist' \
  --target bundleId=com.example.castapp --target deploymentTarget=14.0 --target build.xcode=null \
  --target build.sdk=null --cast-sdk "$SDK_NB483" \
  --app-id "4F8B3483@constant@$CONST_USE|$CONST_DEF" --app-ids-exact \
  --discovery 'false|null,true|null' --detail APP_DISCOVERY_AFTER_TAP=startDiscoveryAfterFirstTapOnCastButton
app proj-xcodeproj-path "$PROJ/app-id-mismatch-good/CastApp.xcodeproj" -- --kind $K --targets 1 \
  --codes APP_OK,APP_DISCOVERY_AFTER_TAP --target name=CastApp --cast-sdk "$SDK_NB483" \
  --app-id "4F8B3483@constant@$CONST_USE|$CONST_DEF" --app-ids-exact
# (b) the plist declares _CC1AD845 only, the code uses 4F8B3483
app proj-app-id-mismatch-bad "$PROJ/app-id-mismatch-bad" -- --kind $K --targets 1 \
  --codes APP_ID_MISMATCH,APP_DISCOVERY_AFTER_TAP --detail APP_ID_MISMATCH=4F8B3483 \
  --detail APP_ID_MISMATCH=CC1AD845 --subject APP_ID_MISMATCH=4F8B3483 \
  --app-id "4F8B3483@constant@$(at app-id-mismatch-bad CastApp/AppDelegate.swift 'applicationID: kReceiverAppID')|$(
    at app-id-mismatch-bad CastApp/AppDelegate.swift 'let kReceiverAppID = "4F8B3483"')" --app-ids-exact
# the plist declares no app-ID type; the code uses 4F8B3483 (a literal)
app proj-plist-missing-app-id-good "$PROJ/plist-missing-app-id-good" -- --kind $K \
  --codes APP_OK,APP_DISCOVERY_AFTER_TAP --app-id "4F8B3483@literal@$(
    at plist-missing-app-id-good CastApp/AppDelegate.swift 'applicationID: "4F8B3483"')" --app-ids-exact
app proj-plist-missing-app-id-bad "$PROJ/plist-missing-app-id-bad" -- --kind $K \
  --codes PLIST_MISSING_APP_ID,APP_DISCOVERY_AFTER_TAP --subject PLIST_MISSING_APP_ID=4F8B3483 \
  --app-id "4F8B3483@literal@$(at plist-missing-app-id-bad CastApp/AppDelegate.swift 'applicationID: "4F8B3483"')" \
  --app-ids-exact
# (c) GENERATE_INFOPLIST_FILE = YES, INFOPLIST_FILE = $(SRCROOT)/GenApp/Info.plist (NSBonjourServices only),
#     NSLocalNetworkUsageDescription as INFOPLIST_KEY_ (the bad twin has it in Debug only)
app proj-generated-plist-good "$PROJ/generated-plist-good" -- --kind $K --targets 1 \
  --codes APP_OK,APP_DISCOVERY_AFTER_TAP --target name=GenApp --target 'infoPlist=*/GenApp/Info.plist' \
  --target deploymentTarget=16.0 --target bundleId=com.example.genapp --cast-sdk "$SDK_483" \
  --app-id "E8C28D3C@literal@$(at generated-plist-good GenApp/GenAppApp.swift 'applicationID: "E8C28D3C"')" \
  --app-ids-exact
app proj-generated-plist-bad "$PROJ/generated-plist-bad" -- --kind $K \
  --codes PLIST_MISSING_USAGE_DESCRIPTION,APP_DISCOVERY_AFTER_TAP
# (d) Objective-C, google-cast-sdk 4.7.1 (guest mode), disableDiscoveryAutostart = YES
app proj-objc-bluetooth-bad "$PROJ/objc-bluetooth-bad" -- --kind $K --targets 1 \
  --codes APP_BLUETOOTH_USAGE_MISSING,APP_DISCOVERY_AUTOSTART_DISABLED,APP_CAST_SDK_UPDATE_RECOMMENDED \
  --target name=ObjCCast --target deploymentTarget=13.0 --cast-sdk 'google-cast-sdk@4.7.1@guest-mode@Podfile.lock' \
  --app-id "ABCD1234@constant@$(at objc-bluetooth-bad ObjCCast/AppDelegate.m 'initWithApplicationID:kReceiverAppID')|$(
    at objc-bluetooth-bad ObjCCast/AppDelegate.m 'kReceiverAppID = @"ABCD1234"')" --app-ids-exact \
  --discovery 'true,true|null'
app proj-objc-bluetooth-good "$PROJ/objc-bluetooth-good" -- --kind $K \
  --codes APP_DISCOVERY_AUTOSTART_DISABLED,APP_CAST_SDK_UPDATE_RECOMMENDED,APP_OK \
  --cast-sdk 'google-cast-sdk@4.7.1@guest-mode@Podfile.lock' \
  --app-id "ABCD1234@constant@$(at objc-bluetooth-good ObjCCast/AppDelegate.m 'initWithApplicationID:kReceiverAppID')|$(
    at objc-bluetooth-good ObjCCast/CastConstants.h '#define kReceiverAppID @"ABCD1234"')" --app-ids-exact \
  --discovery 'true,true|null'
# (e) kGCKDefaultMediaReceiverApplicationID; startDiscoveryAfterFirstTapOnCastButton = false
#     (the bad twin has that line commented out)
app proj-discovery-after-tap-good "$PROJ/discovery-after-tap-good" -- --kind $K --codes APP_OK \
  --cast-sdk "$SDK_483" --target deploymentTarget=15.0 \
  --app-id "CC1AD845@default-media-receiver@$(at discovery-after-tap-good DefaultApp/AppDelegate.swift \
    'applicationID: kGCKDefaultMediaReceiverApplicationID')" --app-ids-exact --discovery 'false|null,false'
app proj-discovery-after-tap-bad "$PROJ/discovery-after-tap-bad" -- --kind $K --codes APP_OK,APP_DISCOVERY_AFTER_TAP \
  --app-id "CC1AD845@default-media-receiver@$(at discovery-after-tap-bad DefaultApp/AppDelegate.swift \
    'applicationID: kGCKDefaultMediaReceiverApplicationID')" --app-ids-exact --discovery 'false|null,true|null'
# (f) Swift Package Manager: Package.resolved v2 (4.8.3) / v1 (4.5.3)
app proj-swiftpm-good "$PROJ/swiftpm-good" -- --kind $K --targets 1 --codes APP_OK,APP_DISCOVERY_AFTER_TAP \
  --target name=SPMCast --cast-sdk 'google-cast-sdk@4.8.3@single|unknown@swiftpm/Package.resolved' \
  --app-id "9A3B7C1D@constant@$(at swiftpm-good SPMCast/AppDelegate.swift 'applicationID: Receiver.appID')|$(
    at swiftpm-good SPMCast/AppDelegate.swift 'static let appID = "9A3B7C1D"')" --app-ids-exact
app proj-swiftpm-bad "$PROJ/swiftpm-bad" -- --kind $K --codes APP_CAST_SDK_TOO_OLD \
  --cast-sdk 'google-cast-sdk@4.5.3@*@swiftpm/Package.resolved' --detail APP_CAST_SDK_TOO_OLD=4.5.3
# (g) vendored GoogleCast.xcframework 4.5.0 (two slices) / GoogleCast.framework 4.8.3
app proj-vendored-xcframework-bad "$PROJ/vendored-xcframework-bad" -- --kind $K --codes APP_CAST_SDK_TOO_OLD \
  --cast-sdk '~GoogleCast@4.5.0@*@GoogleCast.framework/Info.plist' --cast-sdk-slices \
  --app-id "6C1A2B3D@constant@$(at vendored-xcframework-bad VendorCast/AppDelegate.swift \
    'applicationID: AppDelegate.receiverAppID')|$(at vendored-xcframework-bad VendorCast/AppDelegate.swift \
    'static let receiverAppID = "6C1A2B3D"')" --app-ids-exact
app proj-vendored-framework-good "$PROJ/vendored-framework-good" -- --kind $K --codes APP_OK,APP_DISCOVERY_AFTER_TAP \
  --cast-sdk '~GoogleCast@4.8.3@single|unknown@Frameworks/GoogleCast.framework/Info.plist'
# (h) no Cast SDK (a Podfile.lock with Alamofire only) / with google-cast-sdk 4.8.3
#     (whether APP_DISCOVERY_AFTER_TAP fires without an SDK is open; README)
app proj-no-sdk-bad "$PROJ/no-sdk-bad" -- --kind $K --codes APP_NO_CAST_SDK \
  --codes APP_NO_CAST_SDK,APP_DISCOVERY_AFTER_TAP --no-cast-sdk --app-ids-exact
app proj-no-sdk-good "$PROJ/no-sdk-good" -- --kind $K --codes APP_OK --cast-sdk "$SDK_483"
# deprecated GCKCastOptions(receiverApplicationID:), Package.resolved v3; the bad twin's plist
# lacks _googlecast._tcp
app proj-missing-service-good "$PROJ/missing-service-good" -- --kind $K --codes APP_OK,APP_DISCOVERY_AFTER_TAP \
  --cast-sdk 'google-cast-sdk@4.8.3@single|unknown@swiftpm/Package.resolved' \
  --app-id "233637DE@literal@$(at missing-service-good LegacyCast/AppDelegate.swift \
    'receiverApplicationID: "233637DE"')" --app-ids-exact
app proj-missing-service-bad "$PROJ/missing-service-bad" -- --kind $K \
  --codes PLIST_MISSING_SERVICE,APP_DISCOVERY_AFTER_TAP

# ================================================================ .ipa
if "$PY" "$HERE/make_ipas.py" "$IPA" >"$LOG/make_ipas.out" 2>&1; then
  ok "make_ipas.py wrote $(grep -c '^# ' "$LOG/make_ipas.out") archives"
else
  fail "make_ipas.py: $(tail -n 3 "$LOG/make_ipas.out" | tr '\n' '|')"
fi
A=ipa
CAST_FW=GoogleCast.framework/Info.plist
app ipa-ok "$IPA/ok.ipa" -- --kind $A --targets 1 --codes APP_OK --target name=CastPlayer \
  --target 'infoPlist=*/CastPlayer.app/Info.plist' --target bundleId=com.example.castplayer \
  --target deploymentTarget=14.0 --target 'build.xcode=1500|15.0' --target build.sdk=iphoneos17.0 \
  --cast-sdk "~GoogleCast@4.8.3@single@$CAST_FW" --discovery null,null
app ipa-xcode12-old "$IPA/xcode12-old.ipa" -- --kind $A --codes APP_CAST_SDK_TOO_OLD \
  --target 'build.xcode=1200|12.0' --target build.sdk=iphoneos14.0 \
  --cast-sdk "~GoogleCast@4.5.0@no-bluetooth|unknown@$CAST_FW" --detail APP_CAST_SDK_TOO_OLD=4.5.0
app ipa-xcode11-ios13-bad "$IPA/xcode11-ios13-bad.ipa" -- --kind $A --codes APP_CAST_SDK_TOO_OLD \
  --target 'build.xcode=1170|11.7' --target build.sdk=iphoneos13.7 --target deploymentTarget=12.0 \
  --cast-sdk "~GoogleCast@4.4.2@guest-mode@$CAST_FW" --detail APP_CAST_SDK_TOO_OLD=4.4.2
app ipa-xcode11-ios13-good "$IPA/xcode11-ios13-good.ipa" -- --kind $A --codes APP_CAST_SDK_UPDATE_RECOMMENDED \
  --severity APP_CAST_SDK_UPDATE_RECOMMENDED=warning --cast-sdk "~GoogleCast@4.4.4@guest-mode@$CAST_FW"
app ipa-static "$IPA/static.ipa" -- --kind $A --codes APP_CAST_SDK_VERSION_UNKNOWN,APP_OK \
  --target deploymentTarget=15.0 --cast-sdk '~GoogleCast@null@unknown@*'
app ipa-guest-mode-bad "$IPA/guest-mode-bad.ipa" -- --kind $A \
  --codes APP_BLUETOOTH_USAGE_MISSING,APP_CAST_SDK_UPDATE_RECOMMENDED \
  --cast-sdk "~GoogleCast@4.7.1@guest-mode@$CAST_FW" --detail APP_BLUETOOTH_USAGE_MISSING=NSBluetoothAlwaysUsageDescription
app ipa-guest-mode-good "$IPA/guest-mode-good.ipa" -- --kind $A --codes APP_CAST_SDK_UPDATE_RECOMMENDED,APP_OK \
  --cast-sdk "~GoogleCast@4.7.1@guest-mode@$CAST_FW"
app ipa-missing-service "$IPA/missing-service.ipa" -- --kind $A --codes PLIST_MISSING_SERVICE
app ipa-limit-entries "$IPA/limit-entries.ipa" -- --kind $A --codes APP_OK --cast-sdk "~GoogleCast@4.8.3@single@$CAST_FW"
app ipa-app-id-missing "$IPA/ok.ipa" --app-id 12345678 -- --kind $A --codes PLIST_MISSING_APP_ID \
  --subject PLIST_MISSING_APP_ID=12345678
app ipa-app-id-declared "$IPA/ok.ipa" --app-id 4f8b3483 -- --kind $A --codes APP_OK
# the same apps as .app folders (kind app; paths shown are the files on disk), extracted here
"$PY" -c 'import sys, zipfile
for archive, folder in zip(sys.argv[1::2], sys.argv[2::2]):
    zipfile.ZipFile(archive).extractall(folder)' "$IPA/ok.ipa" "$T/apps/ok" "$IPA/guest-mode-bad.ipa" "$T/apps/guest"
app app-ok "$T/apps/ok/Payload/CastPlayer.app" -- --kind app --codes APP_OK --target name=CastPlayer \
  --target "infoPlist=$T/apps/ok/Payload/CastPlayer.app/Info.plist" \
  --cast-sdk "~GoogleCast@4.8.3@single@$T/apps/ok/Payload/CastPlayer.app/Frameworks/$CAST_FW"
app app-guest-mode-bad "$T/apps/guest/Payload/GuestCast.app" -- --kind app \
  --codes APP_BLUETOOTH_USAGE_MISSING,APP_CAST_SDK_UPDATE_RECOMMENDED --cast-sdk "~GoogleCast@4.7.1@guest-mode@*"

# ================================================================ hostile archives
hostile bomb "$IPA/bomb.ipa" "a 64 MiB Info.plist deflated to 64 KiB (over the 16 MiB limit)"
hostile many-entries "$IPA/many-entries.ipa" "100001 entries (limit 100000)"
hostile traversal "$IPA/traversal.ipa" "an entry Payload/../../evil/Info.plist"
hostile absolute "$IPA/absolute.ipa" "an entry /abs/Info.plist"
hostile text "$IPA/text.ipa" "a text file named .ipa"
hostile empty "$IPA/empty.ipa" "an empty file named .ipa"
hostile no-payload "$IPA/no-payload.ipa" "a zip without Payload/*.app/Info.plist"

# The bomb is refused without inflating it: its peak memory stays below what the 64 MiB alone
# would take (baseline: ok.ipa).
maxrss rss-ok check-app "$IPA/ok.ipa"
BASE_RSS=$RSS
maxrss rss-bomb check-app "$IPA/bomb.ipa"
if [[ -z $BASE_RSS || -z $RSS ]]; then
  note "memory check skipped (no /usr/bin/time, or no reading)"
elif ((RSS < BASE_RSS + 56 * 1024)); then
  ok "bomb: peak RSS ${RSS} KiB (ok.ipa: ${BASE_RSS} KiB): the 64 MiB were never inflated into memory"
else
  fail "bomb: peak RSS ${RSS} KiB, ok.ipa ${BASE_RSS} KiB: more than 56 MiB above, the entry was inflated"
fi

# An entry whose headers claim 1.8 KB but which inflates to 32 MiB: exit 65, or a clean
# result from a read bounded by the limit; never a crash, never a file.
before=$(snapshot)
cs_at "$WD" lying-size check-app --format json "$IPA/lying-size.ipa"
case $RC in
  65) refused lying-size 65 "an entry whose headers lie about its size" ;;
  0 | 1)
    if "$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$LOG/lying-size.out" 2>/dev/null &&
      ! crashed lying-size; then
      ok "lying-size: an entry whose headers lie about its size: exit $RC with a JSON report (a bounded read)"
    else
      fail "lying-size: exit $RC but no JSON report; stderr: $(err1 lying-size)"
    fi
    ;;
  *) fail "lying-size: exit $RC (want 65, or 0/1 from a bounded read); stderr: $(err1 lying-size)" ;;
esac
same_snapshot lying-size "$before"

# ================================================================ options
# -o FILE writes the file, nothing on stdout, the same document as stdout would have
cs o-json check-app --format json -o "$T/o/out.json" "$PODS/too-old-good/Podfile.lock"
if [[ $RC == 0 && ! -s $LOG/o-json.out && -s $T/o/out.json ]] &&
  "$PY" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
    "$T/o/out.json" "$LOG/pod-too-old-good.json.out"; then
  ok "-o FILE: exit 0, nothing on stdout, FILE holds the JSON stdout would have"
else
  fail "-o FILE: exit $RC, stdout $(wc -c <"$LOG/o-json.out") bytes, file $(wc -c <"$T/o/out.json" 2>/dev/null || echo missing)"
fi
cs o-text check-app -o "$T/o/out.txt" "$PROJ/app-id-mismatch-bad"
if [[ $RC == 1 && ! -s $LOG/o-text.out ]] && cmp -s "$T/o/out.txt" "$LOG/proj-app-id-mismatch-bad.txt.out"; then
  ok "-o FILE (text, an error finding): exit 1, FILE holds the text report"
else
  fail "-o FILE (text): exit $RC (want 1), or FILE differs from the text on stdout"
fi
cs o-unwritable check-app -o "$T/o/no-such-dir/out.json" "$PODS/too-old-good/Podfile.lock"
if [[ $RC == 73 && ! -s $LOG/o-unwritable.out ]] && head -n 1 "$LOG/o-unwritable.err" | grep -q '^castscope'; then
  ok "-o into a missing directory: exit 73 with a message"
else
  fail "-o into a missing directory: exit $RC (want 73); stderr: $(err1 o-unwritable)"
fi

# -q prints nothing; the exit status tells
cs q-bad check-app -q "$PODS/too-old-bad/Podfile.lock"
if [[ $RC == 1 && ! -s $LOG/q-bad.out && ! -s $LOG/q-bad.err ]]; then ok "-q on an error: exit 1, prints nothing"; else fail "-q on an error: exit $RC, stdout $(wc -c <"$LOG/q-bad.out") bytes, stderr $(err1 q-bad)"; fi
cs q-good check-app -q "$PODS/too-old-good/Podfile.lock"
if [[ $RC == 0 && ! -s $LOG/q-good.out && ! -s $LOG/q-good.err ]]; then ok "-q on a good input: exit 0, prints nothing"; else fail "-q on a good input: exit $RC, stdout $(wc -c <"$LOG/q-good.out") bytes"; fi

# --fail-on
fail_on() { # LABEL WANT LEVEL PATH
  cs "$1" check-app --fail-on "$3" "$4"
  if [[ $RC == "$2" ]]; then ok "$1: --fail-on $3 exits $2"; else fail "$1: --fail-on $3 exits $RC, want $2; stderr: $(err1 "$1")"; fi
}
fail_on fail-on-warning-warning 1 warning "$PROJ/no-sdk-bad"
fail_on fail-on-error-warning 0 error "$PROJ/no-sdk-bad"
fail_on fail-on-warning-ipa 1 warning "$IPA/xcode11-ios13-good.ipa"
fail_on fail-on-warning-info 0 warning "$PODS/no-bluetooth/Podfile.lock"
fail_on fail-on-error-error 1 error "$PROJ/app-id-mismatch-bad"

# --format markdown: a heading and a findings table naming every code
cs markdown check-app --format markdown "$PROJ/app-id-mismatch-bad"
if [[ $RC == 1 ]] && grep -Eq '^#{1,6} ' "$LOG/markdown.out" && grep -Eq '^\|.*\|$' "$LOG/markdown.out" &&
  grep -Eq '^\|( *:?-{3,}:? *\|)+$' "$LOG/markdown.out" &&
  tr -d '\134' <"$LOG/markdown.out" | grep -q 'APP_ID_MISMATCH' &&
  tr -d '\134' <"$LOG/markdown.out" | grep -q 'APP_DISCOVERY_AFTER_TAP'; then
  ok "--format markdown: exit 1, a heading and a findings table naming APP_ID_MISMATCH and APP_DISCOVERY_AFTER_TAP"
else
  fail "--format markdown: exit $RC, heading/table/codes missing: $(head -c 300 "$LOG/markdown.out" | tr '\n' '|')"
fi

# options after PATH (the common grammar), --target
cs after-path check-app "$PROJ/app-id-mismatch-good" --format json
if [[ $RC == 0 ]] && "$PY" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
  "$LOG/after-path.out" "$LOG/proj-app-id-mismatch-good.json.out"; then
  ok "options after PATH: the same JSON as before it"
else
  fail "options after PATH: exit $RC, or a different JSON"
fi
app target-option "$PROJ/app-id-mismatch-good" --target CastApp -- --kind project --targets 1 --target name=CastApp \
  --codes APP_OK,APP_DISCOVERY_AFTER_TAP

# usage errors (64): nothing on stdout
usage() { # LABEL WHAT ARGS...
  local label=$1 what=$2
  shift 2
  cs "$label" check-app "$@"
  if [[ $RC == 64 && ! -s $LOG/$label.out && -s $LOG/$label.err ]] && ! crashed "$label"; then
    ok "$label: $what: exit 64, a message on stderr"
  else
    fail "$label: $what: exit $RC (want 64); stdout $(wc -c <"$LOG/$label.out") bytes; stderr: $(err1 "$label")"
  fi
}
usage usage-no-path "no PATH"
usage usage-two-paths "two PATHs" "$PODS/too-old-good/Podfile.lock" "$PODS/too-old-bad/Podfile.lock"
usage usage-unknown-option "an unknown option" --bogus "$PODS/too-old-good/Podfile.lock"
usage usage-format "--format xml" --format xml "$PODS/too-old-good/Podfile.lock"
usage usage-fail-on "--fail-on info" --fail-on info "$PODS/too-old-good/Podfile.lock"
usage usage-app-id "--app-id without a value" "$PODS/too-old-good/Podfile.lock" --app-id

# PATH that does not exist (66), also with -o: no file
before=$(snapshot)
cs_at "$WD" missing check-app "$T/no-such-app"
refused missing 66 "PATH does not exist"
cs_at "$WD" missing-o check-app -o "$WD/missing.json" "$T/no-such-app"
if [[ $RC == 66 && ! -e $WD/missing.json ]]; then ok "missing PATH with -o: exit 66, no output file"; else fail "missing PATH with -o: exit $RC (want 66), file $([[ -e $WD/missing.json ]] && echo created || echo absent)"; fi
same_snapshot missing "$before"

# ================================================================ analyze --app
# The capture: mDNS and a Chromecast announcing, nobody asks for _googlecast._tcp.
cs capture-alone analyze --format json "$CAPTURE"
checker analyze capture-alone --json "$LOG/capture-alone.out" --json-rc "$RC" --err "$LOG/capture-alone.err" \
  --finding NO_CAST_QUERIES=warning
analyze_app() { # LABEL APP EXPECTATION...
  local label=$1 path=$2
  shift 2
  cs "$label" analyze --app "$path" --format json "$CAPTURE"
  checker analyze "$label" --json "$LOG/$label.out" --json-rc "$RC" --err "$LOG/$label.err" "$@"
}
# discovery starts after the first tap (the default): a capture without a tap shows no query
analyze_app analyze-after-tap "$PROJ/app-id-mismatch-good" --finding NO_CAST_QUERIES=warning \
  --detail NO_CAST_QUERIES=startDiscoveryAfterFirstTapOnCastButton --no-finding PLIST_MISSING_APP_ID \
  --no-finding PLIST_MISSING_SERVICE --no-finding PLIST_MISSING_USAGE_DESCRIPTION
# autostart disabled
analyze_app analyze-autostart-disabled "$PROJ/objc-bluetooth-good" --finding NO_CAST_QUERIES=warning \
  --detail 'NO_CAST_QUERIES=disableDiscoveryAutostart|startDiscoveryAfterFirstTapOnCastButton'
# discovery at launch (startDiscoveryAfterFirstTapOnCastButton = false): nobody searched is an error, as with --plist
analyze_app analyze-at-launch "$PROJ/discovery-after-tap-good" --finding NO_CAST_QUERIES=error \
  --detail NO_CAST_QUERIES=startDiscoveryAfterFirstTapOnCastButton
# the app's (generated) Info.plist is cross-checked as --plist does
analyze_app analyze-plist "$PROJ/generated-plist-bad" --finding PLIST_MISSING_USAGE_DESCRIPTION=error \
  --finding NO_CAST_QUERIES=warning
# an .ipa: discovery settings unknown, so as with --plist
analyze_app analyze-ipa "$IPA/ok.ipa" --finding NO_CAST_QUERIES=error --no-finding PLIST_MISSING_SERVICE
before=$(snapshot)
cs_at "$WD" analyze-bomb analyze --app "$IPA/bomb.ipa" "$ROOT/$CAPTURE"
refused analyze-bomb 65 "analyze --app with the zip bomb" "castscope"
same_snapshot analyze-bomb "$before"
cs_at "$WD" analyze-missing analyze --app "$T/no-such-app" "$ROOT/$CAPTURE"
refused analyze-missing 66 "analyze --app with a PATH that does not exist" "castscope"

# ================================================================ the JSON schema
# Every check-app JSON document written above must satisfy docs/check-app.schema.json, and
# documents broken on purpose must not (python3-jsonschema, a test package).
schema_out=$("$PY" - "$ROOT/docs/check-app.schema.json" "$LOG" <<'PYEOF'
import copy, glob, json, os, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
docs = []
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.json.out"))):
    try:
        doc = json.load(open(path))
    except ValueError:
        continue
    if isinstance(doc, dict) and "targets" in doc and "schemaVersion" in doc:
        docs.append((os.path.basename(path), doc))
for name, doc in docs:
    errors = list(v.iter_errors(doc))
    print(("ok" if not errors else "BAD") + " " + name + ("" if not errors else ": " + errors[0].message[:160]))
first = docs[0][1]
for label, mutate in [
    ("an unknown top-level key", lambda d: d.__setitem__("extra", 1)),
    ("an unknown kind", lambda d: d.__setitem__("kind", "zip")),
    ("a finding without advice", lambda d: d["findings"][0].pop("advice")),
    ("a target without castSdk", lambda d: d["targets"][0].pop("castSdk")),
]:
    d = copy.deepcopy(first)
    mutate(d)
    print(("REJECTED " if list(v.iter_errors(d)) else "ACCEPTED ") + label)
PYEOF
)
docs_ok=$(grep -c '^ok ' <<<"$schema_out")
docs_bad=$(grep -c '^BAD ' <<<"$schema_out")
if ((docs_ok >= 40 && docs_bad == 0)); then
  ok "all $docs_ok check-app JSON documents validate against docs/check-app.schema.json"
else
  fail "schema: $docs_ok valid, $docs_bad invalid: $(grep -m 3 -e '^BAD ' -e Error <<<"$schema_out" | tr '\n' '|')"
fi
while read -r verdict label; do
  if [[ $verdict == REJECTED ]]; then ok "the schema rejects $label"; else fail "the schema accepts $label"; fi
done < <(grep -E '^(REJECTED|ACCEPTED) ' <<<"$schema_out")

# ================================================================ the fixtures are untouched
if [[ $(find "$FX" -print | LC_ALL=C sort) == "$FIXTURES_BEFORE" ]]; then
  ok "no file added to or removed from $FX"
else
  fail "files added or removed under $FX: $(diff <(echo "$FIXTURES_BEFORE") <(find "$FX" -print | LC_ALL=C sort) | grep '^[<>]' | head -n 5 | tr '\n' '|')"
fi
if [[ $(ls -A "$ROOT") == "$ROOT_BEFORE" ]]; then
  ok "no file added to or removed from the repository root (the working directory of the runs)"
else
  fail "entries added or removed at $ROOT: $(diff <(echo "$ROOT_BEFORE") <(ls -A "$ROOT") | grep '^[<>]' | head -n 5 | tr '\n' '|')"
fi
