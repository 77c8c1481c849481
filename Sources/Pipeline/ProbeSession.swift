import CastDiscovery
import PcapCapture
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope probe`: discovers Cast devices from this host the way a Cast sender does (the
/// queries of ``CastQuerier``, a DIAL M-SEARCH, then a TCP connection and TLS handshake to
/// each device), captures its own exchange, and analyses it as `analyze` would.
///
/// ``open(_:notices:)`` does everything privileged (the capture, the output file, the sockets)
/// and then gives up root, like `live`; ``run()`` probes for the duration and until every
/// connection has finished. Without capture privilege the analysis is of frames made from
/// what the sockets sent and received (``ProbeFrames``), and the summary says so.
public final class ProbeSession {
    public struct Options {
        /// The interface (`nil`: the first up, multicast-capable one with an address).
        public var interface: String?
        public var appIDs: [String] = []
        public var durationSeconds = 5.0
        public var connectTimeoutSeconds = 3.0
        public var connect = true
        public var ipv4 = true
        public var ipv6 = true
        public var write: String?
        public var user = "nobody"
        public var live = LiveOptions()
        public var analysis = AnalysisOptions()
        public init() {}
    }

    /// The probe's result.
    public struct Outcome {
        public var report: AnalysisReport
        public var summary: ProbeSummary
    }

    let options: Options
    let interface: ProbeInterface
    let capture: LiveCapture?
    let writer: CaptureWriter?
    let mdns4: ProbeSocket?
    let mdns6: ProbeSocket?
    let ssdp: ProbeSocket?
    var summary: ProbeSummary

    init(
        options: Options, interface: ProbeInterface, capture: LiveCapture?, writer: CaptureWriter?,
        sockets: (ProbeSocket?, ProbeSocket?, ProbeSocket?), summary: ProbeSummary
    ) {
        self.options = options
        self.interface = interface
        self.capture = capture
        self.writer = writer
        (mdns4, mdns6, ssdp) = sockets
        self.summary = summary
    }

    /// Picks the interface, opens the capture (when permitted), the output file and the
    /// sockets, then drops root.
    public static func open(_ o: Options, notices: NoticeSink) -> Result<ProbeSession, ExitStatusError> {
        func fail(_ status: ExitStatus, _ message: String) -> Result<ProbeSession, ExitStatusError> {
            notices(.error(message))
            return .failure(ExitStatusError(status: status))
        }
        let all = ProbeInterface.all()
        let chosen: ProbeInterface
        if let name = o.interface {
            guard let i = all.first(where: { $0.name == name }) else {
                return fail(
                    .noInput, "no such interface '\(name)'; interfaces: " + all.map(\.name).joined(separator: ", "))
            }
            guard i.isUp else { return fail(.unavailable, "interface '\(name)' is down (ip link set \(name) up)") }
            chosen = i
        } else {
            guard let i = ProbeInterface.defaultInterface(all) else {
                return fail(.unavailable, "no interface is up with multicast and an address; name one with -i")
            }
            chosen = i
        }
        let useIPv4 = o.ipv4 && !chosen.ipv4.isEmpty
        let useIPv6 = o.ipv6 && !chosen.ipv6.isEmpty
        if o.ipv4, !o.ipv6, !useIPv4 { return fail(.unavailable, "\(chosen.name) has no IPv4 address (--ipv4)") }
        if o.ipv6, !o.ipv4, !useIPv6 { return fail(.unavailable, "\(chosen.name) has no IPv6 address (--ipv6)") }
        guard useIPv4 || useIPv6 else { return fail(.unavailable, "\(chosen.name) has no IP address") }

        var note: String?
        var capture: LiveCapture?
        // The discovery filter, and every TCP segment of this host's own connections: the
        // written pcap then holds whole TLS streams for Wireshark.
        let own = (chosen.ipv4.map(\.description) + chosen.ipv6.map(\.description)).map { "host \($0)" }
        let ownTCP = own.isEmpty ? nil : "tcp and (" + own.joined(separator: " or ") + ")"
        switch LiveSession.openCapture(chosen.name, options: o.live, filter: nil, also: ownTCP) {
        case .success(let c): capture = c
        case .failure(let e):
            if o.write != nil {
                return fail(
                    e.status == .noPermission ? .noPermission : e.status, "--write needs a capture: " + e.message)
            }
            note =
                "no capture (\(e.message.split(separator: "\n").first ?? "")): the analysis is of what the probe's "
                + "sockets sent and received, so frame numbers count those datagrams and connections, and nothing "
                + "other hosts sent to each other is seen; run as root (or with CAP_NET_RAW and CAP_NET_ADMIN) for "
                + "the capture"
            notices(.warning(note!))
        }
        var writer: CaptureWriter?
        if let path = o.write, let c = capture {
            do throws(PcapError) {
                writer = try CaptureWriter(path: path, linkType: c.linkType)
            } catch {
                return fail(.cannotCreate, error.description)
            }
        }
        let sockets: (ProbeSocket?, ProbeSocket?, ProbeSocket?)
        do throws(ProbeError) {
            sockets = (
                useIPv4
                    ? try ProbeSocket(
                        family: AF_INET, port: 5353, interface: chosen, group: .v4(.mdnsGroup), multicastTTL: 255)
                    : nil,
                useIPv6
                    ? try ProbeSocket(
                        family: AF_INET6, port: 5353, interface: chosen, group: .v6(.mdnsGroup), multicastTTL: 255)
                    : nil,
                useIPv4
                    ? try ProbeSocket(family: AF_INET, port: 0, interface: chosen, group: nil, multicastTTL: 2) : nil
            )
        } catch {
            let status: ExitStatus = error.code == EACCES || error.code == EPERM ? .noPermission : .unavailable
            return fail(status, "cannot open the probe's sockets on \(chosen.name): \(error.description)")
        }
        if getuid() == 0, o.user != "root" {
            do throws(PcapError) {
                _ = try PrivilegeDrop.drop(to: o.user)
            } catch {
                return fail(.noPermission, "cannot drop privileges to '\(o.user)': \(error.description)")
            }
        }
        let summary = ProbeSummary(
            interface: chosen.name,
            addresses: (useIPv4 ? chosen.ipv4.map { .v4($0) } : []) + (useIPv6 ? chosen.ipv6.map { .v6($0) } : []),
            families: (useIPv4 ? ["ipv4"] : []) + (useIPv6 ? ["ipv6"] : []),
            appIDs: o.appIDs.map { $0.uppercased() }, durationSeconds: o.durationSeconds, started: LiveSession.now(),
            captured: capture != nil, captureNote: note, written: writer != nil ? o.write : nil)
        return .success(
            ProbeSession(
                options: o, interface: chosen, capture: capture, writer: writer, sockets: sockets, summary: summary))
    }

    /// The address this host sends from to `destination`'s family on the interface: for IPv6
    /// multicast and link-local peers the link-local one, as the kernel chooses.
    func ownAddress(toward destination: IPAddress) -> IPAddress? {
        switch destination {
        case .v4: return interface.ipv4.first.map { .v4($0) }
        case .v6(let d):
            let linkLocal = interface.ipv6.first { $0.isLinkLocal }
            if d.isMulticast || d.isLinkLocal, let l = linkLocal { return .v6(l) }
            return (interface.ipv6.first { !$0.isLinkLocal } ?? linkLocal).map { .v6($0) }
        }
    }

    /// Whether `address` is one of this interface's own.
    func isOwn(_ address: IPAddress) -> Bool {
        switch address {
        case .v4(let a): return interface.ipv4.contains(a)
        case .v6(let a): return interface.ipv6.contains(a)
        }
    }
}
