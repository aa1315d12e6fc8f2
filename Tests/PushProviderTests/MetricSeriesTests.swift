import Foundation
import HeraldSupport
import Testing

@testable import PushProvider

@Suite("The metrics: declared once, exported as declared, documented as exported")
struct MetricSeriesTests {
    static let productionGuide = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/production.md")

    /// The `# TYPE` lines of an exposition: each family's name and kind.
    func families(_ exposition: String) -> [String: String] {
        var families: [String: String] = [:]
        for line in exposition.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            families[String(parts[2])] = String(parts[3])
        }
        return families
    }

    @Test("every series is declared once, by a name of Prometheus' conventions, and docs/production.md lists each")
    func declaredAndDocumented() throws {
        let names = MetricSeries.all.map(\.fullName)
        #expect(Set(names).count == names.count)
        for series in MetricSeries.all {
            #expect(series.fullName.hasPrefix("herald_provider_"))
            #expect((series.kind == .counter) == series.fullName.hasSuffix("_total"), "\(series.fullName)")
        }
        let guide = try String(contentsOf: Self.productionGuide, encoding: .utf8)
        let listed = Set(
            guide.split(separator: "`").filter { $0.hasPrefix("herald_provider_") && !$0.contains("{") }.map(
                String.init))
        #expect(listed == Set(names))
    }

    @Test("what /metrics exports is in the table, with the table's kind")
    func exportedAsDeclared() {
        let metrics = ProviderMetrics()
        metrics.pruned("deliveries", count: 3)
        metrics.webhookAttempt(result: "sent")
        metrics.publicRefused(limit: "registrations per address")
        metrics.refused(status: 401)
        metrics.failed("record")
        let rendered = metrics.render()
        #expect(rendered.contains("herald_provider_build_info{version=\"\(HeraldVersion.current)\"} 1"), "\(rendered)")
        let exported = families(rendered)
        let declared = Dictionary(uniqueKeysWithValues: MetricSeries.all.map { ($0.fullName, $0.kind.rawValue) })
        #expect(!exported.isEmpty)
        for (name, kind) in exported {
            #expect(declared[name] == kind, "\(name) is exported as a \(kind) but not declared so in MetricSeries")
        }
    }
}
