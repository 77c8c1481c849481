import CLibssl
import CastDiscovery
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One TCP connection and TLS handshake to a device's advertised address and port, without
/// blocking: the probe's loop polls ``descriptor`` for ``events`` and calls ``advance(now:)``.
/// Times are read from the clock at each event, not from the loop's `now`: one `SSL_connect`
/// call often finishes a LAN handshake, and connections opened together must not share a time.
/// It closes with a TLS close_notify and a FIN once the handshake is done, and sends nothing
/// else: a Cast device sees a sender that connected and left.
final class ProbeConnection {
    enum State { case connecting, handshaking, closing, done }

    private(set) var state = State.connecting
    private(set) var result: ProbeConnectResult
    let descriptor: Int32
    let timeoutNanoseconds: Int64
    private var ssl: OpaquePointer?
    private var connectedAt: Timestamp?
    private var closingSince: Timestamp?
    private var wantsWrite = true

    /// The TLS context every connection shares: no certificate check (a Cast device's
    /// certificate is its own, signed by Google's device CA, not by a web CA).
    nonisolated(unsafe) static let context: OpaquePointer? = {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { return nil }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        return ctx
    }()

    /// Where it connects to.
    let address: IPAddress
    let port: UInt16

    init(address: IPAddress, port: UInt16, interfaceIndex: UInt32, timeoutNanoseconds: Int64) {
        self.timeoutNanoseconds = timeoutNanoseconds
        self.address = address
        self.port = port
        result = ProbeConnectResult(address: address, port: port, outcome: .timeout, started: LiveSession.now())
        let family: Int32
        switch address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        }
        descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else {
            finish(.unreachable, error: "socket: \(String(cString: strerror(errno)))")
            return
        }
        let rc = SocketAddress.with(address, port: port, interfaceIndex: interfaceIndex) {
            connect(descriptor, $0, $1)
        }
        if rc == 0 {
            connected(now: LiveSession.now())
        } else if errno != EINPROGRESS {
            failedToConnect(errno)
        }
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
    }

    /// The poll events the connection waits for.
    var events: Int16 { Int16(wantsWrite ? POLLOUT : POLLIN) }

    /// When the connection gives up waiting, if it has not finished.
    var deadline: Timestamp {
        switch state {
        case .connecting: return result.started.adding(nanoseconds: timeoutNanoseconds)
        case .handshaking: return (connectedAt ?? result.started).adding(nanoseconds: timeoutNanoseconds)
        case .closing: return (closingSince ?? result.started).adding(nanoseconds: 1_000_000_000)
        case .done: return result.started
        }
    }

    /// Moves on after the descriptor became ready or a deadline passed.
    func advance(now: Timestamp) {
        switch state {
        case .connecting:
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&ready, 1, 0)
            if code != 0 {
                failedToConnect(code)
            } else if ready.revents & Int16(POLLOUT) != 0 {
                connected(now: LiveSession.now())
            } else if now >= deadline {
                finish(.timeout, error: "no answer to the SYN in \(Self.seconds(timeoutNanoseconds))")
            }
        case .handshaking:
            handshake(now: now)
        case .closing:
            close(now: now)
        case .done:
            return
        }
    }

    private func connected(now: Timestamp) {
        connectedAt = now
        result.connectMs = Double(now.nanoseconds(since: result.started)) / 1e6
        guard let ctx = Self.context, let s = SSL_new(ctx) else {
            finish(.tlsFailed, error: "OpenSSL could not make a TLS client")
            return
        }
        ssl = s
        SSL_set_fd(s, descriptor)
        SSL_set_connect_state(s)
        state = .handshaking
        handshake(now: now)
    }

    private func handshake(now: Timestamp) {
        guard let ssl else { return }
        ERR_clear_error()
        let rc = SSL_connect(ssl)
        if rc == 1 {
            let now = LiveSession.now()
            result.tlsMs = Double(now.nanoseconds(since: connectedAt ?? now)) / 1e6
            result.tlsVersion = String(cString: SSL_get_version(ssl))
            if let cipher = SSL_get_current_cipher(ssl) { result.cipher = String(cString: SSL_CIPHER_get_name(cipher)) }
            result.outcome = .established
            state = .closing
            closingSince = now
            close(now: now)
            return
        }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: wantsWrite = false
        case SSL_ERROR_WANT_WRITE: wantsWrite = true
        default:
            finish(
                .tlsFailed, error: "TLS handshake failed: \(Self.openSSLError() ?? "the device closed the connection")")
            return
        }
        if now >= deadline {
            finish(.tlsFailed, error: "no TLS ServerHello and Finished in \(Self.seconds(timeoutNanoseconds))")
        }
    }

    /// Sends close_notify and waits (up to 1 s) for the device's, so that the socket closes
    /// with a FIN rather than a reset for unread data (a TLS 1.3 session ticket).
    private func close(now: Timestamp) {
        guard let ssl else { return finish(result.outcome, error: nil) }
        ERR_clear_error()
        let rc = SSL_shutdown(ssl)
        if rc == 1 || now >= deadline { return finish(.established, error: nil) }
        if rc == 0 {
            wantsWrite = false
            return
        }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: wantsWrite = false
        case SSL_ERROR_WANT_WRITE: wantsWrite = true
        default: finish(.established, error: nil)
        }
    }

    private func failedToConnect(_ code: Int32) {
        let words = String(cString: strerror(code))
        switch code {
        case ECONNREFUSED: finish(.refused, error: words)
        case EHOSTUNREACH, ENETUNREACH, EACCES, EPERM, EADDRNOTAVAIL: finish(.unreachable, error: words)
        default: finish(.timeout, error: words)
        }
    }

    private func finish(_ outcome: ProbeConnectOutcome, error: String?) {
        result.outcome = outcome
        result.error = error
        state = .done
        if descriptor >= 0 { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    static func openSSLError() -> String? {
        let code = ERR_get_error()
        guard code != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func seconds(_ nanoseconds: Int64) -> String {
        let s = Double(nanoseconds) / 1e9
        return s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }
}
