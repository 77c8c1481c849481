import CastDiscovery

extension AnalysisJSON {
    /// What a capture file says about itself beyond its link type, each key only when there is
    /// something to say (so a plain one-interface pcap reads as it always did): its interfaces,
    /// where it became unreadable or was cut, its comments.
    static func captureFileFields(_ c: CaptureInfo, _ w: inout JSONWriter) {
        if describesInterfaces(c) {
            w.beginArray("interfaces")
            for i in c.interfaces {
                w.beginObject()
                w.int(i.index, "index")
                w.string(i.name, "name")
                w.string(i.linkType, "linkType")
                w.int(i.snapLength, "snapLength")
                if let n = i.droppedByInterface { w.int(n, "droppedByInterface") }
                if let n = i.droppedByOS { w.int(n, "droppedByOS") }
                if i.framesNotDecoded > 0 { w.int(i.framesNotDecoded, "framesNotDecoded") }
                w.endObject()
            }
            w.endArray()
        }
        if let fault = c.unreadableFrom {
            w.beginObject("unreadableFrom")
            w.int(fault.frame, "frame")
            w.int(fault.byteOffset, "byteOffset")
            w.string(fault.message, "message")
            w.endObject()
        }
        if let offset = c.truncatedAtByte { w.int(offset, "truncatedAtByte") }
        if !c.comments.isEmpty {
            w.beginArray("comments")
            for comment in c.comments {
                w.beginObject()
                w.int(comment.frame, "frame")
                w.string(comment.text, "text")
                w.endObject()
            }
            w.endArray()
        }
    }

    /// Whether the interfaces say more than `linkType` does: several of them, a name, drop
    /// counts or undecoded frames.
    static func describesInterfaces(_ c: CaptureInfo) -> Bool {
        c.interfaces.count > 1
            || c.interfaces.contains {
                $0.name != nil || $0.droppedByInterface != nil || $0.droppedByOS != nil || $0.framesNotDecoded > 0
            }
    }
}
