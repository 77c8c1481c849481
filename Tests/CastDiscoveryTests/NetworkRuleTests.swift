import Foundation
import Testing
import WireFormat

@testable import CastDiscovery

private typealias S = DiagnosisSupport

// VLAN_SEPARATED and MULTICAST_DECAYED on the captures made for them (captures/README.md says
// what user space did in each), and the tracker facts they read.
@Suite("Network rules: VLANs and multicast decay")
struct NetworkRuleTests {
    static let sender = "192.0.2.10"
    static let cc = "3f5d6b2a8c914e07b2d46a1f0c9e7d35"

    // MARK: VLAN_SEPARATED

    @Test("vlan-separated: VLAN_SEPARATED alone, an error naming both VLANs, the subnets and the device")
    func vlanSeparated() throws {
        let r = try S.report("vlan-separated.pcap")
        #expect(S.codes(r, [.error, .warning]) == ["VLAN_SEPARATED"])
        let f = try #require(r.findings.first { $0.code == .vlanSeparated })
        #expect(f.severity == .error)
        #expect(f.subjects.clients == [Self.sender] && f.subjects.devices == [Self.cc])
        #expect(f.title == "192.0.2.10 on VLAN 10 cannot discover Cast devices on VLAN 20")
        for fact in ["VLAN 10", "VLAN 20", "198.51.100.21 (subnet 198.51.100.x)", "192.0.2.10 (subnet 192.0.2.x)"] {
            #expect(f.detail.contains(fact), "\(fact): \(f.detail)")
        }
        #expect(f.advice.contains("enable-reflector") && f.advice.contains("TCP 8009"))
        // The sender's three queries (tshark: vlan.id==10 && dns.flags.response==0) and the device.
        let queries = r.queries.filter { $0.client.description == Self.sender }.map(\.frame)
        #expect(queries.count == 3 && f.frames == queries + [r.devices[0].firstFrame])
    }

    @Test("vlan-separated: clients and devices keep the VLAN their packets carried")
    func vlansKept() throws {
        let r = try S.report("vlan-separated.pcap")
        let vlans = Dictionary(uniqueKeysWithValues: r.clients.map { ($0.address.description, $0.vlans) })
        #expect(vlans == [Self.sender: [10], "198.51.100.11": [20]])
        #expect(r.devices.map(\.vlans) == [[20]])
        let healthy = try S.report("healthy-ipv4.pcap")
        #expect(healthy.clients.allSatisfy(\.vlans.isEmpty) && healthy.devices.allSatisfy(\.vlans.isEmpty))
    }

    @Test("vlan-separated: an answer on VLAN 20 is not an answer to a client on VLAN 10")
    func noAnswerAcrossVLANs() throws {
        let r = try S.report("vlan-separated.pcap")
        // Frame 8 (VLAN 20) comes 0.7 s after the sender's query, frame 4 (VLAN 10): within the
        // response window, so without the VLAN check it counted as the sender's answer.
        let sender = try #require(r.responses.first { $0.client.description == Self.sender })
        #expect(sender.answered == 0 && sender.missed == 1)
        let phone = try #require(r.responses.first { $0.client.description == "198.51.100.11" })
        #expect(phone.answered == 1)
    }

    @Test("a device heard on the client's VLAN too (a gateway) is not separated: CLIENT_NOT_ANSWERED again")
    func gatewayJoinsVLANs() throws {
        var r = try S.report("vlan-separated.pcap")
        r.devices[0].vlans = [20, 10]
        let codes = Diagnosis.diagnose(r).map(\.code)
        #expect(!codes.contains(.vlanSeparated))
        #expect(codes.contains(.clientNotAnswered))
        // Untagged client: nothing is known about its VLAN.
        r = try S.report("vlan-separated.pcap")
        for i in r.clients.indices { r.clients[i].vlans = [] }
        #expect(!Diagnosis.diagnose(r).map(\.code).contains(.vlanSeparated))
    }

