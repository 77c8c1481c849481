/// The label column of the SVG charts: as wide as its longest label, so that names are not
/// cut; only a label too long for any sensible column (beyond ``maximumGutter``) is shortened,
/// and then its full text is in the label's `<title>` tooltip.
enum HTMLChartLabels {
    /// The width allowed for one character of a 12 px label (the page cannot measure text: it
    /// runs no script). DejaVu Sans, the widest common fallback font, takes 7.6 px for a digit
    /// and less for most letters; names of capitals only may still need their tooltip.
    static let characterWidth = 8.0
    /// Space between a label's end and the plot.
    static let margin = 14.0
    /// The widest label column; the plot keeps the rest of the chart.
    static let maximumGutter = 520.0

    /// The label column's width for `labels`: at least `minimum`, at most ``maximumGutter``.
    static func gutter(_ labels: [String], minimum: Double) -> Double {
        let longest = Double(labels.map(\.count).max() ?? 0)
        return Swift.min(Swift.max(minimum, longest * characterWidth + margin), maximumGutter)
    }

    /// The label's text, escaped: whole when it fits in `gutter`, else shortened with `…`
    /// (the caller puts the full text in a `<title>`).
    static func text(_ label: String, gutter: Double) -> String {
        HTMLText.clipped(label, Swift.max(Int((gutter - margin) / characterWidth), 8))
    }
}
