import Testing

@testable import Pipeline

// The HTTP of `live --metrics`, without sockets: what a request head is read as, what is
// refused and with which status, and what `--metrics` accepts as an address.

@Suite struct MetricsHTTPTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test(arguments: [
        ("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n", "GET", "/metrics"),
        ("GET /metrics?x=1 HTTP/1.0\r\n\r\n", "GET", "/metrics"),
        ("HEAD /healthz HTTP/1.1\r\n\r\n", "HEAD", "/healthz"),
        ("GET /healthz HTTP/1.1\n\n", "GET", "/healthz"),
    ])
    func requestsAreRead(text: String, method: String, path: String) {
        #expect(MetricsHTTP.parse(Self.bytes(text)) == .request(method: method, path: path))
    }

    @Test(arguments: [
        ("POST /metrics HTTP/1.1\r\n\r\n", 405),
        ("DELETE / HTTP/1.1\r\n\r\n", 405),
        ("GET /metrics HTTP/2.0\r\n\r\n", 505),
        ("hello\r\n\r\n", 400),
        ("GET  /metrics HTTP/1.1\r\n\r\n", 400),
        ("GET metrics HTTP/1.1\r\n\r\n", 400),
        ("GET /m\u{1}x HTTP/1.1\r\n\r\n", 400),
        ("get /metrics HTTP/1.1\r\n\r\n", 400),
        ("GET /metrics FTP/1.1\r\n\r\n", 400),
    ])
    func badRequestsAreRefused(text: String, status: Int) {
        #expect(MetricsHTTP.parse(Self.bytes(text)) == .refuse(status: status))
    }

    @Test func anUnfinishedHeadWaitsAndAnOversizedOneIsRefused() {
        #expect(MetricsHTTP.parse(Self.bytes("GET /metrics HTTP/1.1\r\nHost: x\r\n")) == .incomplete)
        #expect(MetricsHTTP.parse([]) == .incomplete)
        let long = "GET /metrics HTTP/1.1\r\nX-Pad: " + String(repeating: "a", count: 9000)
        #expect(MetricsHTTP.parse(Self.bytes(long)) == .refuse(status: 431))
        #expect(MetricsHTTP.parse(Self.bytes(long + "\r\n\r\n")) == .refuse(status: 431))
        // Exactly at the bound is still read.
        let head = "GET / HTTP/1.1\r\nX: "
        let fits = head + String(repeating: "b", count: MetricsHTTP.maximumHeadBytes - head.utf8.count - 4) + "\r\n\r\n"
        #expect(fits.utf8.count == MetricsHTTP.maximumHeadBytes)
        #expect(MetricsHTTP.parse(Self.bytes(fits)) == .request(method: "GET", path: "/"))
    }

    @Test func responsesSayHowLongTheyAreAndClose() {
        let r = String(decoding: MetricsHTTP.response(status: 200, body: "ok\n"), as: UTF8.self)
        #expect(
            r
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n"
        )
        let head = String(decoding: MetricsHTTP.response(status: 200, body: "ok\n", includeBody: false), as: UTF8.self)
        #expect(head.hasSuffix("Content-Length: 3\r\nConnection: close\r\n\r\n"))
        let refused = String(decoding: MetricsHTTP.refusal(405), as: UTF8.self)
        #expect(refused.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(refused.contains("\r\nAllow: GET, HEAD\r\n"))
        // Content-Length counts bytes, not characters.
        let utf8 = String(decoding: MetricsHTTP.response(status: 200, body: "é"), as: UTF8.self)
        #expect(utf8.contains("Content-Length: 2\r\n"))
    }

    @Test(
        arguments: [
            ("9150", nil, 9150), (":9150", nil, 9150), ("192.0.2.5:9150", "192.0.2.5", 9150),
            ("[2001:db8::5]:80", "2001:db8::5", 80), ("localhost:9150", "localhost", 9150), ("[::]:1", "::", 1),
        ] as [(String, String?, Int)])
    func endpointsAreRead(text: String, host: String?, port: Int) throws {
        let e = try #require(MetricsEndpoint(text))
        #expect(e.host == host)
        #expect(Int(e.port) == port)
    }

    @Test(arguments: ["", "0", "65536", "abc", "2001:db8::5:80", "[2001:db8::5]", "[::1]9150", "host:", "-1"])
    func badEndpointsAreNot(text: String) {
        #expect(MetricsEndpoint(text) == nil)
    }

    @Test func endpointsPrintAsTheyAreWritten() throws {
        #expect(try #require(MetricsEndpoint("[2001:db8::5]:80")).description == "[2001:db8::5]:80")
        #expect(try #require(MetricsEndpoint("192.0.2.5:9150")).description == "192.0.2.5:9150")
        #expect(try #require(MetricsEndpoint("9150")).description == ":9150")
    }
}
