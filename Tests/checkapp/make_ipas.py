#!/usr/bin/env python3
"""Writes the .ipa fixtures of Tests/checkapp/run.sh into OUTDIR (python3 stdlib only).

  make_ipas.py OUTDIR        writes every archive below, prints one `# NAME: ...` line each

Nothing here is committed: the archives are made at test time (about 6 s, most of it the two
archives of 100000 entries). Each .ipa is a zip as Xcode's export writes it:
Payload/<Name>.app/Info.plist (the main Info.plist), the executable, PkgInfo,
_CodeSignature/CodeResources and, for a dynamically linked Cast SDK,
Frameworks/GoogleCast.framework/{Info.plist,GoogleCast} (the binary a small but well-formed
arm64 Mach-O dylib whose load commands name the libraries it links). Version, build and
flavour of each are in the table of Tests/checkapp/README.md.

Apps (run.sh checks the codes):
  ok.ipa                  GoogleCast.framework 4.8.3, Xcode 15.0 (DTXcode 1500), iphoneos17.0,
                          full Info.plist in BINARY form; also a widget extension whose own
                          Info.plist (PlugIns/…appex/Info.plist, listed first) has no Cast keys,
                          and the framework's own resource bundles    -> APP_OK
  xcode12-old.ipa         4.5.0 built with Xcode 12.0 (1200)          -> APP_CAST_SDK_TOO_OLD
  xcode11-ios13-bad.ipa   4.4.2, Xcode 11.7 (1170), iphoneos13.7      -> APP_CAST_SDK_TOO_OLD
  xcode11-ios13-good.ipa  4.4.4, the same build                       -> APP_CAST_SDK_UPDATE_RECOMMENDED (warning)
  static.ipa              no framework, only GoogleCastCoreResources.bundle and
                          GoogleCastUIResources.bundle at the app's root (a statically linked SDK)
                                                                      -> APP_CAST_SDK_VERSION_UNKNOWN, APP_OK
  guest-mode-bad.ipa      4.7.1 whose binary links CoreBluetooth, no NSBluetoothAlwaysUsageDescription
                                                                      -> APP_BLUETOOTH_USAGE_MISSING (+ update info)
  guest-mode-good.ipa     the same with the key                       -> APP_CAST_SDK_UPDATE_RECOMMENDED (info), APP_OK
  missing-service.ipa     4.8.3; NSBonjourServices lists only _4F8B3483._googlecast._tcp
                                                                      -> PLIST_MISSING_SERVICE
  limit-entries.ipa       the ok app padded with empty files to exactly 100000 entries: at the
                          limit, still read                           -> APP_OK
Hostile (each must give exit 65, one `castscope: ` line, no output, no file written):
  bomb.ipa                Payload/Bomb.app/Info.plist: 64 MiB of zeros deflated to 64 KiB (its
                          header says so honestly)
  many-entries.ipa        100001 entries (one over the limit), the app in it otherwise fine
  traversal.ipa           a fine app plus an entry `Payload/../../evil/Info.plist`
  absolute.ipa            a fine app plus an entry `/abs/Info.plist`
  text.ipa                a text file
  empty.ipa               an empty file
  no-payload.ipa          a zip with CastPlayer.app/Info.plist (no Payload/) and
                          Payload/CastPlayer.app/Frameworks/GoogleCast.framework/Info.plist (not
                          the app's own Info.plist)
  lying-size.ipa          a fine app whose Info.plist entry holds a 1.8 KB XML plist followed by
                          32 MiB of newlines (deflated), but whose local and central headers were
                          patched to claim the plist's length only; exit 65, or a clean result from
                          reading at most the limit: never a crash, never unbounded memory
"""
import io
import os
import plistlib
import struct
import sys
import zipfile

