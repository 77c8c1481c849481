// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "castscope",
    products: [
        .executable(name: "castscope", targets: ["castscope"]),
        .library(name: "WireFormat", targets: ["WireFormat"]),
        .library(name: "PcapCapture", targets: ["PcapCapture"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
    ],
    targets: [
        // libpcap from Debian's libpcap-dev; headers are in /usr/include, so no pkg-config.
        .systemLibrary(name: "CLibpcap", providers: [.apt(["libpcap-dev"]), .brew(["libpcap"])]),
        // The decompressors of compressed capture files (gzip, zstd, lz4), headers in /usr/include.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(name: "CZstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .systemLibrary(name: "CLZ4", providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]),
        // OpenSSL (libssl-dev): the TLS handshake of `castscope probe`'s connection to a device.
        .systemLibrary(name: "CLibssl", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // libzip (libzip-dev): reading an app's .ipa for `castscope check-app`; nothing is extracted.
        .systemLibrary(name: "CLibzip", providers: [.apt(["libzip-dev"]), .brew(["libzip"])]),
        // Pure decoding: no Foundation, no libpcap.
        .target(name: "WireFormat"),
        // The only module that touches libpcap and the decompression libraries.
        .target(name: "PcapCapture", dependencies: ["CLibpcap", "CZlib", "CZstd", "CLZ4", "WireFormat"]),
        // The Cast domain: TXT meaning, device/client tracking, latency. Pure, no I/O.
        .target(name: "CastDiscovery", dependencies: ["WireFormat"]),
        // Running it: capture sources, the analysis run, live capture, probe, extraction, reading an app.
        // Prints nothing.
        .target(name: "Pipeline", dependencies: ["PcapCapture", "WireFormat", "CastDiscovery", "CLibssl", "CLibzip"]),
        // Renderers.
        .target(name: "Reports", dependencies: ["WireFormat", "CastDiscovery"]),
        // The command line: parse, run the Pipeline, render with Reports, exit status.
        .executableTarget(
            name: "castscope", dependencies: ["WireFormat", "PcapCapture", "CastDiscovery", "Pipeline", "Reports"]),
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat"]),
        .testTarget(name: "PcapCaptureTests", dependencies: ["PcapCapture", "WireFormat"]),
        .testTarget(
            name: "CastDiscoveryTests", dependencies: ["CastDiscovery", "WireFormat", "PcapCapture", "Pipeline"]),
        .testTarget(
            name: "PipelineTests", dependencies: ["Pipeline", "CastDiscovery", "PcapCapture", "WireFormat", "CLibzip"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "WireFormat", "CastDiscovery"]),
    ],
    swiftLanguageModes: [.v6]
)
