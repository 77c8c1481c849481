import CastDiscovery
import WireFormat

/// The Prometheus text exposition format, version 0.0.4, of a watch (`live --metrics`): every
/// family with its `# HELP` and `# TYPE`, names and units as Prometheus' conventions ask
/// (`castscope_` prefix, `_total` counters, seconds), series in a stable order, and label
/// values escaped (device names come from the network). docs/metrics.md lists the families.
public enum MetricsExposition {
    /// The exposition of `m`; `version` is castscope's, for `castscope_build_info`.
    public static func render(_ m: LiveMetrics, version: String) -> String {
        var w = ExpositionWriter()
        let watch = m.watch
        let now = m.now

        w.family("castscope_build_info", .gauge, "castscope's version and the Swift it was built with; always 1.")
        w.sample("castscope_build_info", [("version", version), ("swift_version", swiftVersion)], 1)
        w.family("castscope_start_time_seconds", .gauge, "When the watch started, in seconds since the Unix epoch.")
        w.sample("castscope_start_time_seconds", [], m.started.epochSeconds)
        w.family(
            "castscope_metrics_window_seconds", .gauge,
            "The analysis window: active findings are those of the last half to whole window.")
        w.sample("castscope_metrics_window_seconds", [], m.windowSeconds)

        w.family("castscope_packets_read_total", .counter, "Frames captured, after the kernel's discovery filter.")
        w.sample("castscope_packets_read_total", [], Double(m.packetsRead))
        w.family(
            "castscope_packets_decoded_total", .counter,
            "Discovery packets decoded (mDNS, SSDP, unicast DNS for .local), malformed ones included.")
        w.sample("castscope_packets_decoded_total", [], Double(m.packetsDecoded))
        w.family("castscope_packets_malformed_total", .counter, "Discovery packets with a decoding fault.")
        w.sample("castscope_packets_malformed_total", [], Double(m.packetsMalformed))
        w.family(
            "castscope_packets_dropped_total", .counter, "Packets dropped before castscope read them (pcap_stats).")
        w.sample("castscope_packets_dropped_total", [("where", "kernel")], Double(m.droppedKernel))
        w.sample("castscope_packets_dropped_total", [("where", "interface")], Double(m.droppedInterface))

        let devices = watch.devices.values.sorted { $0.id < $1.id }
        w.family(
            "castscope_devices_visible", .gauge,
            "Cast devices whose records have not expired (TTL) and that did not say goodbye.")
        w.sample("castscope_devices_visible", [], Double(watch.devicesVisible(at: now)))
        w.family("castscope_device_up", .gauge, "1 while the device's records are alive, 0 once it has gone.")
        for d in devices {
            w.sample(
                "castscope_device_up", [("id", d.id), ("name", d.name), ("model", d.model), ("kind", d.kind.rawValue)],
                d.isUp(at: now) ? 1 : 0)
        }
        w.family("castscope_device_last_heard_age_seconds", .gauge, "Seconds since any record of the device was heard.")
        for d in devices {
            w.sample(
                "castscope_device_last_heard_age_seconds", [("id", d.id)], Swift.max(now.seconds(since: d.lastHeard), 0)
            )
        }
        w.histogramFamily(
            "castscope_first_answer_seconds",
            "From the start of a client's discovery session to the device's first answer.", devices, \.firstAnswer)
        w.histogramFamily(
            "castscope_resolution_seconds",
            "From the start of a client's discovery session to the device fully resolved (PTR, SRV, TXT, address).",
            devices, \.resolution)

        let clients = watch.clients.values.sorted {
            ($0.address, $0.mac?.description ?? "") < ($1.address, $1.mac?.description ?? "")
        }
        w.family(
            "castscope_clients_active", .gauge,
            "Clients whose discovery session is open (a Cast query within the session gap).")
        w.sample("castscope_clients_active", [], Double(watch.clientsActive))
        w.family("castscope_queries_total", .counter, "Cast queries from every client, forgotten ones included.")
        w.sample("castscope_queries_total", [], Double(watch.queries))
        w.family(
            "castscope_unanswered_queries_total", .counter,
            "Cast queries that devices which should have answered did not answer within 1 s, every client.")
        w.sample("castscope_unanswered_queries_total", [], Double(watch.unanswered))
        w.family("castscope_client_queries_total", .counter, "Cast queries the client sent.")
        for c in clients {
            w.sample(
                "castscope_client_queries_total",
                [("client", c.address.description), ("mac", c.mac?.description ?? "")], Double(c.queries))
        }
        w.family(
            "castscope_client_unanswered_queries_total", .counter,
            "The client's Cast queries that devices which should have answered did not answer within 1 s.")
        for c in clients {
            w.sample(
                "castscope_client_unanswered_queries_total",
                [("client", c.address.description), ("mac", c.mac?.description ?? "")], Double(c.unanswered))
        }

        w.family(
            "castscope_connections_total", .counter,
            "TCP connections from clients to Cast ports, by outcome; id is empty when no device advertises the address."
        )
        for d in devices {
            for (outcome, n) in d.connections.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                w.sample("castscope_connections_total", [("id", d.id), ("outcome", outcome.rawValue)], Double(n))
            }
        }
        for (outcome, n) in watch.connectionsWithoutDevice.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            w.sample("castscope_connections_total", [("id", ""), ("outcome", outcome.rawValue)], Double(n))
        }

        w.family(
            "castscope_findings_active", .gauge,
            "1 while the analysis of the current window gives the finding, 0 once it has cleared (docs/diagnostics.md)."
        )
        for f in watch.findings.values.sorted(by: { ($0.code.rawValue, $0.severity) < ($1.code.rawValue, $1.severity) })
        {
            w.sample(
                "castscope_findings_active", [("code", f.code.rawValue), ("severity", f.severity.rawValue)],
                f.isActive ? 1 : 0)
        }
        w.family(
            "castscope_series_dropped_total", .counter,
            "Devices or clients not given a series, or evicted, because of --max-devices or --max-clients.")
        for family in DiscoveryWatch.Family.allCases {
            w.sample(
                "castscope_series_dropped_total", [("family", family.rawValue)],
                Double(watch.seriesDropped[family] ?? 0))
        }
        w.family(
            "castscope_limit_drops_total", .counter,
            "What the analysis dropped at each --max-... limit, as LIMIT_REACHED counts it (records, not devices).")
        for limit in Limit.allCases {
            w.sample("castscope_limit_drops_total", [("limit", limit.name)], Double(watch.limitDrops[limit] ?? 0))
        }
        return w.output
    }

    /// The Swift language version castscope was compiled as.
    static var swiftVersion: String {
        #if swift(>=6.4)
            return "6.4+"
        #elseif swift(>=6.3)
            return "6.3"
        #else
            return "6"
        #endif
    }
}