MIB = 1 << 20
USAGE = "CastPlayer uses the local network to discover Cast-enabled devices on your WiFi network."
BT = "CastPlayer uses Bluetooth to discover nearby Cast devices."
XCODE = {  # DTXcode -> (DTXcodeBuild, DTSDKName, DTSDKBuild, BuildMachineOSBuild)
    "1500": ("15A240d", "iphoneos17.0", "21A326", "22G91"),
    "1200": ("12A7209", "iphoneos14.0", "18A373", "19G2021"),
    "1170": ("11E801a", "iphoneos13.7", "17H35", "19G73"),
}
FOUNDATION = "/System/Library/Frameworks/Foundation.framework/Foundation"
UIKIT = "/System/Library/Frameworks/UIKit.framework/UIKit"
COREBLUETOOTH = "/System/Library/Frameworks/CoreBluetooth.framework/CoreBluetooth"
CAST_DYLIBS = [FOUNDATION, UIKIT, "/System/Library/Frameworks/Network.framework/Network",
               "/System/Library/Frameworks/SystemConfiguration.framework/SystemConfiguration",
               "/usr/lib/libc++.1.dylib", "/usr/lib/libSystem.B.dylib"]


# ------------------------------------------------------------------ building blocks
def macho(filetype, install_name, dylibs, symbols, size=16384):
    """A small arm64 Mach-O (MH_EXECUTE 2 or MH_DYLIB 6): header, LC_ID_DYLIB (dylibs only),
    one LC_LOAD_DYLIB per library, then symbol-like strings and zero padding to SIZE bytes."""
    cmds = []

    def dylib_cmd(cmd, path):
        name = path.encode() + b"\0"
        name += b"\0" * (-(24 + len(name)) % 8)
        return struct.pack("<IIIIII", cmd, 24 + len(name), 24, 2, 0x10000, 0x10000) + name

    if filetype == 6:
        cmds.append(dylib_cmd(0xD, install_name))
    for d in dylibs:
        cmds.append(dylib_cmd(0xC, d))
    body = b"".join(cmds)
    header = struct.pack("<IIIIIIII", 0xFEEDFACF, 0x0100000C, 0, filetype, len(cmds), len(body), 0x00200085, 0)
    strings = b"\0".join(s.encode() for s in symbols) + b"\0"
    out = header + body + b"\0" * 64 + strings
    return out + b"\0" * max(0, size - len(out))


def cast_binary(guest_mode):
    dylibs = list(CAST_DYLIBS)
    if guest_mode:
        dylibs.insert(2, COREBLUETOOTH)
    return macho(6, "@rpath/GoogleCast.framework/GoogleCast", dylibs,
                 ["_OBJC_CLASS_$_GCKCastContext", "_OBJC_CLASS_$_GCKDiscoveryCriteria",
                  "_OBJC_CLASS_$_GCKUICastButton", "_kGCKDefaultMediaReceiverApplicationID"])


def app_binary(name, dynamic_cast):
    dylibs = [FOUNDATION, UIKIT, "/usr/lib/libSystem.B.dylib", "/usr/lib/swift/libswiftCore.dylib"]
    if dynamic_cast:
        dylibs.insert(0, "@rpath/GoogleCast.framework/GoogleCast")
    return macho(2, "", dylibs, [f"_$s{len(name)}{name}11AppDelegateC", "_main"])


