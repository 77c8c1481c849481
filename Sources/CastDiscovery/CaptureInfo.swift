import WireFormat

/// One capture file's facts, filled in by whoever read it.
public struct CaptureInfo: Hashable, Sendable {
    /// The file as given on the command line.
    public var file: String
    /// libpcap's link-type name (`EN10MB`, `LINUX_SLL2`, `RAW`, `PKTAP`…).
    public var linkType: String
    /// Frames in the file.
    public var packets: Int
    /// Discovery packets (mDNS + SSDP).
    public var discoveryPackets: Int
    /// Discovery packets that could not be fully decoded.
    public var malformedPackets: Int
    /// mDNS packets (any service, not only Cast).
    public var mdnsPackets = 0
    /// SSDP packets.
    public var ssdpPackets = 0
    /// 802.11 data frames, and those of them that are encrypted (Wi-Fi captures only).
    public var wifiDataFrames = 0
    public var protectedWiFiFrames = 0
    /// Frames whose link or IP header could not be decoded (so it is unknown whether they were
    /// discovery traffic): a lying PKTAP length, an IPv4 header longer than the frame, say.
    public var undecodableFrames = 0
    /// Whether the file ends in the middle of a record.
    public var truncated: Bool
    /// Fragmented datagrams abandoned to stay within the reassembly limits.
    public var fragmentsDropped = 0
    /// First and last frame times (`nil` for an empty file).
    public var start: Timestamp?
    public var end: Timestamp?
    /// The capture interfaces the file describes, by index (pcapng: one per Interface
    /// Description Block, across sections; classic pcap and live capture: one).
    public var interfaces: [InterfaceInfo] = []
    /// Where the file stopped being readable (a damaged block, something the reader cannot
    /// read), when it did: every frame before it was analysed. `nil` for a file read to its end
    /// or only cut off (``truncated``).
    public var unreadableFrom: CaptureFault?
    /// For a cut-off file (``truncated``), the byte offset of the record that is cut, when the
    /// reader knows it.
    public var truncatedAtByte: Int64?
    /// Section and packet comments stored in the file (pcapng), at most
    /// ``maximumComments``, each at most ``maximumCommentLength`` characters.
    public var comments: [CaptureFileComment] = []

    /// The most comments kept per capture (the JSON and HTML show them all).
    public static let maximumComments = 100
    /// The longest comment kept, in characters; a longer one is cut and ends with `…`.
    public static let maximumCommentLength = 1000

    /// Whether the file has more than one interface (so evidence says which one a frame is on).
    public var hasSeveralInterfaces: Bool { interfaces.count > 1 }

    /// `eth0`, or `interface 1` when the file gives no name; `nil` for an unknown index.
    public func interfaceName(_ index: Int) -> String? {
        index >= 0 && index < interfaces.count ? interfaces[index].shownName : nil
    }

    public init(
        file: String, linkType: String, packets: Int = 0, discoveryPackets: Int = 0, malformedPackets: Int = 0,
        truncated: Bool = false, start: Timestamp? = nil, end: Timestamp? = nil
    ) {
        self.file = file
        self.linkType = linkType
        self.packets = packets
        self.discoveryPackets = discoveryPackets
        self.malformedPackets = malformedPackets
        self.truncated = truncated
        self.start = start
        self.end = end
    }
}

extension CaptureInfo {
    /// A capture's facts from its decoder's counters (files and live capture alike).
    public init(
        file: String, linkType: String, packets: Int, statistics s: DecodeStatistics, truncated: Bool = false,
        start: Timestamp?, end: Timestamp?
    ) {
        self.init(
            file: file, linkType: linkType, packets: packets, discoveryPackets: s.discoveryPackets,
            malformedPackets: s.malformedPackets, truncated: truncated, start: start, end: end)
        mdnsPackets = s.mdnsPackets
        ssdpPackets = s.ssdpPackets
        wifiDataFrames = s.wifiDataFrames
        protectedWiFiFrames = s.protectedWiFiFrames
        undecodableFrames = s.undecodableFrames
        fragmentsDropped = s.reassembly.evicted
    }
}

/// One capture interface of a file, as the report shows it.
public struct InterfaceInfo: Hashable, Sendable {
    /// Its number in the file (tshark's `frame.interface_id`).
    public var index: Int
    /// `if_name`, when the file gives one.
    public var name: String?
    /// libpcap's link-type name (`EN10MB`, `LINUX_SLL2`…).
    public var linkType: String
    /// The DLT number of the link type.
    public var linkTypeNumber: Int32
    /// The snapshot length (0: no limit).
    public var snapLength: Int
    /// Drop counts from the interface's last pcapng Interface Statistics Block, when it gave
    /// them: by the interface (`isb_ifdrop`) and by the operating system (`isb_osdrop`).
    public var droppedByInterface: UInt64?
    public var droppedByOS: UInt64?
    /// Frames of this interface that could not be decoded because castscope does not decode
    /// its link type (they are counted, not analysed).
    public var framesNotDecoded = 0

    public init(index: Int, name: String? = nil, linkType: String, linkTypeNumber: Int32 = 0, snapLength: Int) {
        self.index = index
        self.name = name
        self.linkType = linkType
        self.linkTypeNumber = linkTypeNumber
        self.snapLength = snapLength
    }

    /// How it is shown as evidence: its name if it has one, else `interface N`.
    public var shownName: String { name ?? "interface \(index)" }

    /// Packets dropped by the interface and the operating system together (`nil` when no
    /// statistics block gave a count).
    public var dropped: UInt64? {
        droppedByInterface == nil && droppedByOS == nil
            ? nil : (droppedByInterface ?? 0).addingReportingOverflow(droppedByOS ?? 0).partialValue
    }
}

/// Where a capture file stopped being readable.
public struct CaptureFault: Hashable, Sendable {
    /// The first frame that could not be read (one past the last frame analysed).
    public var frame: Int
    /// The byte offset (in the decompressed stream) of the block or record that could not be
    /// read; `nil` when the reader does not say.
    public var byteOffset: Int64?
    /// What is wrong there.
    public var message: String

    public init(frame: Int, byteOffset: Int64?, message: String) {
        self.frame = frame
        self.byteOffset = byteOffset
        self.message = message
    }
}

/// A comment stored in a capture file: a section's or a packet's.
public struct CaptureFileComment: Hashable, Sendable {
    /// The frame it belongs to; `nil` for a section comment.
    public var frame: Int?
    public var text: String

    public init(frame: Int?, text: String) {
        self.frame = frame
        self.text = text
    }
}
