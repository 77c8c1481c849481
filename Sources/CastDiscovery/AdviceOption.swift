// CastDiscovery: the Cast domain, pure (no I/O): what TXT keys and the `ca` bits mean, the
// streaming tracker (Tracker/: devices, clients, sessions, latency), the diagnosis rules
// (Diagnosis/), the Info.plist check, and the limits that bound all of it.

/// The command-line options, besides the limits (``Limit``), that findings' advice points
/// the user to. The domain keeps the option's name; ``flag`` spells it as the command line
/// does, so that text never writes an option by hand.
public enum AdviceOption: String, CaseIterable, Hashable, Sendable {
    /// `live --buffer-size`: libpcap's capture buffer.
    case bufferSize = "buffer-size"
    /// `live --filter`: the capture filter.
    case filter
    /// `check-plist --app-id`: a receiver app ID to check.
    case appID = "app-id"

    /// The option's name, `buffer-size`.
    public var name: String { rawValue }

    /// `--buffer-size`.
    public var flag: String { Wording.option(name) }
}
