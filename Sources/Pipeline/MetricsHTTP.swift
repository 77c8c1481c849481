/// The little HTTP/1.1 that `live --metrics` speaks, as pure functions over bytes: reading a
/// request head and writing a response. GET and HEAD only, no bodies read, one request per
/// connection, so that a scraper, `curl` and a health check are served and nothing else is
/// needed from a server that runs beside a capture loop for days.
public enum MetricsHTTP {
    /// A request head longer than this is refused (431): a scrape request is a few hundred
    /// bytes, and the bound keeps a slow or hostile client's buffer small.
    public static let maximumHeadBytes = 8192

    /// What reading the bytes received so far gives.
    public enum Parse: Hashable, Sendable {
        /// The head has not ended yet: wait for more.
        case incomplete
        /// A GET or HEAD request for `path` (query string removed).
        case request(method: String, path: String)
        /// A request to refuse with this status (400, 405, 431, 505).
        case refuse(status: Int)
    }

    /// Reads a request head from the bytes received on a connection so far.
    public static func parse(_ bytes: [UInt8]) -> Parse {
        guard let end = headEnd(bytes) else {
            return bytes.count > maximumHeadBytes ? .refuse(status: 431) : .incomplete
        }
        guard end <= maximumHeadBytes else { return .refuse(status: 431) }
        let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? end
        var line = bytes[..<lineEnd]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        // Request-line = method SP request-target SP HTTP-version (RFC 9112 §3), printable
        // ASCII only.
        guard line.allSatisfy({ $0 >= 0x21 && $0 < 0x7F || $0 == 0x20 }) else { return .refuse(status: 400) }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return .refuse(status: 400) }
        let method = String(decoding: parts[0], as: UTF8.self)
        let target = String(decoding: parts[1], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/"), method.allSatisfy({ $0.isLetter && $0.isUppercase }) else {
            return .refuse(status: 400)
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .refuse(status: 505) }
        guard target.hasPrefix("/") else { return .refuse(status: 400) }
        guard method == "GET" || method == "HEAD" else { return .refuse(status: 405) }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return .request(method: method, path: String(path))
    }

    /// Where the head ends: the index just past the empty line (CRLF CRLF, or LF LF from a
    /// lenient client).
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\n") {
                if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\n") { return i + 2 }
                if i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "\r"), bytes[i + 2] == UInt8(ascii: "\n") {
                    return i + 3
                }
            }
            i += 1
        }
        return nil
    }

    /// A whole response: status line, `Content-Type`, `Content-Length`, `Connection: close`
    /// (one request per connection), extra headers, and the body unless it answers a HEAD.
    public static func response(
        status: Int, contentType: String = "text/plain; charset=utf-8", body: String, headers: [String] = [],
        includeBody: Bool = true
    ) -> [UInt8] {
        let bodyBytes = Array(body.utf8)
        var head = "HTTP/1.1 \(status) \(reason(status))\r\n"
        head += "Content-Type: \(contentType)\r\n"
        head += "Content-Length: \(bodyBytes.count)\r\n"
        head += "Connection: close\r\n"
        for h in headers { head += h + "\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (includeBody ? bodyBytes : [])
    }

    /// The reason phrase of the statuses this server sends.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Error"
        }
    }

    /// The response to a refused request: a short explanation, and `Allow` for 405.
    public static func refusal(_ status: Int) -> [UInt8] {
        response(
            status: status, body: reason(status) + "\n", headers: status == 405 ? ["Allow: GET, HEAD"] : [])
    }
}
