// One finding per code, not a paragraph per subject: the rules emit one finding per client,
// device or capture, and this step merges those of one code (and severity) into one finding
// that names every subject, with each subject's own line and frames as its evidence.
extension Diagnosis {
    /// The titles of merged findings of the codes whose one-subject title does not read in the
    /// plural: `count` subjects, `list` them (`a, b and c`). Other codes get
    /// ``genericTitle(_:count:rest:noun:)``.
    static let pluralTitles: [FindingCode: @Sendable (_ count: Int, _ list: String) -> String] = [
        .dialOnly: { "\($0) clients searched only with SSDP/DIAL, never with mDNS: \($1)" },
        .queriesUnanswered: { "\($0) clients asked for Cast devices and got no answer: \($1)" },
        .clientNotAnswered: { "Cast devices are on the network but never answered \($0) clients: \($1)" },
        .slowResponse: { "Slow answers to \($0) clients: \($1)" },
        .queryStorm: { "\($0) clients query faster than RFC 6762 allows: \($1)" },
        .legacyUnicast: { "\($0) clients send legacy unicast queries (not from port 5353): \($1)" },
        .txtMissingRequired: { "\($0) devices lack required TXT keys, so senders ignore them: \($1)" },
        .noIPv4Address: { "\($0) devices resolve only to IPv6: \($1)" },
        .deviceLeft: { "\($0) devices said goodbye: \($1)" },
        .deviceExpired: { "\($0) devices went silent: their records expired without a goodbye: \($1)" },
        .addressChanged: { "\($0) devices changed their IPv4 address during the capture: \($1)" },
        .crossSubnet: { "The answers of \($0) devices come from another host: \($1)" },
        .dialUnanswered: { "\($0) clients searched with DIAL and no DIAL device answered: \($1)" },
        .relayedQueriesIgnored: {
            "The queries of \($0) clients arrive relayed with an off-subnet source, and devices ignore them: \($1)"
        },
        .senderWrongInterface: { "\($0) clients ask for Cast devices from a subnet where no device is: \($1)" },
        .localNameOverDNS: { "\($0) clients ask a unicast DNS server for .local names: \($1)" },
        .vlanSeparated: { "\($0) clients cannot discover the Cast devices on other VLANs: \($1)" },
        .advertisedAddressUnreachable: { "\($0) devices advertise an address that is not where they are: \($1)" },
        .responseTTLNot255: { "\($0) Cast devices send mDNS responses with an IP TTL other than 255: \($1)" },
    ]

    /// Merges the findings of each code and severity into one, at the place of the first;
    /// gives every finding its evidence entries. At most ``maximumFindingsPerCode`` subjects
    /// of one finding are listed; `notListed` counts the others per code (LIMIT_REACHED).
    static func merged(_ findings: [Finding], _ context: DiagnosisContext) -> (
        findings: [Finding], notListed: [FindingCode: Int]
    ) {
        struct Key: Hashable {
            let code: FindingCode
            let severity: Severity
        }
        var groups: [[Finding]] = []
        var slot: [Key: Int] = [:]
        for f in findings {
            let key = Key(code: f.code, severity: f.severity)
            if let i = slot[key] {
                groups[i].append(f)
            } else {
                slot[key] = groups.count
                groups.append([f])
            }
        }
        var notListed: [FindingCode: Int] = [:]
        var out: [Finding] = []
        for group in groups {
            let evidence = evidence(group, context)
            if evidence.count > maximumFindingsPerCode {
                notListed[group[0].code, default: 0] += evidence.count - maximumFindingsPerCode
            }
            out.append(merge(group, evidence: evidence))
        }
        return (out, notListed)
    }

    /// One entry per subject of the group (a finding that already has entries keeps them).
    static func evidence(_ group: [Finding], _ context: DiagnosisContext) -> [FindingEvidence] {
        // The subject kinds that differ between the findings name each one.
        let clientsDiffer = Set(group.map(\.subjects.clients)).count > 1
        let devicesDiffer = Set(group.map(\.subjects.devices)).count > 1
        let appsDiffer = Set(group.map(\.subjects.appIDs)).count > 1
        let single = group.count == 1
        var out: [FindingEvidence] = []
        for f in group {
            guard f.evidence.isEmpty else {
                out += f.evidence
                continue
            }
            var parts: [String] = []
            var kind = FindingEvidence.Kind.other
            let s = f.subjects
            if (clientsDiffer || single) && !s.clients.isEmpty {
                parts.append(list(s.clients))
                kind = .client
            }
            if (devicesDiffer || (single && s.clients.isEmpty)) && !s.devices.isEmpty {
                parts.append(list(s.devices.map(context.name(of:))))
                if kind == .other { kind = .device }
            }
            if (appsDiffer || (single && s.clients.isEmpty && s.devices.isEmpty)) && !s.appIDs.isEmpty {
                parts.append(list(s.appIDs))
                if kind == .other { kind = .app }
            }
            out.append(
                FindingEvidence(kind: kind, subject: parts.joined(separator: " / "), detail: f.title, frames: f.frames))
        }
        return out
    }

