/// The diagnosis engine: turns an analysis into findings.
public enum Diagnosis {
    /// Every finding for the report, errors first.
    public static func diagnose(_ report: AnalysisReport) -> [Finding] {
        []
    }
}
