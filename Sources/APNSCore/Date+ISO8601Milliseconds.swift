package import Foundation

extension Date {
    /// ISO 8601 with milliseconds, rounded to the nearest one. Foundation's style truncates, and a time read back
    /// from its text (…54.284 stored as 54.28399999…) came out a millisecond early: a device's report then seemed
    /// dated before the event it reported.
    package var iso8601Milliseconds: String {
        let rounded = Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
        return rounded.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
