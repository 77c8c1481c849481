// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "castscope",
    products: [
        .executable(name: "castscope", targets: ["castscope"]),
        .library(name: "WireFormat", targets: ["WireFormat"]),
        .library(name: "PcapCapture", targets: ["PcapCapture"]),
    ],
    targets: [
        // libpcap from Debian's libpcap-dev; headers are in /usr/include, so no pkg-config.
        .systemLibrary(name: "CLibpcap", providers: [.apt(["libpcap-dev"]), .brew(["libpcap"])]),
        // Pure decoding: no Foundation, no libpcap.
        .target(name: "WireFormat"),
        // The only module that touches libpcap.
        .target(name: "PcapCapture", dependencies: ["CLibpcap", "WireFormat"]),
        // Renderers.
        .target(name: "Reports", dependencies: ["WireFormat"]),
        .executableTarget(name: "castscope", dependencies: ["WireFormat", "PcapCapture", "Reports"]),
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat"]),
        .testTarget(name: "PcapCaptureTests", dependencies: ["PcapCapture", "WireFormat"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "WireFormat"]),
    ],
    swiftLanguageModes: [.v6]
)
