/// The findings of a two-point comparison: where the packets die. One rule per function;
/// each reads only ``CaptureComparison``'s counts.
///
/// Multicast on Wi-Fi has no retransmission, so a few lost packets are normal: a loss is an
/// error when nothing got through, a warning from ``warningLossPercent`` or when messages
/// stopped arriving, and a note below that.
public enum CompareRules {
    /// The loss share (percent) from which a partial loss is a warning.
    public static let warningLossPercent = 20.0
    /// Lost messages in a row at the end from which "stopped arriving" is called.
    public static let stoppedRun = 3
    /// The p90 one-way delay (seconds) from which the delay is a warning.
    public static let largeDelay = 0.25
    /// The clock-offset spread (seconds) from which the offset is called unreliable.
    public static let largeSpread = 1.0

    public static func findings(_ c: CaptureComparison) -> [CompareFinding] {
        var out: [CompareFinding] = []
        out += noQueries(c)
        out += noAnswers(c)
        out += queriesLost(c)
        out += answersLost(c)
        out += reflector(c)
        out += largeDelay(c)
        out += clockSpread(c)
        out += ok(c, others: out)
        return out.sorted { $0.finding.severity < $1.finding.severity }
    }

    static func noQueries(_ c: CaptureComparison) -> [CompareFinding] {
        guard c.senders.isEmpty else { return [] }
        return [
            CompareFinding(
                Finding(
                    code: .compareNoQueries, severity: .warning,
                    title: "\(c.a.shownName) holds no Cast query from a sender",
                    detail: "No host other than a Cast device sent a query for _googlecast._tcp.local in capture A, "
                        + "so there is nothing to follow toward the devices.",
                    advice: "Give the sender's capture first (compare SENDER-SIDE DEVICE-SIDE), and open the Cast "
                        + "dialog or the app's Cast button while capturing. An iOS app denied Local Network access "
                        + "sends no query at all (castscope check-plist / check-app)."))
        ]
    }

    static func noAnswers(_ c: CaptureComparison) -> [CompareFinding] {
        guard c.devices.isEmpty else { return [] }
        return [
            CompareFinding(
                Finding(
                    code: .compareNoAnswers, severity: .warning,
                    title: "\(c.b.shownName) holds no Cast response from a device",
                    detail: "No host sent a response with _googlecast._tcp.local records in capture B.",
                    advice: "Capture B should be taken next to the device (its switch port, its access point, or "
                        + "a host on its subnet). If it was, the device did not answer: is it on, on this network, "
                        + "and did the sender's queries reach it?"))
        ]
    }

    /// How bad a loss is, or `nil` for none.
    static func severity(_ t: DirectionTraffic) -> Severity? {
        guard t.lost > 0 else { return nil }
        if t.arrived == 0 { return t.seen >= 2 ? .error : .warning }
        // A relay that rebuilds messages merges repeats and drops records it sent in the last
        // second (RFC 6762 §6): its "losses" need not be losses.
        if t.reencoded > 0 { return .info }
        if t.lossPercent >= warningLossPercent || t.lostAfterLastArrival >= stoppedRun { return .warning }
        return .info
    }

    /// What the numbers say: `12 of 60 (20.0 %)`, and whether they stopped arriving.
    static func lossWords(_ t: DirectionTraffic, what: String) -> String {
        var s = "\(t.lost) of \(t.seen) \(what) (\(Wording.decimal(t.lossPercent, places: 1)) %) never arrived"
        if t.arrived > 0, t.lostAfterLastArrival >= stoppedRun, t.lostAfterLastArrival == t.lost {
            s += "; they arrived until \(Wording.clock(epochSeconds: t.lastArrival!)), then none did"
        } else if t.arrived > 0, t.lostAfterLastArrival >= stoppedRun {
            s +=
                "; the last \(t.lostAfterLastArrival) sent after \(Wording.clock(epochSeconds: t.lastArrival!)) all died"
        }
        if t.outsideOverlap > 0 {
            s +=
                ". \(Wording.count(t.outsideOverlap, "message")) sent while the other capture was not running "
                + "\(t.outsideOverlap == 1 ? "is" : "are") not counted"
        }
        if t.reencoded > 0, t.arrived > 0 {
            s +=
                ". A relay rebuilt the copies that arrived; it merges repeated messages and holds back records it "
                + "sent within the last second (RFC 6762 §6), so some of these were merged rather than lost"
        }
        return s + "."
    }

