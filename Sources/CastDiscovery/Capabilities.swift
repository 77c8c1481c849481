/// The `ca` capability bitmask of a Cast receiver.
///
/// Bit meanings from openscreen `receiver_info.h`, chromium `cast_device_capability.h` and
/// the iOS SDK's `GCKDevice.h` (see ../shared/DOMAIN.md §1.3). Other set bits are real but
/// undocumented; they are listed by number.
public struct CastCapabilities: Hashable, Sendable {
    /// The raw bitmask.
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Named bits.
    public static let names: [(bit: Int, name: String)] = [
        (0, "videoOut"), (1, "videoIn"), (2, "audioOut"), (3, "audioIn"), (4, "devMode"), (5, "multizoneGroup"),
        (11, "masterOrFixedVolume"), (12, "attenuationOrFixedVolume"),
    ]

    /// Whether bit `n` is set.
    public func has(_ bit: Int) -> Bool { bit >= 0 && bit < 63 && rawValue >> bit & 1 == 1 }

    /// The names of the set bits, then `bitN` for undocumented ones, in bit order.
    public var list: [String] {
        var out: [String] = []
        for bit in 0..<63 where has(bit) {
            out.append(Self.names.first { $0.bit == bit }?.name ?? "bit\(bit)")
        }
        return out
    }
}

/// What kind of receiver a device is.
public enum DeviceKind: String, Hashable, Sendable, CaseIterable {
    /// A multizone speaker group (`ca` bit 5, or model "Google Cast Group").
    case group
    /// Video output: TVs, dongles, Android TV (`ca` bit 0).
    case video
    /// Audio only: speakers (`ca` bit 2 without bit 0).
    case audio
    /// Not enough information.
    case unknown

    /// Classifies by capabilities and model.
    public init(capabilities: CastCapabilities?, model: String?) {
        if capabilities?.has(5) == true || model?.lowercased() == "google cast group" {
            self = .group
        } else if capabilities?.has(0) == true {
            self = .video
        } else if capabilities?.has(2) == true {
            self = .audio
        } else {
            self = .unknown
        }
    }
}
