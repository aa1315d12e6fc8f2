package import APNSCore
package import Foundation

/// The local APNs' delivery log of one push (`GET /admin/deliveries?apns-id=`): what happened to it between APNs'
/// answer and the device, which Apple's APNs never tells a provider.
package struct GatewayLogEntry: Sendable, Hashable {
    /// One step: `received`, `rejected`, `stored`, `forwarded`, `delivered`, `replaced`, `expired` or `discarded`.
    package struct Event: Sendable, Hashable {
        package var event: String
        package var time: Date?
        package var detail: String?
        /// For `replaced`: the `apns-id` of the push that replaced it.
        package var replacedBy: String?
    }

    package var events: [Event]

    /// Reads the gateway's JSON answer; `nil` when it is not one.
    package init?(json: JSONValue) {
        guard let list = json["events"]?.array else { return nil }
        events = list.compactMap { event in
            guard let name = event["event"]?.string else { return nil }
            return Event(
                event: name, time: Self.time(event["time"]), detail: event["detail"]?.string,
                replacedBy: event["replaced-by"]?.string)
        }
    }

    /// The admin API's times are milliseconds since 1970; a text time (ISO 8601) is read too.
    private static func time(_ value: JSONValue?) -> Date? {
        if let milliseconds = value?.number?.doubleValue, milliseconds.isFinite, abs(milliseconds) < 1e15 {
            return Date(timeIntervalSince1970: milliseconds / 1000)
        }
        return value?.string.flatMap {
            try? Date($0, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
    }

    package init(events: [Event]) {
        self.events = events
    }

    /// The step that decides what became of it: the last one.
    var last: Event? { events.last }
}
