// The link-type field of a capture file, read as libpcap reads it: the LINKTYPE_ value stored
// in files mapped to the DLT_ value CastScope (and BPF) work with, named by libpcap's own
// tables, and the largest record libpcap accepts for it.

import CLibpcap
import WireFormat

enum FileLinkType {
    /// The link type in a classic pcap header's 32-bit field: the low bits, without the FCS
    /// length libpcap keeps in the top bits (`LT_LINKTYPE`, pcap-common.h: bits 26–31 say
    /// whether and how many FCS bytes each frame carries, which decoding here does not use).
    static func pcapField(_ field: UInt32) -> UInt32 { field & 0x03FF_FFFF }

    /// libpcap's `linktype_to_dlt` (pcap-common.c) for Linux: LINKTYPE_ values from 104 up
    /// equal their DLT_ values except `LINKTYPE_ATM_CLIP`; below that a few were renumbered
    /// because the BSDs disagreed on them (101 `LINKTYPE_RAW` is `DLT_RAW`, 12).
    static func dlt(_ linktype: UInt32) -> LinkType {
        let value: UInt32
        switch linktype {
        case 100: value = 11  // LINKTYPE_ATM_RFC1483 → DLT_ATM_RFC1483
        case 101: value = 12  // LINKTYPE_RAW → DLT_RAW
        case 102: value = 15  // LINKTYPE_SLIP_BSDOS → DLT_SLIP_BSDOS
        case 103: value = 16  // LINKTYPE_PPP_BSDOS → DLT_PPP_BSDOS
        case 106: value = 19  // LINKTYPE_ATM_CLIP → DLT_ATM_CLIP
        default: value = linktype
        }
        return LinkType(rawValue: Int32(bitPattern: value))
    }

    /// libpcap's name for a DLT_ value (`EN10MB`), or `DLTn` when it has none.
    static func name(_ linkType: LinkType) -> String {
        pcap_datalink_val_to_name(linkType.rawValue).map { String(cString: $0) } ?? "DLT\(linkType.rawValue)"
    }

    /// libpcap's description of a DLT_ value (`Ethernet`), or `DLT n`.
    static func description(_ linkType: LinkType) -> String {
        pcap_datalink_val_to_description(linkType.rawValue).map { String(cString: $0) } ?? "DLT \(linkType.rawValue)"
    }

    /// The largest record of a link type (libpcap's `max_snaplen_for_dlt`, Wireshark's
    /// `wtap_max_snaplen_for_encap`): 256 KiB, more for D-Bus and a few others. A classic pcap
    /// whose header gives a snapshot length of 0 is bounded by this instead.
    static func maximumRecord(_ linkType: LinkType) -> Int {
        switch linkType.rawValue {
        case 231: return RecordBuffer.maximumBlock  // DLT_DBUS: 128 MiB in libpcap, our block limit here
        case 279: return 8 << 20  // DLT_EBHSCR
        case 249: return 1 << 20  // DLT_USBPCAP
        default: return 262_144
        }
    }
}
