import Foundation
import HeraldKit

// A second process running HeraldKit on a shared folder, as an app's service extension runs beside the app, for the
// tests about two processes (HeraldKitProcessesTests):
//
//     HeraldKitProbe FOLDER PROVIDER_URL PUBLISHABLE_KEY TOKEN EVENT [APNS_ID ...]
//
// queues one EVENT receipt (`delivered`, `displayed`) for each APNS_ID, in order, creates the empty file
// `FOLDER.queued` (beside the folder: a test waits on it to know every receipt is queued, since the first may be sent
// before the last is queued), sends what the folder holds, and prints each problem on a line as it happens, then
// `waiting W dropped D corrupt C`.

let arguments = CommandLine.arguments
guard arguments.count >= 6, let url = URL(string: arguments[2]), let event = Receipt.Event(rawValue: arguments[5])
else {
    FileHandle.standardError.write(Data("usage: HeraldKitProbe FOLDER URL KEY TOKEN EVENT [APNS_ID ...]\n".utf8))
    exit(2)
}
var configuration = HeraldConfiguration(
    providerURL: url, publishableKey: arguments[3], folder: URL(fileURLWithPath: arguments[1]))
configuration.longestRetryDelay = .seconds(1)
// Each problem as it happens (`problems` keeps only the last 50).
let herald = try Herald(configuration: configuration, onProblem: { print("problem: \($0)") })
for apnsID in arguments.dropFirst(6) {
    herald.report(Receipt(event, apnsID: apnsID, token: arguments[4]))
}
_ = FileManager.default.createFile(atPath: arguments[1] + ".queued", contents: nil)
_ = await herald.sendReceipts()
let queue = herald.receiptQueue
print("waiting \(queue.waiting) dropped \(queue.dropped) corrupt \(queue.corrupt)")
