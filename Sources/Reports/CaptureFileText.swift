import CastDiscovery

/// What a capture file says about itself, in words, for the text, Markdown and HTML reports:
/// its interfaces when it has several, where it stopped being readable, what it dropped, its
/// section comment. A plain one-interface capture has none of it, so it reads as it always did.
enum CaptureFileText {
    /// The most interfaces listed by name; the rest are counted.
    static let maximumInterfacesListed = 4
    /// The longest section comment shown (the JSON has it whole, up to its own bound).
    static let maximumCommentShown = 120

    /// `EN10MB`, or for several interfaces `2 interfaces (eth0 EN10MB, any LINUX_SLL2)`.
    static func linkTypes(_ c: CaptureInfo) -> String {
        guard c.hasSeveralInterfaces else { return c.linkType }
        let listed = c.interfaces.prefix(maximumInterfacesListed).map { "\($0.shownName) \($0.linkType)" }
        let more = c.interfaces.count - listed.count
        return "\(c.interfaces.count) interfaces (" + listed.joined(separator: ", ")
            + (more > 0 ? ", \(more) more" : "") + ")"
    }

    /// The interface a frame was captured on, when its capture has several (`nil` otherwise:
    /// single-interface output stays as it was).
    static func interface(of f: FrameRef, _ captures: [CaptureInfo]) -> String? {
        guard f.capture >= 0, f.capture < captures.count, captures[f.capture].hasSeveralInterfaces else { return nil }
        return captures[f.capture].interfaceName(f.interface)
    }

    /// `unreadable from frame 120 (byte offset 53248)`, frames not decoded, packets dropped.
    static func notes(_ c: CaptureInfo) -> [String] {
        var notes: [String] = []
        if let fault = c.unreadableFrom {
            notes.append(
                "unreadable from frame \(fault.frame)" + (fault.byteOffset.map { " (byte offset \($0))" } ?? ""))
        }
        for i in c.interfaces where i.framesNotDecoded > 0 {
            notes.append(
                Wording.count(i.framesNotDecoded, "frame") + " on \(i.shownName) (\(i.linkType)) not decoded")
        }
        for i in c.interfaces {
            guard let dropped = i.dropped, dropped > 0 else { continue }
            notes.append(
                "\(dropped) dropped" + (c.hasSeveralInterfaces ? " on \(i.shownName)" : "") + " while capturing")
        }
        return notes
    }

    /// The first section comment, on one line and cut to ``maximumCommentShown`` characters,
    /// with how many more comments the file has.
    static func sectionComment(_ c: CaptureInfo) -> String? {
        let sections = c.comments.filter { $0.frame == nil }
        guard let first = sections.first else { return nil }
        var text = first.text.split(whereSeparator: \.isNewline).joined(separator: " ")
        if text.count > maximumCommentShown { text = String(text.prefix(maximumCommentShown - 1)) + "…" }
        let more = c.comments.count - 1
        return "\"\(text)\"" + (more > 0 ? " (and \(Wording.count(more, "more comment")))" : "")
    }
}
