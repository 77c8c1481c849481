// libFuzzer harness for the decoding entry points (issue 7): link layer → IP → UDP → DNS/SSDP,
// both the materialising and the in-place path, the TXT/Cast interpretation, and the tracker.
// Built by scripts/fuzz (swiftc -sanitize=fuzzer,address); not part of the Swift package.
//
// Input: the first byte picks the link type, the rest is one frame. A second frame can follow
// after the separator "\xFF\xFEFRAME" (so fragments and query/answer pairs are reachable).

import CastDiscovery
import WireFormat

let linkTypes = LinkType.supported
let separator: [UInt8] = [0xFF, 0xFE] + Array("FRAME".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let link = linkTypes[Int(bytes[0]) % linkTypes.count]
    var frames: [[UInt8]] = []
    var rest = Array(bytes.dropFirst())
    while let cut = rest.firstRange(of: separator), frames.count < 8 {
        frames.append(Array(rest[..<cut.lowerBound]))
        rest = Array(rest[cut.upperBound...])
    }
    frames.append(rest)

    var materialising = DiscoveryDecoder(linkType: link)
    var inPlace = DiscoveryDecoder(linkType: link)
    var a = DiscoveryTracker()
    var b = DiscoveryTracker()
    for (i, frame) in frames.enumerated() {
        let time = Timestamp(seconds: 1_800_000_000 + Int64(i), nanoseconds: 0)
        frame.withUnsafeBytes { raw in
            if let p = materialising.decode(frame: i + 1, timestamp: time, bytes: raw, originalLength: raw.count) {
                a.ingest(p, capture: 0)
                if let m = p.mdns {
                    _ = m.allRecords.map(\.record.name.description)
                    for r in m.allRecords { if case .txt(let t) = r.record.data { _ = CastTXT(t) } }
                }
                // The kept bytes, checked again, must give back the materialised message.
                p.withMessageView { view in
                    precondition(view.map(DNSMessage.init) == p.mdns, "withMessageView disagrees")
                }
            }
            inPlace.decodeInPlace(frame: i + 1, timestamp: time, bytes: raw, originalLength: raw.count) { p, view in
                b.ingest(p, message: view, capture: 0)
            }
        }
    }
    // The two paths must agree (a difference is a bug, reported as a crash).
    precondition(materialising.statistics == inPlace.statistics, "decoders disagree")
    let options = AnalysisOptions()
    let ra = AnalysisReport(
        captures: [CaptureInfo(file: "fuzz", linkType: "x")], timelines: [a.finish()], options: options, merged: false)
    let rb = AnalysisReport(
        captures: [CaptureInfo(file: "fuzz", linkType: "x")], timelines: [b.finish()], options: options, merged: false)
    precondition(ra.devices == rb.devices && ra.clients == rb.clients, "trackers disagree")
    _ = Diagnosis.diagnose(ra)
    return 0
}
