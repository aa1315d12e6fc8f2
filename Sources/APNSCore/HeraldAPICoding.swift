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

extension JSONEncoder {
    /// How Herald's HTTP APIs write JSON (the provider, the console, `herald why --json`): keys sorted, slashes as they
    /// are, times ISO 8601 with milliseconds.
    package static func heraldAPI() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.iso8601Milliseconds)
        }
        return encoder
    }
}

extension JSONDecoder {
    /// How Herald's HTTP APIs read JSON: times ISO 8601, with or without fractional seconds.
    package static func heraldAPI() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an ISO 8601 time such as 2026-11-21T07:00:00Z")
        }
        return decoder
    }
}
