// Rules about the capture itself: whether it can show discovery at all.
extension Diagnosis {
    /// ENCRYPTED_WIFI: an 802.11 capture whose data frames are protected; an error when no
    /// mDNS at all could be read, else a warning.
    static func encryptedWiFi(_ context: DiagnosisContext, capture i: Int) -> Finding? {
        let c = context.report.captures[i]
        guard c.protectedWiFiFrames > 0 else { return nil }
        let blind = c.mdnsPackets == 0
        return Finding(
            code: .encryptedWiFi, severity: blind ? .error : .warning,
            title: "\(c.file) is an encrypted Wi-Fi capture: mDNS inside it cannot be read",
            detail: "\(c.protectedWiFiFrames) of \(c.wifiDataFrames) 802.11 data frames have the Protected "
                + "bit set. Multicast mDNS travels in group-key-encrypted frames, so without the network "
                + "keys and the 4-way handshake nothing in them can be decoded"
                + (blind ? "." : "; only the \(c.mdnsPackets) unencrypted mDNS packets were analysed."),
            advice: "Capture on the sender itself (tcpdump on its interface, rvictl for an iPhone, "
                + "PCAPdroid for Android) or on a wired port, or decrypt the capture in Wireshark with "
                + "the network's key and a captured handshake first.",
            frames: [], subjects: FindingSubjects())
    }

    /// EMPTY_CAPTURE: a capture file with a header and no frame (tcpdump stopped before the
    /// first packet, the wrong interface with a filter, or a file cut after its header). An
    /// error when every capture is empty (there is nothing to analyse), else a warning.
    static func emptyCapture(_ context: DiagnosisContext, capture i: Int) -> Finding? {
        let c = context.report.captures[i]
        guard c.packets == 0, !c.truncated, c.unreadableFrom == nil else { return nil }
        let all = context.allCapturesEmpty
        return Finding(
            code: .emptyCapture, severity: all ? .error : .warning,
            title: "\(c.file) is empty: it has no frames at all",
            detail: "The file has a valid \(c.linkType) capture header and not one frame, so it shows "
                + "nothing about discovery, good or bad"
                + (all ? "." : "; the other captures were analysed."),
            advice: "Capture again, and check that packets are being written before stopping: tcpdump "
                + "prints \"N packets captured\" when it ends. If that is 0, capture on the interface the "
                + "sender uses for the LAN and with no capture filter (or `udp`), while pressing the Cast "
                + "button.")
    }

    /// TRUNCATED_CAPTURE: the file stops part-way through a record.
    static func truncatedCapture(_ context: DiagnosisContext, capture i: Int) -> Finding? {
        let c = context.report.captures[i]
        guard c.truncated else { return nil }
        return Finding(
            code: .truncatedCapture, severity: .info,
            title: "\(c.file) ends in the middle of a packet",
            detail: "The capture file stops part-way through a record"
                + (c.truncatedAtByte.map { ", the one at byte \($0)" } ?? "")
                + " (the capture was killed or the disk filled up). The \(c.packets) complete frames before the "
                + "cut were analysed.",
            advice: "Stop captures with Ctrl-C (tcpdump flushes on SIGINT) and check free space; "
                + "nothing needs to be done for this analysis.",
            frames: c.packets > 0 ? [FrameRef(capture: i, frame: c.packets)] : [])
    }

    /// MALFORMED_PACKETS: discovery packets that could not be decoded, with the first reasons.
    static func malformedPackets(_ context: DiagnosisContext) -> Finding? {
        let r = context.report
        guard r.malformedCount > 0 else { return nil }
        let reasons = Set(r.malformedFrames.map(\.reason)).sorted().prefix(3).joined(separator: "; ")
        return Finding(
            code: .malformedPackets, severity: .warning,
            title: "\(Wording.count(r.malformedCount, "discovery packet")) could not be decoded",
            detail: "mDNS or SSDP packets that are cut short or break the protocol's rules (\(reasons)). "
                + "What decoded before each fault was used.",
            advice: "If the capture used a small snap length, capture again with `-s 0`; otherwise look at "
                + "the frames in Wireshark: a device or proxy that sends broken mDNS may be dropped by senders.",
            frames: r.malformedFrames.map(\.frame))
    }
}
