import CastDiscovery
import PcapCapture
import WireFormat

/// Frames as they arrive, decoded in place into one tracker: what `live` and `probe` share.
/// A frame may come from a capture interface or be made by the probe from its own sockets
/// (raw IP); each source has its decoder, all of them one timeline.
struct LiveIngest {
    var tracker: DiscoveryTracker
    /// With `live --metrics`, the next analysis window's tracker, fed the same packets
    /// (``LiveWatch``); its events are not reported.
    var younger: DiscoveryTracker?
    var decoders: [DiscoveryDecoder]
    let writer: CaptureWriter?
    let analysis: AnalysisOptions
    private(set) var frames = 0
    private(set) var first: Timestamp?
    private(set) var last: Timestamp?

    init(linkTypes: [LinkType], analysis: AnalysisOptions, writer: CaptureWriter?) {
        self.analysis = analysis
        tracker = DiscoveryTracker(options: analysis)
        decoders = linkTypes.map { DiscoveryDecoder(linkType: $0, reassemblyLimits: analysis.reassemblyLimits) }
        self.writer = writer
    }

    /// One frame from source `index`: written (when writing), decoded in place and tracked, as
    /// analyze reads a file; nothing is materialised.
    mutating func ingest(_ index: Int, timestamp: Timestamp, bytes: UnsafeRawBufferPointer, originalLength: Int) {
        frames += 1
        if first == nil { first = timestamp }
        last = timestamp
        writer?.write(bytes, timestamp: timestamp, originalLength: originalLength)
        let frame = frames
        decoders[index].decodeInPlace(
            frame: frame, timestamp: timestamp, bytes: bytes, originalLength: originalLength
        ) { packet, view in
            tracker.ingest(packet, message: view, capture: 0)
            younger?.ingest(packet, message: view, capture: 0)
        }
        advance(to: timestamp)
    }

    /// Moves every tracker's clock to `now`.
    mutating func advance(to now: Timestamp) {
        tracker.advance(to: now)
        younger?.advance(to: now)
    }

    /// Ends the timeline and diagnoses it, as one capture named `name`.
    mutating func finish(
        name: String, linkTypeName: String, dropped: (kernel: UInt64, interface: UInt64)
    ) -> AnalysisReport {
        writer?.flush()
        let info = CaptureInfo(
            file: name, linkType: linkTypeName, packets: frames, statistics: statistics, start: first, end: last)
        return Self.report(of: &tracker, info: info, dropped: dropped, options: analysis)
    }

    /// Ends `tracker`'s timeline and diagnoses it as the capture `info` describes.
    static func report(
        of tracker: inout DiscoveryTracker, info: CaptureInfo, dropped: (kernel: UInt64, interface: UInt64),
        options: AnalysisOptions
    ) -> AnalysisReport {
        timelineAndReport(of: &tracker, info: info, dropped: dropped, options: options).report
    }

    /// The timeline too (a watch counts per address from it); without `diagnose`, the report
    /// has no findings (what a watch's counts need is there, sooner).
    static func timelineAndReport(
        of tracker: inout DiscoveryTracker, info: CaptureInfo, dropped: (kernel: UInt64, interface: UInt64),
        options: AnalysisOptions, diagnose: Bool = true
    ) -> (timeline: TimelineResult, report: AnalysisReport) {
        let timeline = tracker.finish()
        var report = AnalysisReport(captures: [info], timelines: [timeline], options: options, merged: false)
        if diagnose { report.findings = Diagnosis.diagnose(report, inputs: DiagnosisInputs(packetsDropped: dropped)) }
        return (timeline, report)
    }

    /// Decode statistics of every source together.
    var statistics: DecodeStatistics {
        var stats = DecodeStatistics()
        for d in decoders { stats += d.statistics }
        return stats
    }
}
