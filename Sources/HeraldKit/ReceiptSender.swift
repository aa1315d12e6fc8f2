import Foundation

/// Sends queued receipts to the provider, oldest first, one at a time; when the network or the provider fails it
/// waits (1 s doubling to the configured longest wait, up to a fifth less at random) and tries again, and a new
/// receipt or ``Herald/sendReceipts()`` tries at once.
actor ReceiptSender {
    private let queue: ReceiptQueue
    private let connection: ProviderConnection
    private let longestDelay: Duration
    private let problems: ProblemLog
    private var draining: Task<Void, Never>?
    private var retry: Task<Void, Never>?
    private var failures = 0
    /// Receipts that could not be written to disk: sent from memory, after the queued ones.
    private var unsaved: [Receipt] = []

    init(queue: ReceiptQueue, connection: ProviderConnection, longestDelay: Duration, problems: ProblemLog) {
        self.queue = queue
        self.connection = connection
        self.longestDelay = longestDelay
        self.problems = problems
    }

    /// Keeps a receipt that could not be queued on disk, to be sent from memory.
    func keepUnsaved(_ receipt: Receipt) {
        unsaved.append(receipt)
    }

    /// Starts sending (or waits for the pass under way) and returns when nothing is left or the provider cannot be
    /// reached.
    ///
    /// - Returns: whether every receipt was sent.
    @discardableResult
    func drain() async -> Bool {
        // One pass at a time: callers that waited on the same pass all wake when it ends, so each looks again
        // (two passes at once sent receipts out of order and each saw the other's claimed file as left unsent).
        while let running = draining {
            await running.value
        }
        retry?.cancel()
        retry = nil
        // The pass clears itself, on this actor, before anyone waiting on it wakes.
        let pass = Task {
            await self.sendAll()
            self.draining = nil
        }
        draining = pass
        await pass.value
        let done = queue.names().isEmpty && unsaved.isEmpty
        if !done { scheduleRetry() }
        return done
    }

    private func sendAll() async {
        // One listing per round, not one per receipt; a round that sent something lists again for newer ones.
        var waits = 0
        listing: while true {
            let names = queue.names()
            var position = 0
            var sentAny = false
            while true {
                switch queue.claimNext(in: names, from: position) {
                case .claimed(let file, let body, let next):
                    position = next
                    switch await post(body) {
                    case .sent, .unsendable:
                        queue.remove(file)
                        sentAny = true
                    case .later:
                        queue.release(file)
                        return
                    }
                case .listAgain:
                    continue listing
                case .waiting:
                    // Another process (the app, an extension) is sending an older receipt: this one waits its turn,
                    // a moment at a time, and the pass ends (to be tried again) if that takes long.
                    guard waits < Self.waitsForOlder else { return }
                    waits += 1
                    try? await Task.sleep(for: Self.waitForOlder)
                    continue listing
                case .none:
                    if sentAny { continue listing }
                    break listing
                }
            }
        }
        while let receipt = unsaved.first {
            if await post(receipt.feedbackJSON) == .later { return }
            unsaved.removeFirst()
        }
    }

    /// How long a pass waits, a step at a time, for another process's older receipt before it ends.
    static let waitForOlder: Duration = .milliseconds(25)
    static let waitsForOlder = 200

    private enum Outcome { case sent, unsendable, later }

    private func post(_ body: Data) async -> Outcome {
        do {
            let answer = try await connection.send("POST", "feedback", json: body)
            failures = 0
            // 404: the push did not come through this provider (sent straight to APNs): nothing to record.
            return answer.status == 404 ? .unsendable : .sent
        } catch {
            if case .refused(let status, _) = error, status != 401 {
                // 400, 403, 413: the same receipt would be refused again.
                problems.add(error)
                return .unsendable
            }
            failures += 1
            if failures == 1 { problems.add(error) }
            return .later
        }
    }

    private func scheduleRetry() {
        guard retry == nil else { return }
        let steps = min(failures, 20)
        let longest = longestDelay.components.seconds
        let seconds = Double(min(Int64(1) << max(steps - 1, 0), max(longest, 1)))
        let delay = seconds * Double.random(in: 0.8...1.0)
        retry = Task {
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            await self.retryNow()
        }
    }

    private func retryNow() async {
        retry = nil
        await drain()
    }
}
