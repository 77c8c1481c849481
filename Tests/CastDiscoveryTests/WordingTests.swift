import Testing
import WireFormat

@testable import CastDiscovery

@Suite("Wording shared by findings and reports")
struct WordingTests {
    @Test("counts and nouns: regular and given plurals")
    func counts() {
        #expect(Wording.count(0, "error") == "0 errors")
        #expect(Wording.count(1, "error") == "1 error")
        #expect(Wording.count(2, "query", "queries") == "2 queries")
        #expect(Wording.count(1, "query", "queries") == "1 query")
        #expect(Wording.noun(1, "device") == "device")
        #expect(Wording.noun(3, "device") == "devices")
    }

    @Test("lists: none, one, two, several; capped beyond a maximum")
    func lists() {
        #expect(Wording.list([]) == "")
        #expect(Wording.list([], ifEmpty: "none") == "none")
        #expect(Wording.list(["a"]) == "a")
        #expect(Wording.list(["a", "b"]) == "a and b")
        #expect(Wording.list(["a", "b", "c"]) == "a, b and c")
        #expect(Wording.capped(["a", "b", "c"], maximum: 3) == "a, b, c")
        #expect(Wording.capped(["a", "b", "c", "d", "e"], maximum: 2) == "a, b and 3 more")
        #expect(Wording.cappedList(["a", "b", "c"], maximum: 3) == "a, b and c")
        #expect(Wording.cappedList(["a", "b", "c", "d"], maximum: 3) == "a, b, c and 1 more")
        #expect(Wording.cappedList([], maximum: 3, ifEmpty: "none") == "none")
    }

    @Test("decimals: half away from zero, no negative zero, finite and clamped")
    func decimals() {
        #expect(Wording.decimal(104.4, places: 0) == "104")
        #expect(Wording.decimal(104.5, places: 0) == "105")
        #expect(Wording.decimal(-0.04, places: 1) == "0.0")
        #expect(Wording.decimal(-0.05, places: 1) == "-0.1")
        #expect(Wording.decimal(12.345, places: 1) == "12.3")
        #expect(Wording.decimal(1.005, places: 3) == "1.005")
        #expect(Wording.decimal(0.25, places: 2) == "0.25")
        #expect(Wording.decimal(7, places: 2) == "7.00")
        #expect(Wording.decimal(.nan, places: 1) == "0")
        #expect(Wording.decimal(.infinity, places: 0) == "0")
        #expect(Wording.decimal(1e300, places: 0) == "900000000000000000")
    }

    @Test("durations for people")
    func durations() {
        #expect(Wording.duration(milliseconds: 0.94) == "0.9 ms")
        #expect(Wording.duration(milliseconds: 104.2) == "104 ms")
        #expect(Wording.duration(milliseconds: 1250) == "1.25 s")
        #expect(Wording.duration(milliseconds: 12_500) == "12.5 s")
    }

    @Test("clock times: UTC, truncated milliseconds, before 1970 too")
    func clocks() {
        #expect(Wording.clock(Timestamp(seconds: 0, nanoseconds: 0)) == "00:00:00.000")
        // 2026-11-30T23:40:01.123999999Z
        #expect(Wording.clock(Timestamp(seconds: 1_796_082_001, nanoseconds: 123_999_999)) == "23:40:01.123")
        #expect(Wording.clock(Timestamp(seconds: -1, nanoseconds: 5_000_000)) == "23:59:59.005")
        #expect(Wording.clock(Timestamp(seconds: 86_400 * 3 + 3_661, nanoseconds: 40_000_000)) == "01:01:01.040")
    }

    @Test("option names are spelled as the command line spells them")
    func options() {
        #expect(Wording.option("max-devices") == "--max-devices")
    }
}
