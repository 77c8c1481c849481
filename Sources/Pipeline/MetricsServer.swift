#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `live --metrics` listens: `PORT`, `:PORT`, `ADDR:PORT` or `[IPv6]:PORT`.
public struct MetricsEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The address to bind; `nil` for every address (IPv6 and IPv4 when the system has both).
    public var host: String?
    public var port: UInt16

    public init(host: String?, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Reads `[ADDR:]PORT`; `nil` when it is not one.
    public init?(_ text: String) {
        var host: Substring?
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            // More than one colon without brackets would be an IPv6 address without a port.
            guard text.firstIndex(of: ":") == colon else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText), port > 0 else { return nil }
        self.host = host.flatMap { $0.isEmpty ? nil : String($0) }
        self.port = port
    }

    public var description: String {
        guard let host else { return ":\(port)" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// The HTTP server of `live --metrics`, run by the capture loop itself: a non-blocking
/// listening socket and its connections join the loop's `poll`, so scrapes are answered
/// between packets without a thread or a lock. Bounded: at most ``maximumConnections`` at
/// once (more are answered 503 and closed), a request head of at most
/// ``MetricsHTTP/maximumHeadBytes``, and ``timeoutSeconds`` per connection for the request
/// and its response, so a client that sends nothing or reads nothing is closed.
public final class MetricsServer {
    /// Connections served at once.
    public static let maximumConnections = 16
    /// How long a connection may take to send its request and take its response.
    public static let timeoutSeconds = 10.0

    final class Connection {
        let fd: Int32
        let deadline: Double
        var received: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var responded = false

        init(fd: Int32, deadline: Double) {
            self.fd = fd
            self.deadline = deadline
        }
    }

    /// The address it listens on, as bound.
    public let endpoint: MetricsEndpoint
    let listener: Int32
    var connections: [Connection] = []
    /// Connections refused at the limit, and closed at the timeout.
    public private(set) var refused = 0
    public private(set) var timedOut = 0

    init(listener: Int32, endpoint: MetricsEndpoint) {
        self.listener = listener
        self.endpoint = endpoint
    }

    deinit {
        for c in connections { close(c.fd) }
        close(listener)
    }

    /// Binds and listens (before root is dropped, so that a port below 1024 can be used).
    /// - Returns: the server, or the exit status and the message.
    static func open(_ endpoint: MetricsEndpoint) -> Result<MetricsServer, LiveSession.CaptureOpenError> {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            let why = status == 0 ? "no address" : String(cString: gai_strerror(status))
            return .failure(LiveSession.CaptureOpenError(status: .usage, message: "--metrics \(endpoint): \(why)"))
        }
        defer { freeaddrinfo(list) }
        // With no address, an IPv6 socket that also takes IPv4 comes first where there is one.
        var candidates: [UnsafeMutablePointer<addrinfo>] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            candidates.append(n)
            node = n.pointee.ai_next
        }
        candidates.sort { ($0.pointee.ai_family == AF_INET6 ? 0 : 1) < ($1.pointee.ai_family == AF_INET6 ? 0 : 1) }
        var lastError: Int32 = 0
        for a in candidates {
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            var one: Int32 = 1
            var zero: Int32 = 0
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if a.pointee.ai_family == AF_INET6, endpoint.host == nil {
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
            }
            if bind(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0, listen(fd, 32) == 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                return .success(MetricsServer(listener: fd, endpoint: endpoint))
            }
            lastError = errno
            close(fd)
        }
        let message = "--metrics \(endpoint): cannot listen: \(String(cString: strerror(lastError)))"
        switch lastError {
        case EACCES, EPERM: return .failure(LiveSession.CaptureOpenError(status: .noPermission, message: message))
        case EADDRINUSE, EADDRNOTAVAIL:
            return .failure(LiveSession.CaptureOpenError(status: .unavailable, message: message))
        default: return .failure(LiveSession.CaptureOpenError(status: .ioError, message: message))
        }
    }

    /// The descriptors to poll: the listener, then each connection (for its request, or for
    /// room to write its response).
    var pollDescriptors: [pollfd] {
        [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            + connections.map {
                pollfd(fd: $0.fd, events: Int16($0.responded ? POLLOUT : POLLIN), revents: 0)
            }
    }

    /// Accepts, reads, answers and closes, after a `poll` (the descriptors' states are read
    /// again here, without blocking). `respond` gives the response to a request (method, path).
    func service(now: Double, respond: (String, String) -> [UInt8]) {
        acceptAll(now: now)
        var open: [Connection] = []
        for c in connections {
            if now >= c.deadline {
                if !c.responded {
                    timedOut += 1
                    let late = MetricsHTTP.refusal(408)
                    _ = late.withUnsafeBytes { send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                close(c.fd)
                continue
            }
            if !c.responded { read(c, respond: respond) }
            // Kept while its request is still coming, or while some of its response is left.
            if !c.responded || write(c) { open.append(c) }
        }
        connections = open
    }

    func acceptAll(now: Double) {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if connections.count >= Self.maximumConnections {
                refused += 1
                let busy = MetricsHTTP.refusal(503)
                _ = busy.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
                continue
            }
            connections.append(Connection(fd: fd, deadline: now + Self.timeoutSeconds))
        }
    }

    /// Reads what has arrived; when the head is whole (or refused), prepares the response.
    func read(_ c: Connection, respond: (String, String) -> [UInt8]) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !c.responded {
            let n = chunk.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
            if n == 0 {
                // The client closed before its request was whole: nothing to answer.
                c.output = []
                c.responded = true
                return
            }
            guard n > 0 else { return }
            c.received += chunk[..<n]
            switch MetricsHTTP.parse(c.received) {
            case .incomplete: continue
            case .request(let method, let path): c.output = respond(method, path)
            case .refuse(let status): c.output = MetricsHTTP.refusal(status)
            }
            c.responded = true
            c.received = []
        }
    }

    /// Writes what the socket takes; `true` while some of the response is left.
    func write(_ c: Connection) -> Bool {
        while c.written < c.output.count {
            let n = c.output.withUnsafeBytes {
                send(c.fd, $0.baseAddress! + c.written, $0.count - c.written, Int32(MSG_NOSIGNAL))
            }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { return true }
            guard n > 0 else { break }
            c.written += n
        }
        shutdown(c.fd, Int32(SHUT_WR))
        close(c.fd)
        return false
    }

    /// A monotonic clock in seconds, for the connections' deadlines.
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
