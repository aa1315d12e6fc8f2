package import Foundation

extension Date {
    /// ISO 8601 with milliseconds, the millisecond the time is in. Foundation's style truncates a time read back from
    /// such a text (…54.284 kept as 54.28399999…) to the millisecond before (a device's report then seemed dated before
    /// the event it reported), so a microsecond is added first. A page cursor made from this text bounds its query
    /// a microsecond lower (``iso8601CursorBound``), so the time's own row is never read again.
    package var iso8601Milliseconds: String {
        addingTimeInterval(Self.textSlack).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// For a time read from an ``iso8601Milliseconds`` text used as a cursor (`before`): the bound below which every
    /// row's own text is earlier than the cursor's.
    package var iso8601CursorBound: Date { addingTimeInterval(-Self.textSlack) }

    private static let textSlack: TimeInterval = 0.000_001

    /// A time as Herald's HTTP APIs read it: ISO 8601, with or without fractional seconds; `nil` for other text.
    package init?(apiTime text: String) {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            self = date
        } else if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) {
            self = date
        } else {
            return nil
        }
    }

    /// What an API error says of a time that is not one.
    package static let apiTimeExpected = "expected an ISO 8601 time such as 2026-11-21T07:00:00Z"
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
            if let date = Date(apiTime: try container.decode(String.self)) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Date.apiTimeExpected)
        }
        return decoder
    }
}
