// HTTP over TCP as far as DIAL needs it: a request's start line, a response's head, and the
// two elements of a UPnP device description that name a device. Bounded: callers hand in at
// most a few KiB, and nothing here allocates more than the strings it returns.

/// The head of an HTTP/1.x message at the start of a TCP payload: its start line and headers
/// (decoded like SSDP's), and where the body starts.
public struct HTTPHead: Hashable, Sendable {
    /// The start line and headers.
    public var message: SSDPMessage
    /// The offset of the body's first byte in the bytes given.
    public var bodyOffset: Int

    /// Whether `bytes` start an HTTP request (`GET `) or response (`HTTP/1.`): the first bytes
    /// of a segment the connection phase keeps.
    public static func startsMessage(_ bytes: ByteCursor) -> Bool {
        guard bytes.remaining >= 4 else { return false }
        if bytes.peekUInt8() == 0x47, bytes.peekUInt8(ahead: 1) == 0x45, bytes.peekUInt8(ahead: 2) == 0x54,
            bytes.peekUInt8(ahead: 3) == 0x20
        {
            return true  // "GET "
        }
        return SSDPMessage.looksLikeResponse(bytes)
    }

    /// The head of the message `bytes` start with, or `nil` while the empty line that ends the
    /// headers is not in them.
    public static func parse(_ bytes: [UInt8]) -> HTTPHead? {
        var end: Int?
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == 0x0A, bytes[i + 1] == 0x0A {
                end = i + 2
                break
            }
            if i + 3 < bytes.count, bytes[i] == 0x0D, bytes[i + 1] == 0x0A, bytes[i + 2] == 0x0D, bytes[i + 3] == 0x0A {
                end = i + 4
                break
            }
            i += 1
        }
        guard let end else { return nil }
        let message: SSDPMessage? = bytes.withUnsafeBytes { raw in
            try? SSDPMessage.decode(ByteCursor(UnsafeRawBufferPointer(rebasing: raw[..<end])))
        }
        return message.map { HTTPHead(message: $0, bodyOffset: end) }
    }

    /// The request target of a `GET` (`/ssdp/device-desc.xml`).
    public var requestTarget: String? {
        let parts = message.startLine.split(separator: " ")
        guard parts.count >= 2, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    /// `Content-Length`, when it is a number.
    public var contentLength: Int? { message.header("Content-Length").flatMap { Int($0) } }
}

/// The first line of an HTTP segment's payload (`GET /ssdp/device-desc.xml HTTP/1.1`, `HTTP/1.1
/// 200 OK`), without its line break; `nil` when the payload does not start an HTTP message.
public func httpStartLine(_ payload: [UInt8]) -> String? {
    let ok: Bool = payload.withUnsafeBytes { HTTPHead.startsMessage(ByteCursor($0)) }
    guard ok else { return nil }
    let line = payload.prefix { $0 != 0x0D && $0 != 0x0A }
    return String(decoding: line.prefix(200), as: UTF8.self)
}

/// The text of the first `<name>…</name>` element in a UPnP device description (XML), with
/// the five predefined entities and character references replaced; `nil` when absent.
public func xmlElementText(_ name: String, in bytes: [UInt8]) -> String? {
    let open = Array("<\(name)>".utf8)
    let close = Array("</\(name)>".utf8)
    func find(_ needle: [UInt8], from: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var i = from
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0], bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
    guard let start = find(open, from: 0), let end = find(close, from: start + open.count) else { return nil }
    let raw = String(decoding: bytes[(start + open.count)..<end], as: UTF8.self)
    return xmlUnescape(raw).trimmingSpaces()
}

/// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and `&#N;` / `&#xN;` replaced; anything else kept.
func xmlUnescape(_ s: String) -> String {
    guard s.contains("&") else { return s }
    var out = ""
    var i = s.startIndex
    while i < s.endIndex {
        guard s[i] == "&", let semi = s[i...].firstIndex(of: ";"), s.distance(from: i, to: semi) <= 10 else {
            out.append(s[i])
            i = s.index(after: i)
            continue
        }
        let entity = s[s.index(after: i)..<semi]
        var replacement: String?
        switch entity {
        case "amp": replacement = "&"
        case "lt": replacement = "<"
        case "gt": replacement = ">"
        case "quot": replacement = "\""
        case "apos": replacement = "'"
        default:
            if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                replacement = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
            } else if entity.hasPrefix("#") {
                replacement = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
            }
        }
        if let replacement {
            out += replacement
            i = s.index(after: semi)
        } else {
            out.append(s[i])
            i = s.index(after: i)
        }
    }
    return out
}

extension String {
    /// Without the spaces, tabs and line breaks at either end.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
