// Rules about whether there is discovery traffic at all.
extension Diagnosis {
    /// NO_MDNS_TRAFFIC: not one mDNS packet. Encrypted Wi-Fi explains the silence
    /// (ENCRYPTED_WIFI), and a DIAL-only sender is its own finding (DIAL_ONLY). A capture with
    /// no Cast traffic at all shows nothing wrong with Cast: a note, unless an Info.plist says
    /// an app is the subject (`--plist`), when it is an error. Not when a capture is
    /// unreadable from some frame on (CAPTURE_UNREADABLE says so): the rest may hold mDNS.
    static func noMDNSTraffic(_ context: DiagnosisContext) -> Finding? {
        let r = context.report
        guard context.mdnsPackets == 0, !context.dialSearched, !context.allCapturesEmpty, !context.noSuchClient,
            !context.someCaptureUnreadable, !r.captures.contains(where: { $0.protectedWiFiFrames > 0 })
        else { return nil }
        let ssdp = context.ssdpPackets
        // Frames of an interface whose link type is not decoded say nothing either way.
        let notDecoded = r.captures.reduce(0) { $0 + $1.interfaces.reduce(0) { $0 + $1.framesNotDecoded } }
        let unread =
            notDecoded > 0
            ? " \(Wording.count(notDecoded, "other frame")) \(notDecoded == 1 ? "is" : "are") on an interface "
                + "whose link type castscope does not decode." : ""
        return Finding(
            code: .noMDNSTraffic,
            severity: context.inputs.plist == nil && context.inputs.app == nil ? .info : .error,
            title: "No mDNS traffic at all in the capture",
            detail: "Not one UDP packet to or from port 5353 in "
                + Wording.count(r.captures.map(\.packets).reduce(0, +) - notDecoded, "frame")
                + (ssdp > 0 ? " (there \(ssdp == 1 ? "is" : "are") \(Wording.count(ssdp, "SSDP packet")))." : ".")
                + unread
                + " Either the capture was taken on the wrong interface or with a filter that drops mDNS, "
                + "or nothing on this network speaks mDNS.",
            advice: "Capture on the interface the sender uses for the LAN (not a VPN, cellular or Docker "
                + "interface), without a capture filter or with `udp port 5353 or udp port 1900`, while "
                + "pressing the Cast button.")
    }

    /// NO_CAST_QUERIES: mDNS is there, but no client searched for Cast devices, with mDNS or
    /// with DIAL. An error when an Info.plist says an app is the subject (`--plist`); a warning
    /// when Cast devices announce themselves (the network has them, and no sender here asked);
    /// otherwise a note: other services' mDNS shows nothing wrong with Cast. Not when a
    /// capture is unreadable from some frame on: the queries may be in the part not read.
    static func noCastQueries(_ context: DiagnosisContext) -> Finding? {
        let r = context.report
        guard context.mdnsPackets > 0, !context.dialSearched, !r.clients.contains(where: { $0.queries > 0 }),
            !context.noSuchClient, !context.someCaptureUnreadable
        else { return nil }
        let heard = context.mdnsDevices
        let start = appDiscoveryStart(context.inputs.app)
        let severity: Severity =
            start.waits
            ? .warning
            : context.inputs.plist != nil || context.inputs.app != nil
                ? .error : heard.isEmpty ? .info : .warning
        return Finding(
            code: .noCastQueries, severity: severity,
            title: heard.isEmpty && severity == .info
                ? "No Cast discovery in the capture: nobody searched for Cast devices"
                : "Nobody searched for Cast devices",
            detail: "The capture has \(context.mdnsPackets) mDNS packets but no query for _googlecast._tcp.local "
                + "or an app-ID subtype, and no DIAL search."
                + (heard.isEmpty
                    ? ""
                    : " \(Wording.count(heard.count, "Cast device")) \(Wording.noun(heard.count, "was", "were")) "
                        + "heard announcing, so the network carries mDNS: the sender never asked.")
                + start.sentence,
            advice: "On iOS 14+, check that the app may use the Local Network (Settings › Privacy › Local "
                + "Network) and that Info.plist has NSBonjourServices with _googlecast._tcp and "
                + "_<APPID>._googlecast._tcp plus NSLocalNetworkUsageDescription (castscope check-plist). "
                + "With startDiscoveryAfterFirstTapOnCastButton, discovery starts only after the first tap. "
                + "Make sure the capture covers the moment the Cast button was pressed.",
            frames: heard.map(\.firstFrame), subjects: FindingSubjects(devices: heard.map(\.id)))
    }

    /// NO_SUCH_CLIENT: `--client` named addresses none of which searched in the capture; the
    /// hosts that did are listed, so the user can pick one.
    static func noSuchClient(_ context: DiagnosisContext) -> Finding? {
        guard context.noSuchClient else { return nil }
        let r = context.report
        let asked = r.clientFilter.map(\.description)
        let seen = r.clientsLeftOut.map(\.description)
        return Finding(
            code: .noSuchClient, severity: .error,
            title: "No client \(list(asked)) in the capture",
            detail: "--client \(asked.joined(separator: " ")): no Cast query and no DIAL search came from "
                + (asked.count == 1 ? "that address" : "those addresses") + ". "
                + (seen.isEmpty
                    ? "No host searched for Cast devices in the capture at all."
                    : "Cast queries or DIAL searches came from \(Wording.count(seen.count, "address", "addresses")): "
                        + "\(list(seen))."),
            advice: seen.isEmpty
                ? "Leave out --client to see everything the capture holds."
                : "Give one of the addresses listed with --client, or leave --client out to see every client.")
    }

    /// What `analyze --app` knows of when the app starts discovery: whether a capture without
    /// Cast queries is expected (the app waits for the first tap on the Cast button, or for its
    /// own startDiscovery call), and a sentence saying so.
    static func appDiscoveryStart(_ app: AppFacts?) -> (waits: Bool, sentence: String) {
        guard let app, let scan = app.sources, scan.castSetup != nil else { return (false, "") }
        if let off = scan.autostartDisabled, off.value {
            return (
                true,
                " The app \(app.name) sets disableDiscoveryAutostart (\(off.location)): it sends no Cast query until "
                    + "it calls startDiscovery, so this is expected unless the capture covers that moment."
            )
        }
        if let tap = scan.afterFirstTap, !tap.value {
            return (
                false,
                " The app \(app.name) starts discovery at launch (startDiscoveryAfterFirstTapOnCastButton is false at "
                    + "\(tap.location)), so a capture of it running should show its Cast queries."
            )
        }
        if app.sdks.contains(where: { ($0.version.map { $0 < .iOS14Minimum }) ?? false }) { return (false, "") }
        let setting =
            scan.afterFirstTap.map { "startDiscoveryAfterFirstTapOnCastButton is true at \($0.location)" }
            ?? "startDiscoveryAfterFirstTapOnCastButton is left at its default, true"
        return (
            true,
            " The app \(app.name) starts discovery only after the first tap on the Cast button (\(setting)), unless "
                + "discovery ran in an earlier session: this is expected if the button was not tapped during the "
                + "capture."
        )
    }
}