def app_plist(name, *, xcode="1500", minos="14.0", services=None, usage=True, bluetooth=False, binary=False):
    build, sdk, sdk_build, machine = XCODE[xcode]
    d = {
        "BuildMachineOSBuild": machine,
        "CFBundleDevelopmentRegion": "en",
        "CFBundleExecutable": name,
        "CFBundleIdentifier": f"com.example.{name.lower()}",
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": name,
        "CFBundlePackageType": "APPL",
        "CFBundleShortVersionString": "2.3.0",
        "CFBundleSupportedPlatforms": ["iPhoneOS"],
        "CFBundleVersion": "230",
        "DTCompiler": "com.apple.compilers.llvm.clang.1_0",
        "DTPlatformBuild": sdk_build,
        "DTPlatformName": "iphoneos",
        "DTPlatformVersion": sdk.removeprefix("iphoneos"),
        "DTSDKBuild": sdk_build,
        "DTSDKName": sdk,
        "DTXcode": xcode,
        "DTXcodeBuild": build,
        "LSRequiresIPhoneOS": True,
        "MinimumOSVersion": minos,
        "UIDeviceFamily": [1, 2],
        "UILaunchStoryboardName": "LaunchScreen",
        "UIRequiredDeviceCapabilities": ["arm64"],
        "NSBonjourServices": services if services is not None else ["_googlecast._tcp",
                                                                     "_4F8B3483._googlecast._tcp"],
    }
    if usage:
        d["NSLocalNetworkUsageDescription"] = USAGE
    if bluetooth:
        d["NSBluetoothAlwaysUsageDescription"] = BT
    return plistlib.dumps(d, fmt=plistlib.FMT_BINARY if binary else plistlib.FMT_XML)


def framework_plist(version, xcode="1500"):
    build, sdk, sdk_build, machine = XCODE[xcode]
    return plistlib.dumps({
        "BuildMachineOSBuild": machine, "CFBundleDevelopmentRegion": "en", "CFBundleExecutable": "GoogleCast",
        "CFBundleIdentifier": "com.google.GoogleCast", "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": "GoogleCast", "CFBundlePackageType": "FMWK", "CFBundleShortVersionString": version,
        "CFBundleSupportedPlatforms": ["iPhoneOS"], "CFBundleVersion": version, "DTSDKName": sdk,
        "DTXcode": xcode, "DTXcodeBuild": build, "MinimumOSVersion": "14.0" if version >= "4.8.1" else "12.0",
    }, fmt=plistlib.FMT_BINARY)


def bundle_plist(name):
    """A resource bundle's Info.plist: no version (as the Cast SDK's resource bundles)."""
    return plistlib.dumps({"CFBundleDevelopmentRegion": "en", "CFBundleIdentifier": f"com.google.{name}",
                           "CFBundleInfoDictionaryVersion": "6.0", "CFBundleName": name,
                           "CFBundlePackageType": "BNDL"}, fmt=plistlib.FMT_BINARY)


def code_resources(files):
    return plistlib.dumps({"files": {f: b"\x00" * 20 for f in files},
                           "files2": {f: {"hash2": b"\x00" * 32} for f in files},
                           "rules": {"^.*": True}, "rules2": {"^.*": True}})


def add(z, name, data=b"", compress=True):
    info = zipfile.ZipInfo(name, date_time=(2024, 5, 6, 12, 0, 0))
    info.external_attr = ((0o40755 if name.endswith("/") else 0o100644) << 16) | (0x10 if name.endswith("/") else 0)
    info.compress_type = zipfile.ZIP_DEFLATED if compress and data else zipfile.ZIP_STORED
    z.writestr(info, data)