    static func queriesLost(_ c: CaptureComparison) -> [CompareFinding] {
        let t = c.queries
        guard let severity = severity(t) else { return [] }
        let all = t.arrived == 0
        let stopped = t.arrived > 0 && t.lostAfterLastArrival >= stoppedRun && t.lostAfterLastArrival == t.lost
        let advice: String
        if all {
            advice =
                "Multicast from the sender does not reach the devices' segment. Look between the two capture "
                + "points for an access point or mesh node that does not forward multicast between clients or "
                + "bands, a VLAN or subnet boundary without an mDNS reflector, a \"multicast enhancement\" or "
                + "multicast-to-unicast setting, or a firewall rule for UDP 5353. Switches flood 224.0.0.251 even "
                + "with IGMP snooping (RFC 4541); IPv6 ff02::fb can age out with MLD snooping."
        } else if stopped {
            advice =
                "The path forwarded the sender's multicast, then stopped: typical of an access point's "
                + "multicast-to-unicast conversion or \"multicast enhancement\" losing the sender's group "
                + "membership, or of MLD snooping ageing out for IPv6. Check for an IGMP/MLD querier on the "
                + "network and the access point's multicast settings."
        } else {
            advice =
                "Wi-Fi sends multicast without retransmission at a low rate, so some loss is expected; much "
                + "loss points at a weak link, a busy channel or power-saving clients. Senders repeat queries, "
                + "so discovery usually survives a loss below a fifth."
        }
        let arrivedFrames = c.match.pairs.enumerated().compactMap { k, p in
            c.pairDirections[k] == .query ? c.b.messages[p.b].frame : nil
        }
        return [
            CompareFinding(
                Finding(
                    code: .compareQueriesLost, severity: severity,
                    title: all
                        ? "None of the sender's \(Wording.count(t.seen, "Cast query", "Cast queries")) reached the "
                            + "device side"
                        : "\(t.lost) of the sender's \(Wording.count(t.seen, "Cast query", "Cast queries")) never "
                            + "reached the device side",
                    detail: lossWords(t, what: "Cast queries seen in A") + firstLostWords(t, near: "B"),
                    advice: advice,
                    subjects: FindingSubjects(clients: c.senders.flatMap(\.addresses))),
                framesA: t.lostFrames, framesB: Array(arrivedFrames.suffix(3)))
        ]
    }

    static func answersLost(_ c: CaptureComparison) -> [CompareFinding] {
        let t = c.answers
        guard let severity = severity(t) else { return [] }
        let all = t.arrived == 0
        var advice: String
        if t.multicastSeen > 0, t.multicastArrived == 0, t.unicastArrived > 0 {
            advice =
                "Unicast answers got through and multicast ones did not: the network does not deliver the "
                + "devices' multicast to the sender (client or AP isolation, multicast not relayed between "
                + "wireless clients or mesh nodes, an Android sender without a MulticastLock)."
        } else if all {
            advice =
                "The devices' answers do not reach the sender's side: client or AP isolation, multicast not "
                + "relayed toward wireless clients (multicast-to-unicast, \"multicast enhancement\"), a VLAN or "
                + "subnet boundary without a reflector, or a firewall between the two points. A firewall on the "
                + "sender itself drops them after the capture and would not show here; look for ICMP port "
                + "unreachable in capture A (castscope analyze)."
        } else {
            advice =
                "Some of the devices' answers died on the way; Wi-Fi multicast has no retransmission, so a "
                + "little loss is normal. Much loss points at a weak link or power-saving clients; answers that "
                + "stop arriving point at multicast-to-unicast conversion losing the sender's membership."
        }
        if t.sourceChanged > 0 {
            advice += " The arrived copies came through a reflector, which may not relay every answer."
        }
        return [
            CompareFinding(
                Finding(
                    code: .compareAnswersLost, severity: severity,
                    title: all
                        ? "None of the devices' \(Wording.count(t.seen, "Cast response")) reached the sender side"
                        : "\(t.lost) of the devices' \(Wording.count(t.seen, "Cast response")) never reached the "
                            + "sender side",
                    detail: lossWords(t, what: "Cast responses seen in B") + firstLostWords(t, near: "A"),
                    advice: advice,
                    subjects: FindingSubjects(devices: c.devices.map(\.label))),
                framesB: t.lostFrames)
        ]
    }

    static func firstLostWords(_ t: DirectionTraffic, near side: String) -> String {
        guard let first = t.firstLost else { return "" }
        var s = " The first lost one is frame \(first.frame)"
        if let near = first.nearFrame { s += "; in \(side) it should have come right after frame \(near)" }
        return s + "."
    }

