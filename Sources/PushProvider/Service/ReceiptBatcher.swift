import ProviderStorage
import Synchronization

/// Group commit for receipts: the receipts that arrive while a batch is being written wait, and go together in the
/// next transaction (``ProviderStore/recordFeedback(_:)``), so that a storm of devices reporting costs the database a
/// transaction per batch, not per receipt. Nothing waits for a timer: a receipt that finds no batch being written is
/// written at once, alone.
///
/// A request that finds a writer free leads: it writes its own receipt with those waiting (up to ``batchLimit``),
/// answers them, and hands the lead to the oldest receipt still waiting (which writes the next batch in its own
/// request), so no request writes other requests' batches for longer than one.
final class ReceiptBatcher: Sendable {
    private let store: any ProviderStore
    /// How many batches may be written at once: one for SQLite (it has one writer), more for PostgreSQL.
    private let writers: Int
    private let state = Mutex(State())

    /// The most receipts one transaction records.
    static let batchLimit = 256

    private enum Turn {
        /// The receipt was recorded in another request's batch: its answer.
        case answered(Result<DeliveryContext?, ProviderError>)
        /// This request writes the next batch, its own receipt first.
        case lead
    }

    private struct Waiting {
        var receipt: FeedbackReceipt
        var continuation: CheckedContinuation<Turn, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        /// Batches being written (each by its leading request).
        var writing = 0
    }

    init(store: any ProviderStore, writers: Int) {
        self.store = store
        self.writers = max(1, writers)
    }

    /// Records `receipt` in the next batch: its delivery's context, `nil` when its claim does not hold.
    func record(_ receipt: FeedbackReceipt) async throws(ProviderError) -> DeliveryContext? {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            state.withLock { state in
                if state.writing < writers {
                    state.writing += 1
                    continuation.resume(returning: .lead)
                } else {
                    state.waiting.append(Waiting(receipt: receipt, continuation: continuation))
                }
            }
        }
        switch turn {
        case .answered(let answer): return try answer.get()
        case .lead: return try await lead(with: receipt).get()
        }
    }

    /// Writes `own` with the receipts waiting, answers them, and hands the lead on.
    private func lead(with own: FeedbackReceipt) async -> Result<DeliveryContext?, ProviderError> {
        let others = state.withLock { state in
            let taken = Array(state.waiting.prefix(Self.batchLimit - 1))
            state.waiting.removeFirst(taken.count)
            return taken
        }
        let answers = await write([own] + others.map(\.receipt))
        for (waiting, answer) in zip(others, answers.dropFirst()) {
            waiting.continuation.resume(returning: .answered(answer))
        }
        state.withLock { state in
            if state.waiting.isEmpty {
                state.writing -= 1
            } else {
                state.waiting.removeFirst().continuation.resume(returning: .lead)
            }
        }
        return answers[0]
    }

    /// Each receipt's answer. When a batch fails for something in its input (not the database), each receipt is
    /// written again alone, so that one receipt the database refuses fails only itself.
    private func write(_ receipts: [FeedbackReceipt]) async -> [Result<DeliveryContext?, ProviderError>] {
        do {
            return try await store.recordFeedback(receipts)
        } catch {
            guard receipts.count > 1, error.code != .storage else {
                return Array(repeating: .failure(error), count: receipts.count)
            }
            var answers: [Result<DeliveryContext?, ProviderError>] = []
            for receipt in receipts {
                do {
                    answers.append(contentsOf: try await store.recordFeedback([receipt]))
                } catch {
                    answers.append(.failure(error))
                }
            }
            return answers
        }
    }
}
