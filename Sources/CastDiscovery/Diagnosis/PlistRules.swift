// The Info.plist cross-check (`analyze --plist`) as a rule over its input.
extension Diagnosis {
    /// PLIST_*: the Info.plist's own checks for the app IDs it declares, and PLIST_MISSING_APP_ID
    /// for each app ID the capture shows that it does not declare (``InfoPlist/crossCheck(_:)``).
    static func infoPlistCrossCheck(_ context: DiagnosisContext) -> [Finding] {
        context.inputs.plist?.crossCheck(context.report) ?? []
    }
}
