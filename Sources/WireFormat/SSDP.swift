/// An SSDP message (HTTP over UDP, UPnP Device Architecture §1): the transport of DIAL, the
/// older Cast discovery path.
public struct SSDPMessage: Hashable, Sendable {
    /// What kind of message the start line says this is.
    public enum Kind: String, Hashable, Sendable {
        /// `M-SEARCH * HTTP/1.1`: a search (Chrome sends 4 per cycle for DIAL).
        case mSearch = "M-SEARCH"
        /// `NOTIFY * HTTP/1.1`: an `ssdp:alive` / `ssdp:byebye` advertisement.
        case notify = "NOTIFY"
        /// `HTTP/1.1 200 OK`: an answer to an M-SEARCH.
        case response = "response"
        /// Any other start line.
        case other = "other"
    }

    /// The kind of message.
    public var kind: Kind
    /// The start line as sent.
    public var startLine: String
    /// The HTTP status code, for responses.
    public var status: Int?
    /// Every header in wire order, names as sent.
    public var headers: [(name: String, value: String)]

    public static func == (a: SSDPMessage, b: SSDPMessage) -> Bool {
        a.kind == b.kind && a.startLine == b.startLine && a.status == b.status
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(startLine)
        for h in headers {
            hasher.combine(h.name)
            hasher.combine(h.value)
        }
    }

    /// The first header called `name` (case-insensitive), trimmed.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// `ST`: the search target (`urn:dial-multiscreen-org:service:dial:1` for DIAL).
    public var searchTarget: String? { header("ST") }
    /// `NT`: the notification type.
    public var notificationType: String? { header("NT") }
    /// `NTS`: `ssdp:alive` or `ssdp:byebye`.
    public var notificationSubtype: String? { header("NTS") }
    /// `USN`: the unique service name.
    public var usn: String? { header("USN") }
    /// `LOCATION`: the device description URL.
    public var location: String? { header("LOCATION") }
    /// `CACHE-CONTROL`.
    public var cacheControl: String? { header("CACHE-CONTROL") }
    /// `SERVER`.
    public var server: String? { header("SERVER") }
    /// `MX`: the maximum wait in seconds.
    public var mx: String? { header("MX") }
    /// `MAN`: `"ssdp:discover"` in searches.
    public var man: String? { header("MAN") }
    /// `USER-AGENT`.
    public var userAgent: String? { header("USER-AGENT") }

    /// `max-age` from `CACHE-CONTROL`, in seconds.
    public var maxAge: Int? {
        guard let cc = cacheControl?.lowercased(), let r = cc.range(of: "max-age") else { return nil }
        let rest = cc[r.upperBound...].drop { $0 == " " || $0 == "=" }
        return Int(rest.prefix { $0.isASCII && $0.isNumber })
    }

    /// The IP address in the host part of `LOCATION` (`http://192.0.2.21:8008/...`,
    /// `http://[2001:db8::21]:8008/...`), or `nil` when there is none or it is a name.
    public var locationAddress: IPAddress? { location.flatMap(Self.address(inURL:)) }

    /// The IP address in a URL's host part, or `nil`.
    public static func address(inURL url: String) -> IPAddress? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        var host = url[schemeEnd.upperBound...].prefix { $0 != "/" }
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return IPAddress(host)
    }

    /// Whether a search or answer concerns DIAL.
    public var isDIAL: Bool {
        Self.mentionsDIAL(searchTarget) || Self.mentionsDIAL(notificationType) || Self.mentionsDIAL(usn)
    }

    /// Whether `value` contains `dial-multiscreen-org`, ignoring ASCII case. Compared over the
    /// UTF-8 bytes: `lowercased().contains(_:)` went through the string-processing library's
    /// generic search, a fifth of all instructions on the sparse benchmark (issue 14).
    static func mentionsDIAL(_ value: String?) -> Bool {
        guard var value else { return false }
        return value.withUTF8 { bytes in
            let needle: StaticString = "dial-multiscreen-org"
            let n = needle.utf8CodeUnitCount
            guard bytes.count >= n else { return false }
            let pattern = needle.utf8Start
            outer: for start in 0...(bytes.count - n) {
                for i in 0..<n {
                    var b = bytes[start + i]
                    if b >= 0x41, b <= 0x5A { b |= 0x20 }
                    if b != pattern[i] { continue outer }
                }
                return true
            }
            return false
        }
    }

    /// Whether `bytes` start like an HTTP response (`HTTP/`), used to catch unicast answers to
    /// M-SEARCH that come from ephemeral ports.
    public static func looksLikeResponse(_ bytes: ByteCursor) -> Bool {
        let prefix: [UInt8] = Array("HTTP/1.".utf8)
        guard bytes.remaining >= prefix.count else { return false }
        for (i, b) in prefix.enumerated() where bytes.peekUInt8(ahead: i) != b { return false }
        return true
    }

    /// Decodes an SSDP message. Lines end in CRLF (a bare LF is tolerated); headers end at the
    /// first empty line; a line without a colon is skipped.
    public static func decode(_ payload: ByteCursor) throws(DecodeError) -> SSDPMessage {
        var lines: [ArraySlice<UInt8>] = []
        let bytes = Array(payload.rest.bytes)
        var start = 0
        var headersEnded = false
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            var end = i
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            let line = bytes[start..<end]
            start = i + 1
            if line.isEmpty, !lines.isEmpty {
                headersEnded = true
                break
            }
            lines.append(line)
        }
        if !headersEnded, start < bytes.count { lines.append(bytes[start...]) }
        guard let first = lines.first, !first.isEmpty, first.contains(0x20) else {
            throw .invalid(offset: payload.position, field: .ssdpNotText)
        }
        let startLine = text(first)
        var kind = Kind.other
        var status: Int?
        if startLine.hasPrefix("M-SEARCH ") {
            kind = .mSearch
        } else if startLine.hasPrefix("NOTIFY ") {
            kind = .notify
        } else if startLine.hasPrefix("HTTP/") {
            kind = .response
            let parts = startLine.split(separator: " ")
            if parts.count >= 2 { status = Int(parts[1]) }
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            let name = text(line[line.startIndex..<colon]).trimmingSpaces
            let value = text(line[line.index(after: colon)...]).trimmingSpaces
            headers.append((name, value))
        }
        return SSDPMessage(kind: kind, startLine: startLine, status: status, headers: headers)
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}

extension String {
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        var s = scalars.startIndex
        var e = scalars.endIndex
        while s < e, scalars[s] == " " || scalars[s] == "\t" { s = scalars.index(after: s) }
        while e > s, scalars[scalars.index(before: e)] == " " || scalars[scalars.index(before: e)] == "\t" {
            e = scalars.index(before: e)
        }
        return String(scalars[s..<e])
    }
}

extension StringProtocol {
    func range(of needle: String) -> Range<Index>? {
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
