import Foundation
/// The envelope type lives in `HeraldEnvelope` (which an iOS app's HeraldKit imports without APNSCore's JWT code):
/// re-exported, so `import APNSCore` is enough to seal one.
@_exported public import HeraldEnvelope

extension EndToEndEnvelope {
    /// The envelope as the payload carries it: `{"v": 1, "enc": base64, "ct": base64}`.
    public var json: JSONValue {
        [
            "v": .number(JSONNumber(Self.version)),
            "enc": .string(encapsulatedKey.base64EncodedString()),
            "ct": .string(ciphertext.base64EncodedString()),
        ]
    }
}
