/// How a Live Activity appears (iOS 18): `standard` stays on the Lock Screen until it ends; `transient` appears
/// in the Dynamic Island and the Lock Screen only while the device is in use, and is removed when it is locked.
public enum ActivityStyle: String, Hashable, Sendable, Codable {
    case standard
    case transient
}
