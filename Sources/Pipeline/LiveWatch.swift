import CastDiscovery
import PcapCapture
import WireFormat

/// How `live --metrics` runs for days: two trackers fed the same packets, one started every
/// half window, each ended after a whole window. The older one (between half a window and a
/// window of traffic) is the live analysis: its events are reported, its report feeds the
/// ``DiscoveryWatch`` and gives the findings active now, so a finding clears between half a
/// window and a window after its cause ended, and what one tracker keeps never grows with the
/// time the watch has run.
struct LiveWatch {
    /// Where a tracker's window started: the time, and the counters then.
    struct Mark {
        var start: Timestamp
        var frames: Int
        var statistics: DecodeStatistics
        var dropped: (kernel: UInt64, interface: UInt64)
    }

    let windowSeconds: Double
    let linkTypeName: String
    var watch: DiscoveryWatch
    let started: Timestamp
    /// The current window's tracker (the ingest's `tracker`) and the younger one's.
    var current: Mark
    var next: Mark?
    var nextSwitch: Timestamp
    /// When the watch last took in a report of the current window.
    var lastRefresh: Timestamp?

    init(windowSeconds: Double, settings: DiscoveryWatch.Settings, linkTypeName: String, now: Timestamp) {
        self.windowSeconds = windowSeconds
        self.linkTypeName = linkTypeName
        watch = DiscoveryWatch(settings: settings)
        started = now
        current = Mark(start: now, frames: 0, statistics: DecodeStatistics(), dropped: (0, 0))
        nextSwitch = Timestamp(epochSeconds: now.epochSeconds + windowSeconds / 2)
    }

    /// After each turn of the capture loop: counts the current window's events, and at each
    /// half window starts a younger tracker and ends the one that has seen a whole window.
    /// `dropCounts` (pcap_stats, a system call per interface) is read only then.
    mutating func tick(
        _ ingest: inout LiveIngest, events: [TrackerEvent], now: Timestamp,
        dropped dropCounts: @autoclosure () -> (kernel: UInt64, interface: UInt64)
    ) {
        watch.note(events)
        guard now >= nextSwitch else { return }
        let dropped = dropCounts()
        let mark = Mark(start: now, frames: ingest.frames, statistics: ingest.statistics, dropped: dropped)
        if let next {
            // The old window's last counts, then the younger tracker takes over from where it is.
            // Counts only (no diagnosis): the capture waits meanwhile, and the findings come
            // from the next scrape's report of the new window.
            var old = ingest.tracker
            let last = report(of: &old, from: current, ingest: ingest, dropped: dropped, diagnose: false)
            watch.absorb(last.report, timeline: last.timeline, windowStart: current.start, now: now, findings: false)
            ingest.tracker = ingest.younger!
            current = next
            var copy = ingest.tracker
            let first = report(of: &copy, from: current, ingest: ingest, dropped: dropped, diagnose: false)
            watch.startWindow(first.report, timeline: first.timeline, windowStart: current.start)
        }
        var younger = DiscoveryTracker(options: ingest.analysis)
        younger.advance(to: now)
        ingest.younger = younger
        next = mark
        nextSwitch = Timestamp(epochSeconds: now.epochSeconds + windowSeconds / 2)
        watch.age(now: now)
    }

    /// The state for a scrape: the current window's report taken in (at most once a second),
    /// and the counters.
    mutating func metrics(
        _ ingest: LiveIngest, now: Timestamp, dropped: (kernel: UInt64, interface: UInt64)
    ) -> LiveMetrics {
        if lastRefresh.map({ now.seconds(since: $0) >= 1 }) ?? true {
            var copy = ingest.tracker
            let taken = report(of: &copy, from: current, ingest: ingest, dropped: dropped)
            watch.absorb(taken.report, timeline: taken.timeline, windowStart: current.start, now: now)
            watch.age(now: now)
            lastRefresh = now
        }
        let stats = ingest.statistics
        return LiveMetrics(
            watch: watch, packetsRead: ingest.frames, packetsDecoded: stats.discoveryPackets,
            packetsMalformed: stats.malformedPackets, droppedKernel: dropped.kernel,
            droppedInterface: dropped.interface,
            started: started, now: now, windowSeconds: windowSeconds)
    }

    /// The analysis of what `tracker` saw since `mark`, as `castscope analyze` would give it for
    /// a capture of that window, and its timeline.
    func report(
        of tracker: inout DiscoveryTracker, from mark: Mark, ingest: LiveIngest,
        dropped: (kernel: UInt64, interface: UInt64), diagnose: Bool = true
    ) -> (timeline: TimelineResult, report: AnalysisReport) {
        let info = CaptureInfo(
            file: "live window since " + Wording.clock(mark.start),
            linkType: linkTypeName, packets: ingest.frames - mark.frames,
            statistics: ingest.statistics - mark.statistics,
            start: mark.start, end: ingest.last.map { Swift.max($0, mark.start) })
        let inWindow = (
            kernel: dropped.kernel &- mark.dropped.kernel, interface: dropped.interface &- mark.dropped.interface
        )
        return LiveIngest.timelineAndReport(
            of: &tracker, info: info, dropped: inWindow, options: ingest.analysis, diagnose: diagnose)
    }
}
