/// Keeps a connection's answers in the order its requests were handed over, though some batches are decided on the
/// worker's loop and later ones on the connection's own: a batch decided early waits for the ones before it.
///
/// Answering out of order costs the client: NIOHTTP2 keeps open streams in a ring sorted by ID and removes an answered
/// stream that is not the oldest by moving every later one. A client 50 ms away keeps 1,000 streams open, and there
/// this was 31% of the provider's time; in order, `herald send` and the provider sent 15–17% more a second through a
/// 50 ms proxy (loopback: `herald send` +5%, h2load at 100 streams −6%, medians of 5 rounds). Apple's order is
/// Apple's; the local gateway keeps the requests' own.
struct AnswerOrder<Batch> {
    private var nextSequence = 0
    private var nextToApply = 0
    private var decided: [Int: Batch] = [:]

    /// The sequence number of the next batch handed over.
    mutating func handOver() -> Int {
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// Batch `sequence` is decided; returns the batches that may now be answered, in order (none while an earlier
    /// one is still being decided).
    mutating func decided(_ sequence: Int, _ batch: Batch) -> [Batch] {
        decided[sequence] = batch
        var ready: [Batch] = []
        while let next = decided.removeValue(forKey: nextToApply) {
            ready.append(next)
            nextToApply += 1
        }
        return ready
    }

    /// How many decided batches wait for an earlier one.
    var waiting: Int { decided.count }
}
