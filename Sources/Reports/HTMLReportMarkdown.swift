import CastDiscovery
import WireFormat

// The verdict and the findings, shared by `castscope report` (HTML and Markdown) and the
// Markdown of `castscope analyze`.

/// Evidence and subjects of findings, in words (not yet escaped).
enum ReportEvidence {
    /// A finding's frames grouped by capture, in order of first appearance, keeping the
    /// finding's order (the most telling first) within each capture.
    static func frameGroups(_ frames: [FrameRef]) -> [(capture: Int, frames: [FrameRef])] {
        var groups: [(capture: Int, frames: [FrameRef])] = []
        for f in frames {
            if let i = groups.firstIndex(where: { $0.capture == f.capture }) {
                groups[i].frames.append(f)
            } else {
                groups.append((f.capture, [f]))
            }
        }
        return groups
    }

    /// `#12`, or `#12 on eth0` when the frame's capture has several interfaces (the name
    /// escaped by `escape`).
    static func frameName(_ f: FrameRef, _ r: AnalysisReport, escape: (String) -> String) -> String {
        "#\(f.frame)" + (CaptureFileText.interface(of: f, r.captures).map { " on " + escape($0) } ?? "")
    }

    static func file(_ r: AnalysisReport, _ capture: Int) -> String {
        r.captures.indices.contains(capture) ? r.captures[capture].file : "capture \(capture + 1)"
    }

    /// A device id in words: its name and id, or the id alone when no device has it.
    static func device(_ r: AnalysisReport, _ id: String) -> String {
        guard let d = r.devices.first(where: { $0.id == id }) else { return id }
        let name = AnalysisTables.deviceName(d)
        return name == id ? id : "\(name) (\(id))"
    }

    /// A Wireshark display filter that shows the frames: `frame.number in {3 5 9}`.
    static func wiresharkFilter(_ frames: [Int]) -> String {
        frames.count == 1
            ? "frame.number == \(frames[0])" : "frame.number in {\(frames.map(String.init).joined(separator: " "))}"
    }

    /// One subject's evidence line: its detail, after its name when the detail does not
    /// already say it.
    static func line(_ e: FindingEvidence) -> String {
        e.subject.isEmpty || e.detail.contains(e.subject) ? e.detail : "\(e.subject): \(e.detail)"
    }

    static let severityTitles: [(Severity, String)] = [(.error, "Errors"), (.warning, "Warnings"), (.info, "Notes")]
}

/// The verdict and findings in Markdown.
public enum ReportMarkdown {
    /// The verdict line, then the findings by severity (nothing more when there are none).
    public static func findings(_ r: AnalysisReport) -> String {
        let verdict = Verdict(r)
        var out = "**Verdict: " + AnalysisMarkdown.escape(verdict.headline) + "**\n"
        guard !r.findings.isEmpty else { return out }
        out += "\n### Findings\n"
        for (severity, title) in ReportEvidence.severityTitles {
            let group = r.findings.filter { $0.severity == severity }
            if group.isEmpty { continue }
            out += "\n#### \(title) (\(group.count))\n\n"
            for f in group { out += finding(f, r) }
        }
        return out
    }

    static func finding(_ f: Finding, _ r: AnalysisReport) -> String {
        let e = AnalysisMarkdown.escape
        var out = "- `\(AnalysisMarkdown.code(f.code.rawValue))` **\(e(f.title))**\n"
        if !f.detail.isEmpty { out += "  - \(e(f.detail))\n" }
        if !f.advice.isEmpty { out += "  - What to do: \(e(f.advice))\n" }
        if f.evidence.count > 1 {
            // One item per subject: its own line and frames.
            out += "  - Evidence:\n"
            for ev in f.evidence {
                out += "    - \(e(ReportEvidence.line(ev)))"
                out += ev.frames.isEmpty ? "\n" : " (frames " + frames(ev.frames, r) + ")\n"
            }
        } else if !f.frames.isEmpty {
            out += "  - Frames: " + frames(f.frames, r) + "\n"
        }
        var subjects: [String] = []
        let s = f.subjects
        if !s.clients.isEmpty {
            subjects.append(Wording.noun(s.clients.count, "client") + " " + s.clients.map(e).joined(separator: ", "))
        }
        if !s.devices.isEmpty {
            subjects.append(
                Wording.noun(s.devices.count, "device") + " "
                    + s.devices.map { e(ReportEvidence.device(r, $0)) }.joined(separator: ", "))
        }
        if !s.appIDs.isEmpty {
            subjects.append(Wording.noun(s.appIDs.count, "app ID") + " " + s.appIDs.map(e).joined(separator: ", "))
        }
        if !subjects.isEmpty { out += "  - Concerns: " + subjects.joined(separator: "; ") + "\n" }
        return out
    }

    /// `#3, #5`, or `#3, #5 in `a.pcap`; #2 in `b.pcap`` when there are several captures.
    static func frames(_ frames: [FrameRef], _ r: AnalysisReport) -> String {
        let groups = ReportEvidence.frameGroups(frames)
        let several = r.captures.count > 1 || groups.count > 1
        return groups.map { g in
            let frames = g.frames.map { ReportEvidence.frameName($0, r, escape: AnalysisMarkdown.escape) }.joined(
                separator: ", ")
            return several ? "\(frames) in `\(AnalysisMarkdown.code(ReportEvidence.file(r, g.capture)))`" : frames
        }.joined(separator: "; ")
    }

    /// The Markdown of `castscope report`: the analysis, which includes the verdict and the
    /// findings.
    /// Captures are named by their file names only, as in the HTML (``ReportFileNames``).
    public static func render(_ r: AnalysisReport) -> String { AnalysisMarkdown.render(ReportFileNames.stripped(r)) }
}
