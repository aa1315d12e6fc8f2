import Synchronization

/// Token buckets by key (a client address, an app): each holds up to `burst` tokens and gains `perMinute` a minute; a
/// request takes one, and is refused while its key's bucket is empty. Memory is bounded: at most ``keyCapacity`` keys
/// are remembered; past it the full buckets (the same as never seen) are forgotten first, then the stalest.
package final class TokenBuckets: Sendable {
    /// A rate and the burst above it.
    package struct Limit: Sendable, Equatable, CustomStringConvertible {
        /// Tokens gained a minute; 0 turns the limit off.
        package var perMinute: Int
        /// The most tokens a bucket holds: what may be spent at once after a quiet time.
        package var burst: Int

        /// A limit of `perMinute` a minute, with a burst of the same (a minute's worth) unless given.
        package init(perMinute: Int, burst: Int? = nil) {
            self.perMinute = perMinute
            self.burst = max(1, burst ?? perMinute)
        }

        /// Whether the limit is off.
        package var isOff: Bool { perMinute <= 0 }

        package var description: String { "\(perMinute) a minute (bursts of \(burst))" }
    }

    private struct Bucket {
        var tokens: Double
        var at: Double
    }

    /// The limit each key's bucket follows.
    package let limit: Limit
    /// The most keys remembered at once.
    package let keyCapacity: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    package init(_ limit: Limit, keyCapacity: Int = 100_000) {
        self.limit = limit
        self.keyCapacity = max(1, keyCapacity)
    }

    /// Takes a token from `key`'s bucket at `now` (seconds on any clock that does not go back). With `shares` above
    /// 1 this process keeps that share of the limit (its rate and burst divided by it, a burst of at least 1): the
    /// limit is a whole service's, kept by `shares` processes that each see part of its traffic.
    ///
    /// - Returns: `nil` when a token was taken (or the limit is off); otherwise the seconds until one will be there.
    package func take(_ key: String, now: Double, shares: Int = 1) -> Double? {
        guard !limit.isOff else { return nil }
        let shares = Double(max(1, shares))
        let rate = Double(limit.perMinute) / 60 / shares
        let burst = max(1, Double(limit.burst) / shares)
        return buckets.withLock { buckets -> Double? in
            var bucket = buckets[key] ?? Bucket(tokens: burst, at: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.at) * rate)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return (1 - bucket.tokens) / rate
            }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= keyCapacity {
                Self.makeRoom(in: &buckets, now: now, rate: rate, burst: burst, capacity: keyCapacity)
            }
            buckets[key] = bucket
            return nil
        }
    }

    /// The keys remembered now (for tests and metrics).
    package var count: Int { buckets.withLock { $0.count } }

    private static func makeRoom(
        in buckets: inout [String: Bucket], now: Double, rate: Double, burst: Double, capacity: Int
    ) {
        buckets = buckets.filter { $0.value.tokens + max(0, now - $0.value.at) * rate < burst }
        guard buckets.count >= capacity else { return }
        // Still full (a flood from more keys than the capacity): the stalest tenth goes.
        let stalest = buckets.sorted { $0.value.at < $1.value.at }.prefix(max(1, capacity / 10)).map(\.key)
        for key in stalest { buckets[key] = nil }
    }
}
