public import Foundation

extension CGRect {
    /// The rectangle as the dictionary Core Graphics makes (`X`, `Y`, `Width`, `Height`), as iOS code passes
    /// `UNNotificationAttachmentOptionsThumbnailClippingRectKey`.
    public var dictionaryRepresentation: NSDictionary {
        [
            "X": NSNumber(value: Double(origin.x)), "Y": NSNumber(value: Double(origin.y)),
            "Width": NSNumber(value: Double(size.width)), "Height": NSNumber(value: Double(size.height)),
        ]
    }
}