    static func reflector(_ c: CaptureComparison) -> [CompareFinding] {
        let copies = c.changedCopies
        let changed = c.queries.changed + c.answers.changed
        guard changed > 0 else { return [] }
        let sources = copies.filter { $0.sourceA != $0.sourceB }
        var newSources: [String] = []
        for copy in sources {
            for s in [copy.kind == .query ? copy.sourceB : copy.sourceA] where !newSources.contains(s) {
                newSources.append(s)
            }
        }
        var parts: [String] = []
        let sourceCount = c.queries.sourceChanged + c.answers.sourceChanged
        let ttlCount = c.queries.ttlChanged + c.answers.ttlChanged
        let rebuilt = c.queries.reencoded + c.answers.reencoded
        if sourceCount > 0 {
            parts.append(
                "\(Wording.count(sourceCount, "copy", "copies")) arrived from another address "
                    + "(\(Wording.cappedList(newSources, maximum: 5)))")
        }
        if ttlCount > 0 { parts.append("\(Wording.count(ttlCount, "copy", "copies")) with another IP TTL") }
        if rebuilt > 0 { parts.append("\(Wording.count(rebuilt, "copy", "copies")) rebuilt with other bytes") }
        let added = c.queries.knownAnswersAdded
        var knownAnswers = ""
        if added > 0 {
            knownAnswers =
                " The relay added known answers from its own cache to \(Wording.count(added, "relayed query", "relayed queries")): "
                + "a Cast device that finds its own records listed there stays silent (RFC 6762 §7.1), so behind "
                + "this relay the sender may learn of devices only from their announcements."
        }
        let title =
            sourceCount > 0
            ? "A reflector between the two points relays the Cast messages"
            : "A relay between the two points changes the Cast messages"
        return [
            CompareFinding(
                Finding(
                    code: .compareReflector, severity: .info, title: title,
                    detail: "Of the messages that reached the other point, " + Wording.list(parts) + ". "
                        + "\(c.queries.changed) of them are the sender's queries, \(c.answers.changed) the devices' "
                        + "answers." + knownAnswers,
                    advice: "An mDNS reflector or gateway joins the two segments. It is what makes discovery work "
                        + "across them; check it relays both ways, and that relayed queries reach the devices from "
                        + "an address on their own subnet: Cast devices ignore queries from off-subnet sources."),
                framesA: copies.map(\.frameA), framesB: copies.map(\.frameB))
        ]
    }

    static func largeDelay(_ c: CaptureComparison) -> [CompareFinding] {
        guard c.offsetBasis == .bothDirections else { return [] }
        var slow: [String] = []
        var framesA: [Int] = []
        for (name, t) in [("queries", c.queries), ("answers", c.answers)] {
            guard let d = t.delay, d.count >= 5, d.p90 >= largeDelay else { continue }
            slow.append(
                "\(name): p50 \(Wording.duration(milliseconds: d.p50 * 1000)), p90 "
                    + "\(Wording.duration(milliseconds: d.p90 * 1000)) over \(d.count)")
        }
        guard !slow.isEmpty else { return [] }
        for (k, p) in c.match.pairs.enumerated() where c.pairDirections[k] != nil && c.pairDelays[k] >= largeDelay {
            framesA.append(c.a.messages[p.a].frame)
        }
        return [
            CompareFinding(
                Finding(
                    code: .compareLargeDelay, severity: .warning,
                    title: "Cast messages take long between the two points",
                    detail: "One-way delays (both directions measured, so the clock offset is out): "
                        + Wording.list(slow) + ".",
                    advice: "A LAN delivers in milliseconds. Delays in steps of about 100 ms point at Wi-Fi power "
                        + "save (multicast held until the DTIM beacon); longer ones at a relay that queues, or a "
                        + "congested link. Senders wait about a second for answers."),
                framesA: framesA)
        ]
    }

    static func clockSpread(_ c: CaptureComparison) -> [CompareFinding] {
        guard let o = c.offset, o.spread >= largeSpread else { return [] }
        return [
            CompareFinding(
                Finding(
                    code: .compareClockSpread, severity: .info,
                    title: "The two captures' clocks disagree by up to "
                        + Wording.duration(milliseconds: o.spread * 1000) + " between pairs",
                    detail: "The matched pairs give clock offsets that spread by ±"
                        + Wording.duration(milliseconds: o.spread * 1000) + " around "
                        + Wording.duration(milliseconds: o.median * 1000) + ".",
                    advice: "One clock drifts or jumped (NTP) during the captures, or a relay queues for seconds. "
                        + "Delays are uncertain by that much; the counts are not affected unless delays exceed the "
                        + "pairing window (--window)."))
        ]
    }

    static func ok(_ c: CaptureComparison, others: [CompareFinding]) -> [CompareFinding] {
        guard c.queries.seen > 0, c.answers.seen > 0, c.queries.lost == 0, c.answers.lost == 0 else { return [] }
        return [
            CompareFinding(
                Finding(
                    code: .compareOK, severity: .info,
                    title: "Every Cast message reached the other point",
                    detail: "\(Wording.count(c.queries.seen, "Cast query", "Cast queries")) of the sender and "
                        + "\(Wording.count(c.answers.seen, "Cast response")) of the devices all arrived.",
                    advice: "The path between the two points is not the problem. If the sender still shows no "
                        + "device, look at the sender itself: castscope analyze on capture A."))
        ]
    }
}
