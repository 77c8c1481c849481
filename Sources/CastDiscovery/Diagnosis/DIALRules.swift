// Rules about a client's DIAL (SSDP) search: whom it reached, and what DIAL alone means for the
// sender seen (DOMAIN.md §2 "Chrome DIAL/SSDP", §7.1 "DIAL answers name the device type", §7.4).

import WireFormat

extension Diagnosis {
    /// What Chromium's DIAL and mDNS schedule means (DOMAIN.md §7.4), for findings about a
    /// Chromium sender.
    static let chromiumDIALSchedule =
        "Chrome (and browsers built on it) searches with DIAL in the background, refreshed every 120 s, "
        + "and with mDNS only when its Cast dialog opens or the network changes."

    /// `192.0.2.10 (Google Chrome 99)`: the client and, when its M-SEARCH said, its software.
    static func dialClientName(_ c: ClientContext) -> String {
        c.client.dialSender.name.map { "\(c.address) (\($0))" } ?? c.address
    }

    /// A device's friendly name, else its id and address (a DIAL-only device has no name).
    static func dialDeviceName(_ context: DiagnosisContext, _ id: String) -> String {
        guard let d = context.devicesByID[id], d.friendlyName == nil, let a = d.addresses.first else {
            return context.name(of: id)
        }
        return "\(id) at \(a)"
    }

    /// DIAL_UNANSWERED: a client searched with DIAL only (no mDNS query) and no Cast device
    /// answered. An error when nothing in the capture came from a Cast device; else a warning
    /// for an app, which depends on DIAL, and a note for Chrome, which finds Cast devices over
    /// mDNS once its Cast dialog opens.
    static func dialUnanswered(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        let searches = c.client.dialSearches
        guard !c.queried, searches > 0, context.dialAnswers[c.client.address] == nil else { return [] }
        let chromium = c.client.dialSender.isChromium
        let castDevices = context.report.devices
        let others = context.otherDIALAnswers[c.client.address] ?? []
        let othersText = list(others.map { "\($0.server ?? $0.id) at \($0.address)" })
        var detail =
            "\(Wording.count(searches, "DIAL M-SEARCH", "DIAL M-SEARCHes")) "
            + "(ST urn:dial-multiscreen-org:service:dial:1) and no mDNS query for _googlecast._tcp from it; "
        detail +=
            others.isEmpty
            ? "no DIAL server answered. "
            : "only \(othersText) answered, which \(Wording.noun(others.count, "is not a Cast device", "are not Cast devices")) "
                + "(LOCATION is not a Cast device description, http://<ip>:8008/ssdp/device-desc.xml). "
        detail +=
            castDevices.isEmpty
            ? "Nothing in the capture came from a Cast device, over mDNS or DIAL. "
            : "Cast devices are on the network (\(list(castDevices.map { dialDeviceName(context, $0.id) }))), but none "
                + "answered its DIAL search. "
        if others.isEmpty {
            detail +=
                "DIAL answers come by unicast to the searcher's port: a capture taken on another host, or on a "
                + "mirror port that sees only multicast, does not show them."
        }
        if chromium { detail += " " + chromiumDIALSchedule }
        let severity: Severity = castDevices.isEmpty ? .error : chromium ? .info : .warning
        let advice: String
        if chromium, !castDevices.isEmpty {
            advice =
                "Nothing to fix for Chrome: it asks for Cast devices over mDNS when the Cast dialog opens. Capture "
                + "while opening the Cast dialog (⋮ › Cast…) to see that search."
        } else if chromium {
            let browser = c.client.dialSender.product ?? "Chrome"
            advice =
                "Capture again while opening \(browser)'s Cast dialog (⋮ › Cast…), so that it asks with mDNS "
                + "too. If nothing answers then either, check that the device is on and on this network: the "
                + "same VLAN and subnet, client isolation off on the access point, multicast to "
                + "239.255.255.250 and 224.0.0.251 allowed."
        } else {
            advice =
                "The sender searches only with DIAL, the legacy discovery path: update it to a current Cast "
                + "SDK (mDNS discovery). Check that the device is on, in the same VLAN, with client isolation "
                + "off and SSDP multicast (239.255.255.250:1900) forwarded."
        }
        return [
            Finding(
                code: .dialUnanswered, severity: severity,
                title: "\(dialClientName(c)) searched with DIAL \(Wording.times(searches)); "
                    + (others.isEmpty ? "no DIAL device answered" : "no Cast device answered, only other DIAL devices"),
                detail: detail, advice: advice,
                frames: c.client.dialSearchFrames + others.compactMap(\.firstAnswerFrame), subjects: c.subject)
        ]
    }

    /// DIAL_ONLY: the client searched with SSDP M-SEARCH for DIAL, a Cast device answered, and it
    /// never asked with mDNS. Normal for Chrome while its Cast dialog is closed (a note); the
    /// legacy discovery path for an app (a warning).
    static func dialOnly(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard !c.queried, c.client.dialSearches > 0, let answers = context.dialAnswers[c.client.address]
        else { return [] }
        let searches = Wording.count(c.client.dialSearches, "SSDP M-SEARCH", "SSDP M-SEARCHes")
        let answered =
            "answered by "
            + list(
                answers.map {
                    "\(dialDeviceName(context, $0.device)) (fastest \(Wording.decimal($0.ms, places: 1)) ms)"
                })
        let frames = c.client.dialSearchFrames.prefix(4) + context.latencyFramesOfDIAL(c.client.address)
        let subjects = FindingSubjects(clients: [c.address], devices: answers.map(\.device))
        if c.client.dialSender.isChromium {
            return [
                Finding(
                    code: .dialOnly, severity: .info,
                    title: "\(dialClientName(c)) searched only with DIAL: normal while the Cast dialog is closed",
                    detail: "\(searches) for DIAL, \(answered), and no mDNS query for _googlecast._tcp. "
                        + chromiumDIALSchedule + " It then opens a Cast connection (TCP 8009) to each DIAL device.",
                    advice: "Nothing to fix. To see Chrome's mDNS discovery, capture while opening the Cast dialog "
                        + "(⋮ › Cast…).",
                    frames: Array(frames), subjects: subjects)
            ]
        }
        return [
            Finding(
                code: .dialOnly, severity: .warning,
                title: "\(dialClientName(c)) searched only with SSDP/DIAL, never with mDNS",
                detail: "\(searches) for DIAL, \(answered), and no mDNS query for _googlecast._tcp. "
                    + "DIAL is the legacy discovery path: it needs the sender and the device in one VLAN "
                    + "with SSDP multicast forwarded, and current Cast SDKs discover with mDNS.",
                advice: "Update the sender to a current Cast SDK (mDNS discovery); on a segmented network, "
                    + "forward SSDP (239.255.255.250:1900) or move sender and device into one VLAN.",
                frames: Array(frames), subjects: subjects)
        ]
    }
}

extension DiagnosisContext {
    /// The first DIAL answer frames that reached a client (at most four).
    func latencyFramesOfDIAL(_ client: IPAddress) -> [FrameRef] {
        Array(
            (latencyRows[client] ?? [:]).values.joined().filter { $0.via == .dial }.compactMap(\.firstAnswerFrame)
                .sorted().prefix(4))
    }
}
