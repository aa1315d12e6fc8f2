// What a receipt adds to a Notification Service Extension: the time `didReceive(_:)` and `willHand(_:for:)` take
// before the extension can call its content handler (the receipt's file is written; the network is not waited for),
// beside the reference of the extension's own work without them (the content's mutable copy). Run by
// Benchmarks/heraldkit-receipts.py against a running provider; prints one JSON line.
//
//     HeraldKitBench --provider http://127.0.0.1:8080 --key pk_... [--receipts 2000] [--gap-ms 0]
import Foundation
import HeraldKit
import UserNotifications

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
guard let provider = option("--provider").flatMap(URL.init(string:)), let key = option("--key") else {
    print("usage: heraldkit-bench --provider URL --key pk_... [--receipts N]")
    exit(2)
}
let count = option("--receipts").flatMap(Int.init) ?? 2000
// The pause between two pushes: a phone's extension handles one push at a time, not thousands in a loop.
let gap = option("--gap-ms").flatMap(Int.init) ?? 0
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heraldkit-bench-\(UUID())")
var configuration = HeraldConfiguration(providerURL: provider, publishableKey: key, folder: folder)
configuration.receiptLimit = count * 2 + 1
let herald = try Herald(configuration: configuration)
try await herald.register(deviceToken: Data((0..<32).map { _ in UInt8.random(in: 0...255) }))

func request(_ index: Int) -> UNNotificationRequest {
    let content = UNMutableNotificationContent()
    content.title = "Order \(index)"
    content.body = "Your order is on its way"
    content.userInfo = ["herald-id": UUID().uuidString, "aps": ["alert": ["title": "Order"], "mutable-content": 1]]
    return UNNotificationRequest(identifier: UUID().uuidString, content: content, trigger: nil)
}

func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

let clock = ContinuousClock()
var withReceipts: [Double] = []
var reference: [Double] = []
for index in 0..<count {
    let push = request(index)
    let plain = clock.measure {
        _ = push.content.mutableCopy() as? UNMutableNotificationContent
    }
    let reported = clock.measure {
        herald.didReceive(push)
        if let content = push.content.mutableCopy() as? UNMutableNotificationContent {
            herald.willHand(content, for: push)
        }
    }
    reference.append(microseconds(plain))
    withReceipts.append(microseconds(reported))
    if gap > 0 { try await Task.sleep(for: .milliseconds(gap)) }
}
let waiting = herald.receiptQueue.waiting
let receipts = folder.appendingPathComponent("receipts")
let files = (try? FileManager.default.contentsOfDirectory(atPath: receipts.path))?.filter { $0.contains(".json") } ?? []
let bytes = files.compactMap {
    (try? FileManager.default.attributesOfItem(atPath: receipts.appendingPathComponent($0).path)[.size]) as? Int
}
let drained = await herald.sendReceipts()

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(fraction * Double(sorted.count)))]
}
let result: [String: Any] = [
    "receipts": count * 2, "gapMilliseconds": gap,
    "withReceipts_us": [
        "median": percentile(withReceipts, 0.5), "p99": percentile(withReceipts, 0.99), "max": withReceipts.max() ?? 0,
    ],
    "reference_us": ["median": percentile(reference, 0.5), "p99": percentile(reference, 0.99)],
    "queuedWhileMeasuring": waiting,
    "bytesPerQueuedReceipt": bytes.isEmpty ? 0 : bytes.reduce(0, +) / bytes.count,
    "allSentAfter": drained,
]
print(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))
