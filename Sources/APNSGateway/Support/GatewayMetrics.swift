import APNSCore
import HeraldSupport
import Prometheus
import Synchronization

/// The gateway's Prometheus metrics, served at `GET /admin/metrics` with the admin token: the pushes it answered by
/// status, APNs reason and push type; what it keeps (devices, stored pushes, devices connected, the journal's size)
/// and how long its journal writes take; the requests it refused by kind. Labels come from bounded sets only.
package final class GatewayMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// The counters of `pushes_total` used so far, by their labels.
    private let pushes = Mutex<[[String]: Counter]>([:])
    private let journalWrites: DurationHistogram

    package init() {
        journalWrites = registry.makeDurationHistogram(
            descriptor: Self.descriptor(
                "journal_write", unit: "seconds", "How long writing what changed to the journal took, per write."),
            buckets: [
                .microseconds(100), .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50),
                .milliseconds(100), .milliseconds(500), .seconds(1),
            ])
        for kind in GatewayRefusals.Kind.allCases { refused(kind, count: 0) }
        registry.makeGauge(
            descriptor: Self.descriptor("build_info", "Always 1; its label is the gateway's version."),
            labels: [("version", HeraldVersion.current)]
        ).set(Double(1))
    }

    private static func descriptor(_ name: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "gateway", metricName: name, unitName: unit, helpText: help)
    }

    /// Counts a push (or a broadcast, or a channel request) answered with `status` and `reason` (none for 200).
    func answered(status: Int, reason: APNSReason?, pushType: String?) {
        // 0: the connection is closed with GOAWAY (an injected fault), not a push answered.
        guard status != 0 else { return }
        let type = pushType.map { APNSPushType(rawValue: $0).isKnown ? $0 : "other" } ?? "none"
        let key = [
            status == 200 ? "accepted" : "rejected", reason.map { $0.isKnown ? $0.rawValue : "other" } ?? "", type,
        ]
        let counter = pushes.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.descriptor(
                    "pushes", unit: "total", "Requests to the push API answered, by result, APNs' reason and push type."
                ),
                labels: Array(zip(["result", "reason", "push_type"], key)))
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    /// Counts requests the gateway refused for who sent them or how.
    func refused(_ kind: GatewayRefusals.Kind, count: Int = 1) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "refusals", unit: "total", "Requests refused for who sent them or how, by kind."),
            labels: [("kind", kind.rawValue)]
        ).increment(by: Int64(count))
    }

    /// Records one write of the journal.
    func journalWritten(_ duration: Duration) {
        journalWrites.record(duration)
    }

    /// The metrics in Prometheus' text format with the gauges read now.
    func exposition(devices: Int, stored: Int, online: Int, connections: Int, journalBytes: Int?) -> String {
        let gauges: [(String, String, Int?)] = [
            ("devices", "Device tokens the gateway knows (registered).", devices),
            ("stored_pushes", "Pushes stored for devices that are offline (one per token at most).", stored),
            ("devices_connected", "Devices connected now through the courier.", online),
            ("connections", "Connections open now (providers, admin and couriers).", connections),
            ("journal_bytes", "The journal's size on disk; absent in the load-test mode (--no-journal).", journalBytes),
        ]
        for (name, help, value) in gauges {
            guard let value else { continue }
            registry.makeGauge(descriptor: Self.descriptor(name, help)).set(Double(value))
        }
        return registry.emitToString()
    }
}
