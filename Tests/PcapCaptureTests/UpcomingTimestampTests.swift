import Foundation
import PcapCapture
import Testing
import WireFormat

// CaptureFile.upcomingTimestamp: the time of the next record, peeked in the buffer without
// reading, which `--merge` uses to leave files alone until the timeline reaches them; and a
// file whose buffer has been freed at its end answers as an ended file.

@Suite("The next record's time, without reading it")
struct UpcomingTimestampTests {
    typealias S = CaptureTestSupport
    typealias R = NativeReaderTests

    @Test(
        "Classic pcap, µs and ns, either byte order: the first record's time, then the next one's",
        arguments: [
            (UInt32(0xA1B2_C3D4), false), (0xA1B2_3C4D, true), (0xA1B2_CD34, false),
        ])
    func classic(magic: UInt32, bigEndian: Bool) throws {
        let bytes = R.pcap(
            magic: magic, bigEndian: bigEndian,
            records: [(1_700_000_000, 250, R.frameA, nil), (1_700_000_009, 5, R.frameC, nil)])
        try R.open(bytes) { file in
            let scale: Int64 = magic == 0xA1B2_3C4D ? 1 : 1000
            #expect(file.upcomingTimestamp == Timestamp(seconds: 1_700_000_000, nanoseconds: 250 * scale))
            #expect(file.recordsRead == 0)  // nothing was read to find it
            #expect(file.readRecord { _, _, _ in })
            #expect(file.upcomingTimestamp == Timestamp(seconds: 1_700_000_009, nanoseconds: 5 * scale))
            #expect(file.readRecord { _, _, _ in })
            #expect(file.upcomingTimestamp == nil)
            #expect(!file.readRecord { _, _, _ in })
            // The buffer is gone once the file has ended: asking again is still an end.
            #expect(file.upcomingTimestamp == nil)
            #expect(!file.readRecord { _, _, _ in })
            #expect(file.end == .endOfFile && file.recordsRead == 2)
        }
    }

    @Test("pcapng: an Enhanced or obsolete Packet Block's time in its interface's resolution and offset")
    func pcapng() throws {
        for obsolete in [false, true] {
            var b = PcapngBuilder(bigEndian: obsolete)
            b.sectionHeader()
            // if_tsresol 10^-3, if_tsoffset 100 s.
            b.interface(linkType: 1, [b.resolution(3), b.offset(100)])
            if obsolete {
                b.obsoletePacket(interface: 0, drops: 0, timestamp: 1_234_567, R.frameA)
            } else {
                b.enhancedPacket(interface: 0, timestamp: 1_234_567, R.frameA)
            }
            try R.open(b.bytes) { file in
                let expected = Timestamp(seconds: 1_334, nanoseconds: 567_000_000)
                #expect(file.upcomingTimestamp == expected)
                var read: Timestamp?
                #expect(file.readRecord { _, header, _ in read = header.timestamp })
                #expect(read == expected)
                #expect(file.upcomingTimestamp == nil)
            }
        }
    }

    @Test("Not known: a Simple Packet Block (no time), a block before the first packet, a record limit reached")
    func unknown() throws {
        var spb = PcapngBuilder()
        spb.sectionHeader()
        spb.interface(linkType: 1)
        spb.simplePacket(originalLength: R.frameA.count, R.frameA)
        try R.open(spb.bytes) { file in #expect(file.upcomingTimestamp == nil) }

        var stats = PcapngBuilder()
        stats.sectionHeader()
        stats.interface(linkType: 1)
        stats.interface(linkType: 1)
        stats.enhancedPacket(interface: 1, timestamp: 5, R.frameA)
        try R.open(stats.bytes) { file in
            // Opening stops once an interface is described; the second one is still ahead.
            #expect(file.upcomingTimestamp == nil)
            #expect(file.readRecord { _, _, _ in })
        }

        try R.open(R.pcap(records: [(1, 0, R.frameA, nil), (2, 0, R.frameA, nil)])) { file in
            file.recordLimit = 1
            #expect(file.readRecord { _, _, _ in })
            #expect(file.upcomingTimestamp == nil)
            #expect(!file.readRecord { _, _, _ in })
        }
    }
}
