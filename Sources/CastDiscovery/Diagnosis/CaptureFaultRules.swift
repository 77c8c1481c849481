// Rules about how much of a capture could be read, and what the capturing machine itself lost.
extension Diagnosis {
    /// CAPTURE_UNREADABLE: the file cannot be read from some frame on (a damaged block,
    /// something the reader does not read). Everything before it was analysed; an error when
    /// no discovery packet came before the fault (nothing about discovery could be analysed),
    /// else a warning. It stands in for NO_MDNS_TRAFFIC and NO_CAST_QUERIES, whose claims
    /// (the wrong interface, nobody searched) the unread rest of the file could contradict.
    static func captureUnreadable(_ context: DiagnosisContext, capture i: Int) -> Finding? {
        let c = context.report.captures[i]
        guard let fault = c.unreadableFrom else { return nil }
        let blind = c.discoveryPackets == 0
        let at = "frame \(fault.frame)" + (fault.byteOffset.map { " (byte offset \($0))" } ?? "")
        let read =
            c.packets == 0
            ? "Not one frame could be read before it"
            : "The \(Wording.count(c.packets, "frame")) before it were analysed"
                + (blind
                    ? ", and they hold no mDNS or SSDP packet: the rest of the file may, so this analysis cannot "
                        + "say whether discovery works"
                    : " (\(Wording.count(c.discoveryPackets, "discovery packet"))); what came after was not")
        return Finding(
            code: .captureUnreadable, severity: blind ? .error : .warning,
            title: "\(c.file) is unreadable from \(at)",
            detail: "Reading stopped at \(at): \(fault.message). \(read).",
            advice: "Open the file in Wireshark to see whether it reads further (`editcap` or Wireshark's "
                + "Export Specified Packets can save what is readable); if the file was copied or "
                + "downloaded, copy it again, and capture again if it is damaged at the source.",
            frames: c.packets > 0 ? [FrameRef(capture: i, frame: c.packets)] : [])
    }

    /// PACKETS_DROPPED for a capture file: its pcapng Interface Statistics Blocks say the
    /// capturing machine dropped packets (`isb_ifdrop`, `isb_osdrop`), so something missing
    /// from the capture may never have been recorded rather than never sent.
    static func fileDrops(_ context: DiagnosisContext) -> Finding? {
        var parts: [String] = []
        var total: UInt64 = 0
        for c in context.report.captures {
            for interface in c.interfaces {
                guard let dropped = interface.dropped, dropped > 0 else { continue }
                total = total.addingReportingOverflow(dropped).partialValue
                var by: [String] = []
                if let n = interface.droppedByInterface, n > 0 { by.append("\(n) by the interface") }
                if let n = interface.droppedByOS, n > 0 { by.append("\(n) by the operating system") }
                let name = context.report.captures.count > 1 ? "\(c.file) \(interface.shownName)" : interface.shownName
                parts.append("\(name): \(by.joined(separator: ", "))")
            }
        }
        guard total > 0 else { return nil }
        return Finding(
            code: .packetsDropped, severity: .warning,
            title: Wording.count(Int(clamping: total), "packet") + (total == 1 ? " was" : " were")
                + " dropped by the capturing machine",
            detail: "The capture file's interface statistics (pcapng Interface Statistics Blocks) count packets "
                + "that were never written to it (\(capped(parts))). Discovery traffic may be among them, so a "
                + "query or answer missing from this analysis may be missing from the capture, not from the "
                + "network.",
            advice: "Capture again with a larger buffer (`tcpdump -B 8192`, dumpcap `-B`), the filter "
                + "`udp port 5353 or udp port 1900`, and to a local disk.")
    }
}
