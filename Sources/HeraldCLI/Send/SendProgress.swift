import Foundation
import Synchronization

/// The progress line on a terminal while a token file is sent: counts and the current rate, redrawn four times a
/// second on standard error.
final class SendProgress: Sendable {
    private let summary: SendSummary
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(summary: SendSummary) {
        self.summary = summary
    }

    func start() {
        let summary = summary
        let running = Task {
            var last = (sent: 0, time: ContinuousClock.now)
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                let counts = summary.snapshot
                let now = ContinuousClock.now
                let elapsed = now - last.time
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let rate = Double(counts.sent - last.sent) / max(seconds, 1e-9)
                last = (counts.sent, now)
                let rejected = counts.rejected.values.reduce(0, +)
                let line = String(
                    format: "\r\u{1B}[2K%d sent, %d accepted, %d rejected, %d retried, %.0f/s", counts.sent,
                    counts.accepted, rejected, counts.retried, rate)
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        task.withLock { $0 = running }
    }

    func stop() {
        task.withLock { $0?.cancel() }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
