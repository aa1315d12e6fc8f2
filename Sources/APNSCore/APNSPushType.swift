/// The `apns-push-type` header: what kind of notification a request carries, with the topic suffix and size limit
/// APNs applies to each kind.
///
/// An open set: a value APNs adds later round-trips unchanged, though ``isKnown`` is `false` for it and APNs (or the
/// local gateway) answers `400 InvalidPushType`.
public struct APNSPushType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A notification that shows an alert, plays a sound or badges the icon. Topic: the bundle ID.
    public static let alert = APNSPushType(rawValue: "alert")
    /// A silent notification that wakes the app (`content-available: 1` only). Topic: the bundle ID; priority 5.
    public static let background = APNSPushType(rawValue: "background")
    /// A watchOS complication update. Topic: bundle ID + `.complication`.
    public static let complication = APNSPushType(rawValue: "complication")
    /// A WidgetKit controls update. Topic: bundle ID + `.push-type.controls`.
    public static let controls = APNSPushType(rawValue: "controls")
    /// A File Provider change signal. Topic: bundle ID + `.pushkit.fileprovider`.
    public static let fileprovider = APNSPushType(rawValue: "fileprovider")
    /// A Live Activity start, update or end. Topic: bundle ID + `.push-type.liveactivity`.
    public static let liveactivity = APNSPushType(rawValue: "liveactivity")
    /// A location query for a Location Push Service Extension (token authentication only). Topic: bundle ID +
    /// `.location-query`.
    public static let location = APNSPushType(rawValue: "location")
    /// A mobile device management wake-up. Topic: the UID in the MDM push certificate's subject.
    public static let mdm = APNSPushType(rawValue: "mdm")
    /// A Push to Talk update. Topic: bundle ID + `.voip-ptt`.
    public static let pushtotalk = APNSPushType(rawValue: "pushtotalk")
    /// A VoIP call through PushKit; payloads up to 5120 bytes. Topic: bundle ID + `.voip`.
    public static let voip = APNSPushType(rawValue: "voip")
    /// A WidgetKit widget reload. Topic: bundle ID + `.push-type.widgets`.
    public static let widgets = APNSPushType(rawValue: "widgets")

    /// Every push type Apple documents.
    public static let allKnown: [APNSPushType] = [
        .alert, .background, .complication, .controls, .fileprovider, .liveactivity, .location, .mdm, .pushtotalk,
        .voip, .widgets,
    ]

    /// Whether Apple documents this push type.
    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// The suffix `apns-topic` must carry after the bundle ID, `""` where the topic is the bundle ID itself, or `nil`
    /// where the topic is not derived from a bundle ID (`mdm`) or the push type is unknown.
    public var topicSuffix: String? {
        switch self {
        case .alert, .background: ""
        case .complication: ".complication"
        case .controls: ".push-type.controls"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .voip: ".voip"
        case .widgets: ".push-type.widgets"
        default: nil
        }
    }

    /// The largest payload APNs accepts for this push type, in bytes: 5120 for VoIP, 4096 for every other type.
    public var maximumPayloadSize: Int { self == .voip ? 5120 : 4096 }

    /// Whether APNs accepts this push type only on token-authenticated (JWT) connections.
    public var requiresTokenAuthentication: Bool { self == .location }

    /// Whether the payload's shape is the app's own (PushKit and system push types), so `aps` rules do not apply.
    public var hasFreeFormPayload: Bool { [.voip, .pushtotalk, .fileprovider, .mdm].contains(self) }

    /// The topic for this push type of the app with `bundleID`, or `nil` where the topic is not derived from a bundle
    /// ID.
    ///
    /// - Parameter bundleID: the app's bundle ID, for example `com.example.app`.
    /// - Returns: for example `com.example.app.voip` for ``voip``.
    public func topic(forBundleID bundleID: String) -> String? {
        topicSuffix.map { bundleID + $0 }
    }

    /// The bundle ID a topic names for this push type: the topic without this type's suffix, or `nil` when the topic
    /// lacks the suffix this type requires.
    public func bundleID(fromTopic topic: String) -> String? {
        guard let suffix = topicSuffix else { return nil }
        guard !suffix.isEmpty else { return topic }
        guard topic.hasSuffix(suffix), topic.count > suffix.count else { return nil }
        return String(topic.dropLast(suffix.count))
    }

    public var description: String { rawValue }
}
