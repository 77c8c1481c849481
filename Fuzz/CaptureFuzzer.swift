// libFuzzer harness for whole capture files through PcapCapture (issue 7): mutated pcap and
// pcapng headers and records, read by libpcap with the prefilter, decoded and tracked.
// Built by scripts/fuzz (swiftc -sanitize=fuzzer,address); not part of the Swift package.

import CastDiscovery
import Glibc
import PcapCapture
import WireFormat

let path = "/dev/shm/castscope-fuzz-\(getpid()).pcap"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let f = fopen(path, "wb") else { return 0 }
    fwrite(data, 1, size, f)
    fclose(f)
    guard let file = try? CaptureFile(path: path), file.linkType.isSupported else { return 0 }
    if let expression = DiscoveryFilter.expression(for: file.linkType) { try? file.setFilter(expression) }
    var decoder = DiscoveryDecoder(linkType: file.linkType)
    var tracker = DiscoveryTracker()
    var records = 0
    _ = file.forEachRecord { frame, header, bytes in
        records += 1
        decoder.decodeInPlace(
            frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
        ) { p, view in tracker.ingest(p, message: view, capture: 0) }
    }
    let info = CaptureInfo(
        file: "fuzz", linkType: file.linkTypeName, packets: records, statistics: decoder.statistics,
        start: file.firstTimestamp, end: file.lastTimestamp)
    var report = AnalysisReport(
        captures: [info], timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
    report.findings = Diagnosis.diagnose(report)
    return 0
}
