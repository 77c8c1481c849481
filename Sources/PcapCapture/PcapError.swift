/// A failure reported by libpcap or by the file system, with libpcap's own words.
public struct PcapError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure, for choosing an exit code.
    public enum Kind: String, Hashable, Sendable {
        /// The file does not exist.
        case noSuchFile
        /// The file exists but cannot be read (permissions, a directory).
        case unreadable
        /// The file is not a pcap or pcapng capture.
        case notACapture
        /// The capture's link type carries nothing CastScope can decode.
        case unsupportedLinkType
        /// A BPF filter expression did not compile.
        case badFilter
        /// Writing a capture failed.
        case writeFailed
        /// Capturing needs privileges the process does not have.
        case permissionDenied
        /// The interface does not exist.
        case noSuchInterface
        /// The interface is down.
        case interfaceDown
        /// Anything else libpcap reported.
        case other
    }

    /// The kind of failure.
    public var kind: Kind
    /// What was being done (`open captures/x.pcap`).
    public var operation: String
    /// The reason, usually libpcap's error buffer.
    public var message: String

    public init(kind: Kind, operation: String, message: String) {
        self.kind = kind
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }
}
