public import Foundation

/// A `.apns` file as Xcode's simulator reads it (`xcrun simctl push` or a file dropped on the simulator): a payload
/// with the target app's bundle ID under the top-level key `Simulator Target Bundle`.
public struct APNSSimulatorFile: Hashable, Sendable {
    /// The top-level key naming the target app.
    public static let targetBundleKey = "Simulator Target Bundle"

    /// The app the file targets, when the file names one.
    public var targetBundleID: String?
    /// The payload to deliver: the file without ``targetBundleKey``.
    public var payload: APNSPayload

    /// Reads a `.apns` file.
    ///
    /// - Throws: ``APNSPayloadError`` when the file is not a JSON object, or `Simulator Target Bundle` is not a
    ///   string.
    public init(data: Data) throws(APNSPayloadError) {
        var payload = try APNSPayload(data: data)
        switch payload[Self.targetBundleKey] {
        case nil:
            targetBundleID = nil
        case .string(let bundleID):
            targetBundleID = bundleID
        case let other?:
            throw APNSPayloadError(
                .invalidSimulatorFile,
                "'\(Self.targetBundleKey)' is a \(other.typeName); it must be the app's bundle ID as a string"
            )
        }
        payload[Self.targetBundleKey] = nil
        self.payload = payload
    }
}
