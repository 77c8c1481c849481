// Rules about a live capture (`castscope live`), over what libpcap reports at its end.
extension Diagnosis {
    /// PACKETS_DROPPED: the kernel or the interface dropped packets that were not read fast
    /// enough (`pcap_stats`).
    static func packetsDropped(_ context: DiagnosisContext) -> Finding? {
        guard let dropped = context.inputs.packetsDropped, dropped.kernel + dropped.interface > 0 else { return nil }
        return Finding(
            code: .packetsDropped, severity: .warning,
            title: Wording.count(Int(clamping: dropped.kernel + dropped.interface), "packet")
                + (dropped.kernel + dropped.interface == 1 ? " was" : " were") + " dropped during the capture",
            detail: "The kernel dropped \(dropped.kernel) and the interface \(dropped.interface) packets "
                + "(pcap_stats) because they were not read fast enough: some discovery traffic may be "
                + "missing from this analysis.",
            advice: "Capture with a larger \(AdviceOption.bufferSize.flag), narrow \(AdviceOption.filter.flag), "
                + "or capture to a file with tcpdump and analyse it afterwards.")
    }
}