def app_entries(name, *, plist, framework=None, guest_mode=False, fw_xcode="1500", static=False, widget=False):
    """[(entry name, bytes)] of one app, in the order Xcode's export writes them (directories too)."""
    a = f"Payload/{name}.app/"
    e = [("Payload/", b""), (a, b"")]
    if framework:
        fw = a + "Frameworks/GoogleCast.framework/"
        e += [(a + "Frameworks/", b""), (fw, b""),
              (fw + "GoogleCastCoreResources.bundle/", b""),
              (fw + "GoogleCastCoreResources.bundle/Info.plist", bundle_plist("GoogleCastCoreResources")),
              (fw + "GoogleCastUIResources.bundle/", b""),
              (fw + "GoogleCastUIResources.bundle/Info.plist", bundle_plist("GoogleCastUIResources")),
              (fw + "Info.plist", framework_plist(framework, fw_xcode)),
              (fw + "GoogleCast", cast_binary(guest_mode))]
    if widget:
        w = a + f"PlugIns/{name}Widget.appex/"
        e += [(a + "PlugIns/", b""), (w, b""),
              (w + "Info.plist", plistlib.dumps({"CFBundleExecutable": f"{name}Widget",
                                                 "CFBundleIdentifier": f"com.example.{name.lower()}.widget",
                                                 "CFBundlePackageType": "XPC!", "MinimumOSVersion": "17.0",
                                                 "NSExtension": {"NSExtensionPointIdentifier":
                                                                 "com.apple.widgetkit-extension"}})),
              (w + f"{name}Widget", app_binary(name + "Widget", False))]
    if static:
        for b in ("GoogleCastCoreResources", "GoogleCastUIResources"):
            e += [(a + f"{b}.bundle/", b""), (a + f"{b}.bundle/Info.plist", bundle_plist(b)),
                  (a + f"{b}.bundle/Assets.car", b"BOMStore" + b"\0" * 1024)]
    e += [(a + "Info.plist", plist), (a + name, app_binary(name, bool(framework))), (a + "PkgInfo", b"APPL????"),
          (a + "Base.lproj/", b""), (a + "Base.lproj/LaunchScreen.storyboardc/", b""),
          (a + "Base.lproj/LaunchScreen.storyboardc/Info.plist", plistlib.dumps({"UIViewControllerIdentifiersToNibNames": {}}))]
    files = [n[len(a):] for n, _ in e if n.startswith(a) and not n.endswith("/")]
    e += [(a + "_CodeSignature/", b""), (a + "_CodeSignature/CodeResources", code_resources(files))]
    return e


def write_zip(path, entries, pad_to=None):
    with zipfile.ZipFile(path, "w") as z:
        for n, d in entries:
            add(z, n, d)
        if pad_to is not None:
            # empty files, stored: the fastest way to a given entry count
            base = entries[1][0] + "Assets/"
            for i in range(pad_to - len(entries)):
                info = zipfile.ZipInfo(f"{base}{i:06d}.dat", date_time=(2024, 5, 6, 12, 0, 0))
                z.writestr(info, b"")
    return path


