// libFuzzer harness for whole capture files through PcapCapture (issue 7): mutated pcap and
// pcapng headers and records, read by libpcap with the prefilter, decoded, tracked and diagnosed through the Pipeline.
// Built by scripts/fuzz (swiftc -sanitize=fuzzer,address); not part of the Swift package.

import Glibc
import Pipeline

let path = "/dev/shm/castscope-fuzz-\(getpid()).pcap"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let f = fopen(path, "wb") else { return 0 }
    fwrite(data, 1, size, f)
    fclose(f)
    // The analysis exactly as `castscope analyze` runs it: prefilter, in-place decoding,
    // tracker, diagnosis; once file by file and once merged.
    var options = AnalysisRun.Options(files: [path])
    options.serial = true
    _ = AnalysisRun.run(options, notices: { _ in })
    options.merge = true
    _ = AnalysisRun.run(options, notices: { _ in })
    return 0
}
