import WireFormat

/// One capture interface: a pcapng Interface Description Block, or the one implicit interface
/// of a classic pcap file.
///
/// Interfaces are numbered across the whole file in the order their blocks appear (the
/// numbering tshark shows as `frame.interface_id`), sections included.
public struct FileInterface: Hashable, Sendable {
    /// The interface's number in the file (0 for classic pcap).
    public var index: Int
    /// The section (0-based) whose Interface Description Block this is.
    public var section: Int
    /// Its link type (LINKTYPE_ values mapped to DLT_ values as libpcap does: 101 → 12).
    public var linkType: LinkType
    /// libpcap's name for the link type (`EN10MB`, `LINUX_SLL2`…).
    public var linkTypeName: String
    /// libpcap's description of the link type (`Ethernet`, `Linux cooked v2`…).
    public var linkTypeDescription: String
    /// The snapshot length (0: no limit).
    public var snapLength: Int
    /// `if_name` (`eth0`, `en0`), when the file gives one.
    public var name: String?
    /// `if_description`, when the file gives one.
    public var description: String?
    /// Packets the interface dropped (`isb_ifdrop` of its last Interface Statistics Block).
    public var droppedByInterface: UInt64?
    /// Packets the operating system dropped (`isb_osdrop`).
    public var droppedByOS: UInt64?
    /// Packets received, as its last Interface Statistics Block counts them (`isb_ifrecv`).
    public var received: UInt64?

    public init(
        index: Int, section: Int = 0, linkType: LinkType, linkTypeName: String, linkTypeDescription: String,
        snapLength: Int, name: String? = nil, description: String? = nil
    ) {
        self.index = index
        self.section = section
        self.linkType = linkType
        self.linkTypeName = linkTypeName
        self.linkTypeDescription = linkTypeDescription
        self.snapLength = snapLength
        self.name = name
        self.description = description
    }

    /// How the interface is shown as evidence: its name if it has one, else `interface N`.
    public var shownName: String { name ?? "interface \(index)" }
}

/// Where and why a capture file stopped being readable.
public struct ReadFault: Hashable, Sendable {
    /// The frame that could not be read (one past the last frame delivered).
    public var frame: Int
    /// The byte offset, in the (decompressed) capture stream, of the block or record that could
    /// not be read.
    public var byteOffset: Int64
    /// What is wrong there, in words for the user.
    public var message: String

    public init(frame: Int, byteOffset: Int64, message: String) {
        self.frame = frame
        self.byteOffset = byteOffset
        self.message = message
    }
}

/// A comment stored in the file: a section's (`shb_comment`) or a packet's (`opt_comment`).
public struct CaptureComment: Hashable, Sendable {
    /// The frame it belongs to, or `nil` for a section comment.
    public var frame: Int?
    /// The comment.
    public var text: String

    public init(frame: Int?, text: String) {
        self.frame = frame
        self.text = text
    }
}