# ------------------------------------------------------------------ the archives
def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    P = lambda n: os.path.join(out, n)  # noqa: E731
    made = []

    def app(fname, name, **kw):
        plist_kw = {k: kw.pop(k) for k in list(kw) if k in ("xcode", "minos", "services", "usage", "bluetooth", "binary")}
        if "xcode" in plist_kw:
            kw.setdefault("fw_xcode", plist_kw["xcode"])
        pad = kw.pop("pad_to", None)
        write_zip(P(fname), app_entries(name, plist=app_plist(name, **plist_kw), **kw), pad)
        made.append(fname)

    app("ok.ipa", "CastPlayer", framework="4.8.3", binary=True, widget=True)
    app("xcode12-old.ipa", "OldCast", framework="4.5.0", xcode="1200", minos="12.0")
    for fname, ver in (("xcode11-ios13-bad.ipa", "4.4.2"), ("xcode11-ios13-good.ipa", "4.4.4")):
        # before 4.4.3 every SDK had guest mode; these link CoreBluetooth and declare the key
        app(fname, "LegacyCast", framework=ver, guest_mode=True, xcode="1170", minos="12.0", bluetooth=True)
    app("static.ipa", "StaticCast", static=True, minos="15.0")
    app("guest-mode-bad.ipa", "GuestCast", framework="4.7.1", guest_mode=True, minos="13.0")
    app("guest-mode-good.ipa", "GuestCast", framework="4.7.1", guest_mode=True, minos="13.0", bluetooth=True)
    app("missing-service.ipa", "CastPlayer", framework="4.8.3", services=["_4F8B3483._googlecast._tcp"])
    app("limit-entries.ipa", "CastPlayer", framework="4.8.3", pad_to=100000)

    # --- hostile
    with zipfile.ZipFile(P("bomb.ipa"), "w") as z:
        add(z, "Payload/")
        add(z, "Payload/Bomb.app/")
        info = zipfile.ZipInfo("Payload/Bomb.app/Info.plist", date_time=(2024, 5, 6, 12, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with z.open(info, "w") as f:
            zero = bytes(MIB)
            for _ in range(64):
                f.write(zero)
    made.append("bomb.ipa")

    fine = app_entries("Many", plist=app_plist("Many"), framework="4.8.3")
    write_zip(P("many-entries.ipa"), fine, pad_to=100001)
    made.append("many-entries.ipa")

    for fname, evil in (("traversal.ipa", "Payload/../../evil/Info.plist"), ("absolute.ipa", "/abs/Info.plist")):
        e = app_entries("CastPlayer", plist=app_plist("CastPlayer"), framework="4.8.3")
        e.insert(2, (evil, app_plist("Evil")))
        write_zip(P(fname), e)
        made.append(fname)

    with open(P("text.ipa"), "w") as f:
        f.write("This is not an iOS app archive, just text that was named .ipa.\n")
    made.append("text.ipa")
    open(P("empty.ipa"), "wb").close()
    made.append("empty.ipa")

    e = [("CastPlayer.app/", b""), ("CastPlayer.app/Info.plist", app_plist("CastPlayer")),
         ("Payload/", b""), ("Payload/CastPlayer.app/", b""),
         ("Payload/CastPlayer.app/Frameworks/GoogleCast.framework/Info.plist", framework_plist("4.8.3")),
         ("Payload/readme.txt", b"the app is elsewhere\n")]
    write_zip(P("no-payload.ipa"), e)
    made.append("no-payload.ipa")

    lying(P("lying-size.ipa"))
    made.append("lying-size.ipa")

    for n in made:
        size = os.path.getsize(P(n))
        try:
            with zipfile.ZipFile(P(n)) as z:
                what = f"{len(z.infolist())} entries"
        except zipfile.BadZipFile:
            what = "not a zip"
        print(f"# {n}: {size} bytes, {what}")
    return 0


def lying(path):
    """An app whose Info.plist entry inflates to 32 MiB + 1.8 KB while both headers claim
    only the plist's own length."""
    plist = app_plist("Liar")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, d in app_entries("Liar", plist=b"", framework="4.8.3"):
            if n.endswith(".app/Info.plist"):
                info = zipfile.ZipInfo(n, date_time=(2024, 5, 6, 12, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with z.open(info, "w") as f:
                    f.write(plist)
                    nl = b"\n" * MIB
                    for _ in range(32):
                        f.write(nl)
            else:
                add(z, n, d)
    data = bytearray(buf.getvalue())
    target = b"Payload/Liar.app/Info.plist"
    claimed = len(plist)
    # local file header: signature PK\3\4, uncompressed size at +22, name length at +26, name at +30
    i = 0
    patched_local = patched_central = 0
    while True:
        i = data.find(b"PK\x03\x04", i)
        if i < 0:
            break
        nlen = struct.unpack_from("<H", data, i + 26)[0]
        if bytes(data[i + 30:i + 30 + nlen]) == target:
            struct.pack_into("<I", data, i + 22, claimed)
            patched_local += 1
        i += 4
    # central directory header: signature PK\1\2, uncompressed size at +24, name length at +28, name at +46
    i = 0
    while True:
        i = data.find(b"PK\x01\x02", i)
        if i < 0:
            break
        nlen = struct.unpack_from("<H", data, i + 28)[0]
        if bytes(data[i + 46:i + 46 + nlen]) == target:
            struct.pack_into("<I", data, i + 24, claimed)
            patched_central += 1
        i += 4
    if patched_local != 1 or patched_central != 1:
        raise SystemExit(f"lying-size.ipa: patched {patched_local} local and {patched_central} central headers")
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    sys.exit(main())
