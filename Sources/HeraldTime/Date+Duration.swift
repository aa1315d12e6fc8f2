public import Foundation

extension Date {
    /// This date moved on by `duration` (back, when it is negative).
    public func adding(_ duration: Duration) -> Date {
        addingTimeInterval(
            TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18)
    }
}
