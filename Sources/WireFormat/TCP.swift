// TCP as far as the connection phase needs it: the header of a segment, and whether its first
// payload bytes are a TLS ClientHello or ServerHello. Nothing is reassembled or decrypted.

/// TCP header flags (the low byte of the flags field).
public struct TCPFlags: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var fin: TCPFlags { TCPFlags(rawValue: 0x01) }
    public static var syn: TCPFlags { TCPFlags(rawValue: 0x02) }
    public static var rst: TCPFlags { TCPFlags(rawValue: 0x04) }
    public static var psh: TCPFlags { TCPFlags(rawValue: 0x08) }
    public static var ack: TCPFlags { TCPFlags(rawValue: 0x10) }

    /// Whether every flag of `other` is set.
    @inlinable public func contains(_ other: TCPFlags) -> Bool { rawValue & other.rawValue == other.rawValue }

    public static var urg: TCPFlags { TCPFlags(rawValue: 0x20) }
    public static var ece: TCPFlags { TCPFlags(rawValue: 0x40) }
    public static var cwr: TCPFlags { TCPFlags(rawValue: 0x80) }

    /// The flags set, in the order of Wireshark's Info column: `SYN, ACK`, `FIN, PSH, ACK`,
    /// `SYN, ECE, CWR`; `<None>` when none is.
    public var description: String {
        let order: [(TCPFlags, String)] = [
            (.fin, "FIN"), (.syn, "SYN"), (.rst, "RST"), (.psh, "PSH"), (.ack, "ACK"), (.urg, "URG"), (.ece, "ECE"),
            (.cwr, "CWR"),
        ]
        let names = order.filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "<None>" : names.joined(separator: ", ")
    }
}

/// The TLS handshake message a segment's payload starts with, when it starts a TLS record.
public struct TLSHandshakeType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static var clientHello: TLSHandshakeType { TLSHandshakeType(rawValue: 1) }
    public static var serverHello: TLSHandshakeType { TLSHandshakeType(rawValue: 2) }

    /// The hello a payload starts with: a handshake record (content type 22, major version 3)
    /// whose first message is a ClientHello or ServerHello. Only the first bytes are read: the
    /// handshake itself may go on in later segments.
    public static func hello(in payload: ByteCursor) -> TLSHandshakeType? {
        guard payload.remaining >= 6, let contentType = payload.peekUInt8(), contentType == 22,
            payload.peekUInt8(ahead: 1) == 3, let type = payload.peekUInt8(ahead: 5), type == 1 || type == 2
        else { return nil }
        return TLSHandshakeType(rawValue: type)
    }
}

/// A TCP segment's header, decoded in place.
public struct TCPSegment {
    public var sourcePort: UInt16
    public var destinationPort: UInt16
    public var sequence: UInt32
    public var acknowledgment: UInt32
    public var flags: TCPFlags
    /// The payload after the header and its options (what was captured of it).
    public var payload: ByteCursor

    /// Decodes the header; a data offset below 5 words, or one past the captured bytes, is an
    /// error at the data-offset byte.
    public static func decode(_ cursor: ByteCursor) throws(DecodeError) -> TCPSegment {
        var c = cursor
        let start = c.position
        let sourcePort = try c.readUInt16()
        let destinationPort = try c.readUInt16()
        let sequence = try c.readUInt32()
        let acknowledgment = try c.readUInt32()
        let offsetByte = try c.readUInt8()
        let flags = TCPFlags(rawValue: try c.readUInt8())
        let headerLength = Int(offsetByte >> 4) * 4
        guard headerLength >= 20 else { throw .invalid(offset: start + 12, field: .tcpDataOffset(headerLength)) }
        var rest = cursor
        try rest.skip(headerLength)
        return TCPSegment(
            sourcePort: sourcePort, destinationPort: destinationPort, sequence: sequence,
            acknowledgment: acknowledgment, flags: flags, payload: rest.rest)
    }
}

/// What a kept TCP segment says about its connection: the part of the header the connection
/// phase uses, the payload's length, and the TLS hello it starts with. Plain data, so a packet
/// carrying it still copies as bytes.
public struct TCPSummary: Hashable, Sendable {
    public var flags: TCPFlags
    public var sequence: UInt32
    public var acknowledgment: UInt32
    /// Payload bytes captured in this segment.
    public var payloadLength: Int
    /// The TLS hello the payload starts with, if any.
    public var hello: TLSHandshakeType?
    /// Whether the payload starts an HTTP request (`GET `) or response (`HTTP/1.`): a DIAL
    /// sender fetching the device description at `LOCATION`, and the answer.
    public var http = false
    /// Whether it is data from port 8008 (a Cast device's HTTP port) with PSH: the rest of a
    /// device description that did not fit in the response's first segment.
    public var castHTTPData = false

    public init(
        flags: TCPFlags, sequence: UInt32, acknowledgment: UInt32, payloadLength: Int, hello: TLSHandshakeType?,
        http: Bool = false, castHTTPData: Bool = false
    ) {
        self.flags = flags
        self.sequence = sequence
        self.acknowledgment = acknowledgment
        self.payloadLength = payloadLength
        self.hello = hello
        self.http = http
        self.castHTTPData = castHTTPData
    }

    /// Whether the connection phase keeps a segment like this: it opens, refuses or closes a
    /// connection (SYN, RST, FIN), starts a TLS handshake or an HTTP message, or carries data
    /// from a Cast device's HTTP port.
    public var isKept: Bool { flags.rawValue & 0x07 != 0 || hello != nil || http || castHTTPData }

    /// The HTTP port of Cast devices (DIAL and the device description).
    public static let castHTTPPort: UInt16 = 8008
    /// The most payload bytes an HTTP segment keeps.
    public static let maximumHTTPBytes = 4096
}
