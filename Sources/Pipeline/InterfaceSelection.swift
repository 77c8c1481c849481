import PcapCapture
import WireFormat

/// Which capture interface's link type a ``CaptureRun``'s decoder is set to: a pcapng file may
/// mix Ethernet, Linux cooked and other interfaces, and each record is decoded with its own
/// interface's link layer. Records of an interface whose link type castscope does not decode
/// are counted here instead.
public struct InterfaceSelection: Sendable {
    /// The interface the decoder is set to.
    var current = 0
    /// Whether that interface's link type can be decoded.
    var currentDecodes: Bool
    /// Records not decoded, by interface index: their link type is one castscope does not read.
    public private(set) var framesNotDecoded: [Int: Int] = [:]

    init(_ file: CaptureFile) {
        currentDecodes = file.linkType.isSupported
    }

    /// Sets the decoder to interface `index`'s link type when it is not the current one (the
    /// per-record cost is one comparison).
    /// - Returns: whether the record can be decoded; when not, it has been counted.
    @inline(__always)
    mutating func select(_ index: Int, _ file: CaptureFile, _ decoder: inout DiscoveryDecoder) -> Bool {
        if index != current { change(to: index, file, &decoder) }
        if currentDecodes { return true }
        framesNotDecoded[index, default: 0] += 1
        return false
    }

    mutating func change(to index: Int, _ file: CaptureFile, _ decoder: inout DiscoveryDecoder) {
        current = index
        let interfaces = file.interfaces
        // The reader hands out only records of interfaces it has described; anything else is
        // not decoded rather than decoded with a guessed link layer.
        guard index >= 0, index < interfaces.count, interfaces[index].linkType.isSupported else {
            currentDecodes = false
            return
        }
        currentDecodes = true
        decoder.linkType = interfaces[index].linkType
    }

    /// One warning per interface whose frames could not be decoded.
    func notes(_ interfaces: [FileInterface]) -> [String] {
        framesNotDecoded.keys.sorted().map { index in
            let n = framesNotDecoded[index]!
            let what =
                index < interfaces.count
                ? "interface \(index) (\(Self.describe(interfaces[index])))" : "interface \(index) (not described)"
            return "\(n == 1 ? "1 frame" : "\(n) frames") on \(what) cannot be decoded: castscope decodes "
                + "Ethernet, Linux cooked (SLL, SLL2), raw IP, BSD loopback, Apple PKTAP and 802.11/radiotap"
        }
    }

    /// `eth0, USB_LINUX_MMAPPED, DLT 220`: the interface's name (when it has one) and link type.
    static func describe(_ i: FileInterface) -> String {
        (i.name.map { "\($0), " } ?? "") + "\(i.linkTypeName), DLT \(i.linkType.rawValue)"
    }
}

extension ReadFault {
    /// The message without a leading `frame N at byte offset X: ` (the reader may say where in
    /// its message too; the reports say it once, from the fields).
    var problem: String {
        let location = "frame \(frame) at byte offset \(byteOffset): "
        return message.hasPrefix(location) ? String(message.dropFirst(location.count)) : message
    }
}