/// Writes families and samples in the text format.
struct ExpositionWriter {
    enum Kind: String {
        case gauge, counter, histogram
    }

    var output = ""

    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        output += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        output += name
        if !labels.isEmpty {
            output += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        output += " " + Self.number(value) + "\n"
    }

    /// One histogram per device: cumulative `_bucket` series up to `+Inf`, `_sum`, `_count`.
    mutating func histogramFamily(
        _ name: String, _ help: String, _ devices: [DiscoveryWatch.DeviceEntry],
        _ histogram: KeyPath<DiscoveryWatch.DeviceEntry, LatencyHistogram>
    ) {
        family(name, .histogram, help)
        for d in devices {
            let h = d[keyPath: histogram]
            let cumulative = h.cumulative
            for (i, bound) in LatencyHistogram.bounds.enumerated() {
                sample(name + "_bucket", [("id", d.id), ("le", Self.number(bound))], Double(cumulative[i]))
            }
            sample(name + "_bucket", [("id", d.id), ("le", "+Inf")], Double(h.count))
            sample(name + "_sum", [("id", d.id)], h.sum)
            sample(name + "_count", [("id", d.id)], Double(h.count))
        }
    }

    /// A label value: backslash, double quote and line feed escaped, as the format requires.
    static func escapeLabel(_ value: String) -> String { escape(value, quote: true) }

    /// HELP text: backslash and line feed escaped.
    static func escapeHelp(_ text: String) -> String { escape(text, quote: false) }

    static func escape(_ text: String, quote: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\"" where quote: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// A sample value as Go's ParseFloat reads it: integers without a fraction, `+Inf`, `NaN`.
    static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}