    // MARK: MULTICAST_DECAYED

    @Test("multicast-decayed: MULTICAST_DECAYED alone, no DEVICE_EXPIRED or CLIENT_NOT_ANSWERED")
    func decayed() throws {
        let r = try S.report("multicast-decayed.pcap")
        #expect(S.codes(r, [.error, .warning]) == ["MULTICAST_DECAYED"])
        let f = try #require(r.findings.first { $0.code == .multicastDecayed })
        #expect(f.severity == .error)
        #expect(f.subjects.clients == [Self.sender] && f.subjects.devices == [Self.cc])
        let device = try #require(r.devices.first)
        // tshark: `ip.src==192.0.2.21 && ip.dst==224.0.0.251`: the last one is frame 17.
        #expect(device.lastMulticastFrame?.frame == 17)
        #expect(f.frames.first == device.lastMulticastFrame)
        #expect(f.detail.contains("multicast-to-unicast") && f.advice.contains("multicast enhancement"))
        #expect(!f.advice.contains("MLD"))
    }

    @Test("a decayed device whose unicast answers stopped too is MULTICAST_DECAYED, not DEVICE_EXPIRED")
    func decayedNotExpired() throws {
        var r = try S.report("multicast-decayed.pcap")
        #expect(!Diagnosis.diagnose(r).map(\.code).contains(.deviceExpired))
        // As if the QU queries of frames 29 and 38 had got no answer: the device is last heard
        // in frame 21 (the capture goes on 25 s, past its 10 s PTR TTL) while QM queries go
        // unanswered: DEVICE_EXPIRED's signature, but the unicast answer after the last
        // multicast packet shows what happened.
        let last = try #require(r.queries.first { $0.answered.first?.frame.frame == 21 })
        for i in r.queries.indices where r.queries[i].time > last.time && !r.queries[i].answered.isEmpty {
            r.queries[i].missed = r.queries[i].answered.map(\.deviceID)
            r.queries[i].answered = []
        }
        let seen = last.time.totalNanoseconds + Int64(last.answered[0].delayMs * 1e6)
        r.devices[0].lastSeen = Timestamp(seconds: 0, nanoseconds: seen)
        let codes = Diagnosis.diagnose(r).map(\.code)
        #expect(codes.contains(.multicastDecayed))
        #expect(!codes.contains(.deviceExpired))
    }

    @Test("multicast-decayed: evidence is the QM queries missed after the last multicast, then unicast answers")
    func decayEvidence() throws {
        let r = try S.report("multicast-decayed.pcap")
        let f = try #require(r.findings.first { $0.code == .multicastDecayed })
        let last = try #require(r.devices.first?.lastMulticast)
        let missedQM = r.queries.filter { $0.time > last && !$0.unicastResponse && $0.missed == [Self.cc] }
        let unicast = r.queries.filter { $0.time > last }.flatMap(\.answered).filter(\.unicast).map(\.frame)
        #expect(missedQM.count >= 3)
        #expect(f.frames == [r.devices[0].lastMulticastFrame!] + missedQM.map(\.frame) + unicast)
        // tshark `ip.src==192.0.2.21 && ip.dst==192.0.2.10`: frames 21, 30, 39 after frame 17.
        #expect(unicast.map(\.frame) == [21, 30, 39])
    }

    @Test("multicast-decayed: QU queries and unicast answers are told apart")
    func quAndUnicast() throws {
        let r = try S.report("multicast-decayed.pcap")
        // tshark `dns.qry.qu==1`: 5 QU queries, each answered by unicast (frames 8 14 21 30 39).
        let qu = r.queries.filter(\.unicastResponse)
        #expect(qu.count == 5)
        #expect(qu.flatMap(\.answered).map(\.frame.frame) == [8, 14, 21, 30, 39])
        #expect(qu.flatMap(\.answered).allSatisfy { $0.unicast })
        #expect(r.queries.filter { !$0.unicastResponse }.flatMap(\.answered).allSatisfy { !$0.unicast })
    }

