import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

// A client is a host: every renderer lists all its addresses, primary first, uncut.
@Suite("Hosts in the renderers")
struct HostRenderingTests {
    static let v6 = "2001:db8:ffff:ffff:ffff:ffff:ffff:fffe"

    /// The hostile report's client given an IPv4 primary and a full-length IPv6 address.
    static func report() -> AnalysisReport {
        var r = AnalysisRenderingTests.hostileReport()
        let primary = IPAddress("192.0.2.10")!
        r.clients[0].address = primary
        r.clients[0].addresses = [primary, IPAddress(Self.v6)!]
        return r
    }

    @Test("text: the other addresses in full below the client table")
    func text() {
        let text = AnalysisText.render(Self.report())
        #expect(text.contains("  192.0.2.10: addresses 192.0.2.10 \(Self.v6)\n"))
        let terminal = AnalysisText.render(Self.report(), width: .terminal(100))
        for line in terminal.split(separator: "\n") { #expect(line.count <= 100, "too wide: \(line)") }
    }

    @Test("Markdown: every address in the client cell")
    func markdown() {
        let md = AnalysisMarkdown.render(Self.report())
        #expect(md.contains("| 192.0.2.10 \(Self.v6) |"))
    }

    @Test("HTML: every address in the client cell")
    func html() {
        let html = HTMLReport.render(Self.report())
        #expect(html.contains("192.0.2.10</bdi><br /><bdi class=\"name\">\(Self.v6)</bdi>"))
    }

    @Test("JSON: address stays, addresses lists all, primary first")
    func json() throws {
        let doc = try #require(
            JSONSerialization.jsonObject(with: Data(AnalysisJSON.render(Self.report()).utf8)) as? [String: Any])
        let client = try #require((doc["clients"] as? [[String: Any]])?.first)
        #expect(client["address"] as? String == "192.0.2.10")
        #expect(client["addresses"] as? [String] == ["192.0.2.10", Self.v6])
    }

    @Test("a hand-built client without addresses is listed by its address")
    func handBuilt() throws {
        let r = AnalysisRenderingTests.hostileReport()
        #expect(r.clients[0].addresses.count == 1)
        var bare = r
        bare.clients[0].addresses = []
        #expect(bare.clients[0].allAddresses == [bare.clients[0].address])
        #expect(AnalysisJSON.render(bare).contains("\"addresses\": [\n        \"fe80::1c2a:3bff:fe4d:5e6f\""))
    }
}
