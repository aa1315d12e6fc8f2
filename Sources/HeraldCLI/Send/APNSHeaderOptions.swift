import APNSCore
import ArgumentParser

/// The `apns-*` header flags of `herald send` and `herald payload lint`, declared once.
struct APNSHeaderOptions: ParsableArguments {
    @Option(name: .customLong("push-type"), help: "apns-push-type (inferred from the payload if omitted).")
    var pushType: String?

    @Option(help: "apns-topic: the app's bundle ID (for a .apns file, its Simulator Target Bundle by default).")
    var topic: String?

    @Option(help: "apns-priority: 10, 5 or 1.")
    var priority: String?

    @Option(help: "apns-expiration: UNIX seconds; 0 means deliver now or never.")
    var expiration: String?

    @Option(
        name: .customLong("collapse-id"),
        help: "apns-collapse-id (at most 64 bytes): a later notification with it replaces this one.")
    var collapseID: String?

    @Option(name: .customLong("apns-id"), help: "apns-id (a UUID; APNs makes one if omitted).")
    var apnsID: String?

    /// The values as given.
    var values: APNSHeaderValues {
        APNSHeaderValues(
            pushType: pushType, priority: priority, topic: topic, expiration: expiration, collapseID: collapseID,
            apnsID: apnsID)
    }
}
