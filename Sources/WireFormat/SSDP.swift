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
        // Compared over the UTF-8 bytes when both names are ASCII (the headers of real traffic):
        // lower-casing every header name for every lookup cost more than the rest of the
        // decoding (issue 14). A non-ASCII name is compared as before, fully lower-cased.
        var wanted = name
        return wanted.withUTF8 { w -> String? in
            guard !w.contains(where: { $0 >= 0x80 }) else {
                let lowered = name.lowercased()
                return headers.first { $0.name.lowercased() == lowered }?.value
            }
            return headers.first { h in
                var candidate = h.name
                switch candidate.withUTF8({ Self.compareIgnoringASCIICase($0, w) }) {
                case .equal: return true
                case .different: return false
                case .notASCII: return h.name.lowercased() == name.lowercased()
                }
            }?.value
        }
    }

    /// How a header name compares with an ASCII name.
    enum NameComparison { case equal, different, notASCII }

    /// Compares `name` with the ASCII `wanted`, ignoring ASCII case; `.notASCII` when `name` has
    /// a non-ASCII byte (it may still lower-case to `wanted`: the Kelvin sign is `k`).
    static func compareIgnoringASCIICase(_ name: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>)
        -> NameComparison
    {
        var i = 0
        var equal = name.count == wanted.count
        while i < name.count {
            let x = name[i]
            if x >= 0x80 { return .notASCII }
            if equal {
                let y = wanted[i]
                if x != y && (x | 0x20 != y | 0x20 || !(0x61...0x7A).contains(x | 0x20)) { equal = false }
            }
            i += 1
        }
        return equal ? .equal : .different
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
        // An ASCII URL (every real one) is cut over its UTF-8 bytes, where each byte is a
        // character: the generic substring search took about 2,000 instructions a packet.
        switch url.utf8.withContiguousStorageIfAvailable(asciiHost(inURL:)) ?? .notASCII {
        case .noScheme: return nil
        case .host(let from, let to):
            let utf8 = url.utf8
            return IPAddress(
                url[utf8.index(utf8.startIndex, offsetBy: from)..<utf8.index(utf8.startIndex, offsetBy: to)])
        case .notASCII: break
        }
        guard let schemeEnd = url.range(of: "://") else { return nil }
        var host = url[schemeEnd.upperBound...].prefix { $0 != "/" }
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return IPAddress(host)
    }

    /// Where the host part of a URL lies, found over its bytes.
    enum HostSpan {
        /// Not ASCII: to be cut as characters.
        case notASCII
        /// No `://`.
        case noScheme
        /// The host's byte offsets.
        case host(Int, Int)
    }

    static func asciiHost(inURL url: UnsafeBufferPointer<UInt8>) -> HostSpan {
        for b in url where b >= 0x80 { return .notASCII }
        let n = url.count
        var i = 0
        while i + 3 <= n, !(url[i] == 0x3A && url[i + 1] == 0x2F && url[i + 2] == 0x2F) { i += 1 }
        guard i + 3 <= n else { return .noScheme }
        var start = i + 3
        var end = start
        while end < n, url[end] != 0x2F { end += 1 }
        if start < end, url[start] == 0x5B {
            start += 1
            var close = start
            while close < end, url[close] != 0x5D { close += 1 }
            end = close
        } else if let colon = (start..<end).last(where: { url[$0] == 0x3A }) {
            end = colon
        }
        return .host(start, end)
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
        // Lines are cut and trimmed over the payload's bytes, and only names and values become
        // strings: trimming spaces and tabs from the bytes gives the same strings as trimming
        // them from the decoded text, since those bytes are never part of a multi-byte
        // sequence or of what a replacement character stands for.
        let bytes = payload.rest.bytes
        let count = bytes.count
        var position = 0
        var startLine: String?
        var headers: [(name: String, value: String)] = []
        while position < count {
            var lineEnd = position
            while lineEnd < count && bytes[lineEnd] != 0x0A { lineEnd += 1 }
            let next = lineEnd < count ? lineEnd + 1 : count
            // A line ended by LF loses one CR; the last line without one is kept as it is.
            if lineEnd < count, lineEnd > position, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[position..<lineEnd])
            position = next
            if startLine == nil {
                guard !line.isEmpty, line.contains(0x20) else {
                    throw .invalid(offset: payload.position, field: .ssdpNotText)
                }
                startLine = text(line)
                continue
            }
            if line.isEmpty { break }  // the end of the headers
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            let name = text(trimmed(UnsafeRawBufferPointer(rebasing: line[..<colon])))
            let value = text(trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...])))
            headers.append((name, value))
        }
        guard let startLine else { throw .invalid(offset: payload.position, field: .ssdpNotText) }
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
        return SSDPMessage(kind: kind, startLine: startLine, status: status, headers: headers)
    }

    /// `bytes` without the spaces and tabs at either end.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var s = 0
        var e = bytes.count
        while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
        while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 { e -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[s..<e])
    }

    static func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }

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