    @Test("an IPv6 client is told about MLD snooping instead")
    func decayedIPv6() throws {
        var r = try S.report("multicast-decayed.pcap")
        let v6 = try #require(IPAddress("2001:db8::10"))
        r.clients[0].address = v6
        for i in r.queries.indices { r.queries[i].client = v6 }
        let f = try #require(Diagnosis.diagnose(r).first { $0.code == .multicastDecayed })
        #expect(f.detail.contains("MLD snooping of ff02::fb") && f.advice.contains("MLD querier"))
    }

    @Test("decay needs a multicast answer, then ≥ 3 missed QM queries over ≥ 10 s and a unicast answer")
    func decayConditions() throws {
        let r = try S.report("multicast-decayed.pcap")
        let device = try #require(r.devices.first)
        let queries = r.queries
        #expect(Diagnosis.multicastDecay(of: device, in: queries) != nil)
        // Multicast until the end: no decay.
        var late = device
        late.lastMulticast = queries.last!.time
        #expect(Diagnosis.multicastDecay(of: late, in: queries) == nil)
        // No unicast answer after the last multicast: the device may be gone (DEVICE_EXPIRED's case).
        let noUnicast = queries.map { q in
            var q = q
            q.answered = q.answered.filter { !$0.unicast }
            return q
        }
        #expect(Diagnosis.multicastDecay(of: device, in: noUnicast) == nil)
        // Known-answer suppression is not a miss.
        let suppressed = queries.map { q in
            var q = q
            if !q.missed.isEmpty {
                q.suppressed = q.missed
                q.missed = []
            }
            return q
        }
        #expect(Diagnosis.multicastDecay(of: device, in: suppressed) == nil)
        // Missed QU queries do not count.
        let allQU = queries.map { q in
            var q = q
            if !q.missed.isEmpty { q.unicastResponse = true }
            return q
        }
        #expect(Diagnosis.multicastDecay(of: device, in: allQU) == nil)
        // Never answered by multicast: a responder that ignores QM, not a decay.
        let neverMulticast = queries.map { q in
            var q = q
            if q.answered.contains(where: { !$0.unicast }) {
                q.missed = [Self.cc]
                q.answered = []
            }
            return q
        }
        #expect(Diagnosis.multicastDecay(of: device, in: neverMulticast) == nil)
        // Missed queries within less than 10 s.
        let last = try #require(device.lastMulticast)
        let missed = queries.filter { $0.time > last && !$0.missed.isEmpty }
        let short = queries.filter { q in !missed.contains(q) || missed.prefix(3).contains(q) }
        let span = Double(missed[2].time.nanoseconds(since: missed[0].time)) / 1e9
        #expect(span < Diagnosis.decayedSpanSeconds)
        #expect(Diagnosis.multicastDecay(of: device, in: short) == nil)
    }

    @Test(
        "neither rule fires on the other bundled captures",
        arguments: [
            "healthy-ipv4.pcap", "multi-device.pcap", "goodbye.pcap", "any-sll2.pcap", "ipv6.pcap", "fragmented.pcap",
            "legacy-unicast.pcap", "dial-ssdp.pcap", "client-isolation.pcap", "own-queries-dropped.pcap",
            "reflector.pcap", "no-cast-queries.pcap", "no-mdns.pcap", "app-id-unanswered.pcap",
            "incomplete-resolution.pcap", "txt-missing-fn.pcap", "device-expired.pcap", "slow-response.pcap",
            "duplicate-name.pcap", "address-changed.pcap", "query-storm.pcap", "repeater.pcap",
        ])
    func quietElsewhere(name: String) throws {
        let codes = try S.report(name).findings.map(\.code)
        #expect(!codes.contains(.vlanSeparated) && !codes.contains(.multicastDecayed))
    }
}