    /// The group as one finding: one subject reads as the rule wrote it. The title counts and
    /// names every subject (the list capped at ``maximumListed``); the first
    /// ``maximumFindingsPerCode`` evidence entries are kept.
    static func merge(_ group: [Finding], evidence all: [FindingEvidence]) -> Finding {
        var merged = group[0]
        let evidence = Array(all.prefix(maximumFindingsPerCode))
        merged.evidence = evidence
        guard evidence.count > 1 else { return merged }
        merged.subjects = FindingSubjects(
            clients: union(group.map(\.subjects.clients)), devices: union(group.map(\.subjects.devices)),
            appIDs: union(group.map(\.subjects.appIDs)))
        merged.frames = roundRobin(evidence.map(\.frames))
        let labels = all.map(\.subject)
        let named = labels.allSatisfy { !$0.isEmpty }
        let kind = evidence[0].kind
        let noun = ["client": "client", "device": "device", "app": "app ID"][kind.rawValue] ?? "finding"
        if named, kind != .other, let plural = pluralTitles[merged.code] {
            merged.title = plural(all.count, list(labels))
        } else {
            merged.title = genericTitle(
                group[0].title, count: all.count, rest: named ? Array(labels.dropFirst()) : [], noun: noun)
        }
        merged.detail = commonDetail(group.map(\.detail), first: named ? labels[0] : "")
        merged.advice = adviceBySubject(group.map(\.advice), labels: named ? labels : [])
        return merged
    }

    /// The lists' items, each once, in order, the first ``FindingSubjects/maximumEach`` only
    /// (linear: a flood gives thousands of findings of one code).
    static func union(_ lists: [[String]]) -> [String] {
        var out: [String] = []
        var seen: Set<String> = []
        for l in lists {
            for item in l where seen.insert(item).inserted {
                out.append(item)
                if out.count == FindingSubjects.maximumEach { return out }
            }
        }
        return out
    }

    /// `<the first title>, and the same for 2 more clients: b and c` (the count only when the
    /// subjects have no names).
    static func genericTitle(_ first: String, count: Int, rest: [String], noun: String) -> String {
        let more = count - 1
        guard !rest.isEmpty else { return "\(first), and \(more) more like it" }
        return "\(first), and the same for \(more) more \(Wording.noun(more, noun)): \(list(rest))"
    }

    /// The sentences every detail has (the subject's own numbers are in its evidence line);
    /// when none is common to all, the first subject's detail, said to be its.
    static func commonDetail(_ details: [String], first: String) -> String {
        if Set(details).count == 1 { return details[0] }
        let sentences = details.map(self.sentences)
        let common = sentences[0].filter { s in sentences.dropFirst().allSatisfy { $0.contains(s) } }
        if !common.isEmpty { return common.joined(separator: " ") }
        return first.isEmpty ? details[0] : "For \(first): \(details[0])"
    }

    /// `text` cut after each `. ` that a capital letter follows.
    static func sentences(_ text: String) -> [String] {
        // Cut by index, the last two characters in two variables: building each sentence a
        // character at a time, with an array for the last two, cost a tenth of a dense report.
        var out: [String] = []
        var start = text.startIndex
        var previous: (Character?, Character?) = (nil, nil)
        var i = text.startIndex
        while i < text.endIndex {
            let ch = text[i]
            if previous.0 == ".", previous.1 == " ", ch.isUppercase {
                out.append(String(text[start..<text.index(before: i)]))
                start = i
            }
            previous = (previous.1, ch)
            i = text.index(after: i)
        }
        if start < text.endIndex { out.append(String(text[start...])) }
        return out
    }

    /// The advice, or, when the subjects need different advice (a Chrome and an Android
    /// sender, say), each advice after the subjects it is for.
    static func adviceBySubject(_ advice: [String], labels: [String]) -> String {
        var order: [String] = []
        var whom: [String: [String]] = [:]
        for (i, a) in advice.enumerated() {
            if whom[a] == nil { order.append(a) }
            if i < labels.count { whom[a, default: []].append(labels[i]) } else { whom[a, default: []] += [] }
        }
        guard order.count > 1 else { return order.first ?? "" }
        return order.map { a in whom[a].map { $0.isEmpty ? a : "For \(list($0)): \(a)" } ?? a }
            .joined(separator: " ")
    }

    /// The first frame of each list, then the second of each, and so on, each frame once, at
    /// most ``Finding/maximumFrames``.
    static func roundRobin(_ lists: [[FrameRef]]) -> [FrameRef] {
        var out: [FrameRef] = []
        var seen: Set<FrameRef> = []
        var depth = 0
        while out.count < Finding.maximumFrames, lists.contains(where: { $0.count > depth }) {
            for l in lists where l.count > depth && out.count < Finding.maximumFrames {
                if seen.insert(l[depth]).inserted { out.append(l[depth]) }
            }
            depth += 1
        }
        return out
    }
}
