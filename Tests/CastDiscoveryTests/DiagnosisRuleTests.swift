import Foundation
import Testing

@testable import CastDiscovery

private typealias S = DiagnosisSupport

@Suite("Diagnosis rules")
struct DiagnosisRuleTests {
    @Test("LIMIT_REACHED names each limit's option beside each of its counters", arguments: Limit.allCases)
    func limitOptions(limit: Limit) throws {
        #expect(!limit.drops.isEmpty)
        for counter in limit.drops {
            var drops = LimitDrops()
            drops[keyPath: counter] = 7
            let f = try #require(Diagnosis.limitReached(drops, capacity: TrackerCapacity(), notListed: [:]))
            #expect(f.code == .limitReached && f.severity == .warning)
            #expect(f.detail.contains("7 ") && f.detail.contains("(\(limit.flag))"), "\(f.detail)")
        }
    }

    @Test("LIMIT_REACHED lists every counter, in the table's order, with the text it always had")
    func limitText() throws {
        var drops = LimitDrops()
        drops.devices = 1
        drops.devicesEvicted = 2
        drops.hosts = 3
        drops.queries = 4
        drops.pairs = 5
        drops.findings = 6
        var capacity = TrackerCapacity()
        capacity.devices = 100
        let f = try #require(
            Diagnosis.limitReached(drops, capacity: capacity, notListed: [.slowResponse: 2, .deviceLeft: 4]))
        #expect(
            f.detail
                == "The capture holds more than castscope keeps: 1 new device beyond 100 (--max-devices); "
                + "2 incomplete devices (never seen with SRV or TXT) forgotten to make room; 3 address records "
                + "of hosts beyond 10000; 4 queries beyond 20000 in the per-query table (--max-rows); 5 client × "
                + "device updates beyond 200000 pairs (--max-pairs): those responses and session progress were "
                + "not counted; 6 subjects beyond 20 of one finding not listed (4 DEVICE_LEFT, 2 SLOW_RESPONSE). "
                + "Everything else was analysed; devices, clients and latencies may be missing from the report.")
        #expect(Diagnosis.limitReached(LimitDrops(), capacity: capacity, notListed: [:]) == nil)
        // Every counter of LimitDrops but `findings` (the diagnosis's own) has a row.
        #expect(Diagnosis.dropCounters.count == 14)
    }

    @Test("PACKETS_DROPPED: only with drops, last among the warnings, the options from the table")
    func packetsDropped() throws {
        let r = try S.report("slow-response.pcap")
        let none = Diagnosis.diagnose(r, inputs: DiagnosisInputs(packetsDropped: (kernel: 0, interface: 0)))
        #expect(none == Diagnosis.diagnose(r))
        let findings = Diagnosis.diagnose(r, inputs: DiagnosisInputs(packetsDropped: (kernel: 3, interface: 2)))
        let f = try #require(findings.first { $0.code == .packetsDropped })
        #expect(f.title == "5 packets were dropped during the capture")
        #expect(f.detail.hasPrefix("The kernel dropped 3 and the interface 2 packets (pcap_stats)"))
        #expect(f.advice.contains("--buffer-size") && f.advice.contains("--filter"))
        let warnings = findings.filter { $0.severity == .warning }
        #expect(warnings.count > 1 && warnings.last == f)
        #expect(findings.filter { $0 != f } == Diagnosis.diagnose(r))
    }

    @Test("the Info.plist cross-check as a rule: the same findings, in the order merging them gave")
    func plistRule() throws {
        let r = try S.report("multi-device.pcap")
        let plist = InfoPlist(
            data: Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>NSBonjourServices</key><array>
                <string>_googlecast._tcp</string></array></dict></plist>
                """.utf8))
        let findings = Diagnosis.diagnose(r, inputs: DiagnosisInputs(plist: plist))
        // The same findings, each given its one evidence entry by the merge step.
        let bare = findings.map { f in
            var f = f
            f.evidence = []
            return f
        }
        let expected = InfoPlist.merged(Diagnosis.diagnose(r), plist.crossCheck(r)).map { f in
            var f = f
            f.evidence = []
            return f
        }
        #expect(bare == expected)
        #expect(findings.contains { $0.code == .plistMissingAppID })
        #expect(findings.contains { $0.code == .plistMissingUsageDescription })
    }

    @Test("a group of rules runs all its rules for one client, then for the next")
    func perClientOrder() throws {
        let r = try S.report("client-isolation.pcap")
        #expect(r.clients.count == 2)
        func tagged(_ tag: String) -> (DiagnosisContext, ClientContext) -> [Finding] {
            { _, c in
                [Finding(code: FindingCode(rawValue: tag), severity: .info, title: c.address, detail: "", advice: "")]
            }
        }
        let rule = DiagnosisRule.eachClient([tagged("A"), tagged("B")])
        let found = rule.findings(DiagnosisContext(r, inputs: DiagnosisInputs()))
        let a = r.clients[0].address.description
        let b = r.clients[1].address.description
        #expect(found.map { "\($0.code) \($0.title)" } == ["A \(a)", "B \(a)", "A \(b)", "B \(b)"])
    }

    @Test("the per-device group runs for mDNS devices only, in report order")
    func perDeviceOrder() throws {
        let r = try S.report("multi-device.pcap")
        let ids = r.devices.filter { $0.via.contains("mdns") }.map(\.id)
        #expect(ids.count >= 2)
        let rule = DiagnosisRule.eachMDNSDevice([
            { _, d in Finding(code: FindingCode(rawValue: "A"), severity: .info, title: d.id, detail: "", advice: "") }
        ])
        #expect(rule.findings(DiagnosisContext(r, inputs: DiagnosisInputs())).map(\.title) == ids)
    }
}
