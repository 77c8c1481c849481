// LIMIT_REACHED: what was dropped to stay within the limits, built from the limit table.
extension Diagnosis {
    /// One counter of ``LimitDrops`` as LIMIT_REACHED words it.
    struct DropCounter {
        let count: KeyPath<LimitDrops, Int>
        /// The clause for `n` dropped; `option` is `(--max-…)` for a counter of a user-set
        /// ``Limit`` (its ``Limit/drops``), empty otherwise.
        let clause: (_ n: Int, _ capacity: TrackerCapacity, _ option: String) -> String

        /// The limit whose option sets the bound this counter counts against, if a user can.
        var limit: Limit? { Limit.allCases.first { $0.drops.contains { $0 == count } } }
    }

    /// The counters in the order the finding lists them.
    static var dropCounters: [DropCounter] {
        [
            DropCounter(count: \.devices) { n, c, option in
                "\(Wording.count(n, "new device")) beyond \(c.devices) \(option)"
            },
            DropCounter(count: \.devicesEvicted) { n, _, _ in
                "\(Wording.count(n, "incomplete device")) (never seen with SRV or TXT) forgotten to make room"
            },
            DropCounter(count: \.clients) { n, c, option in
                "\(Wording.count(n, "packet")) from clients beyond \(c.clients) \(option)"
            },
            DropCounter(count: \.names) { n, c, option in
                "\(Wording.count(n, "record")) whose names did not fit in \(c.names) \(option)"
            },
            DropCounter(count: \.hosts) { n, c, _ in "\(Wording.count(n, "address record")) of hosts beyond \(c.hosts)"
            },
            DropCounter(count: \.dialDevices) { n, c, _ in
                "\(Wording.count(n, "DIAL answer")) from devices beyond \(c.dialDevices)"
            },
            DropCounter(count: \.fragments) { n, _, option in
                "\(Wording.count(n, "fragmented datagram")) abandoned by the reassembly limits \(option)"
            },
            DropCounter(count: \.sessions) { n, c, option in
                "\(Wording.count(n, "discovery session")) stopped taking responses to keep \(c.sessions) at once \(option)"
            },
            DropCounter(count: \.finishedSessions) { n, _, _ in
                "\(Wording.count(n, "finished discovery session")) beyond \(TrackerLimits.maximumFinishedSessions) in all"
            },
            DropCounter(count: \.queries) { n, c, option in
                "\(Wording.count(n, "query", "queries")) beyond \(c.rows) in the per-query table \(option)"
            },
            DropCounter(count: \.pairs) { n, c, option in
                "\(Wording.count(n, "client × device update")) beyond \(c.pairs) pairs \(option): those responses and "
                    + "session progress were not counted"
            },
            DropCounter(count: \.latencyRows) { n, c, option in
                "\(Wording.count(n, "latency row")) (session × device) beyond \(c.rows) \(option)"
            },
            DropCounter(count: \.responseRows) { n, c, option in
                "\(Wording.count(n, "response row")) (client × device) beyond \(c.rows) \(option)"
            },
            DropCounter(count: \.queryListEntries) { n, _, _ in
                "\(Wording.count(n, "device id")) beyond \(QueryOutcome.maximumDevicesListed) in one query's answered, "
                    + "suppressed or missed list"
            },
        ]
    }

    /// LIMIT_REACHED: what was dropped to stay within the limits, or `nil` if nothing was.
    /// `notListed` counts the subjects of each code beyond ``maximumFindingsPerCode``.
    static func limitReached(
        _ drops: LimitDrops, capacity: TrackerCapacity, notListed: [FindingCode: Int]
    ) -> Finding? {
        guard !drops.isEmpty else { return nil }
        var parts: [String] = []
        for counter in dropCounters where drops[keyPath: counter.count] > 0 {
            let option = counter.limit.map { "(\($0.flag))" } ?? ""
            parts.append(counter.clause(drops[keyPath: counter.count], capacity, option))
        }
        if drops.findings > 0 {
            let codes = notListed.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key)" }
            parts.append(
                "\(Wording.count(drops.findings, "subject")) beyond \(maximumFindingsPerCode) of one finding not listed "
                    + "(\(codes.joined(separator: ", ")))")
        }
        return Finding(
            code: .limitReached, severity: .warning,
            title: "Some discovery state was dropped to keep memory bounded",
            detail: "The capture holds more than castscope keeps: " + parts.joined(separator: "; ")
                + ". Everything else was analysed; devices, clients and latencies may be missing from the "
                + "report.",
            advice: "A flood of announcements, names or fragments like this is a misbehaving device or an "
                + "attack on the network: look for the sender in Wireshark. If the network really is that "
                + "large, raise the limits with the options named above.")
    }
}
