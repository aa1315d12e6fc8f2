import APNSCore
import Foundation
package import HeraldTime
package import NIOCore
import Synchronization

/// How many device tokens one source address may create per minute, on the courier (`register` without a known
/// token) and through the admin API (`POST /admin/devices`) together. Every new token is a journal record, so without
/// a limit a loop of registrations from one machine would grow the gateway's data and memory without end.
///
/// A token bucket per address: an address may create ``perMinute`` tokens at once, and the bucket refills at
/// ``perMinute`` a minute.
package final class TokenCreationLimit: Sendable {
    /// New tokens an address may create per minute.
    package let perMinute: Int
    /// The option that sets the limit, named in refusals.
    static let option = "--token-creation-limit"
    /// Above this many addresses tracked, the buckets that refilled completely are forgotten, and if that is not
    /// enough, the least recently used half: memory stays bounded however many addresses a client uses.
    package static let trackedAddresses = 10_000

    private struct Bucket {
        var available: Double
        var updated: Date
    }

    /// The time of day the gateway goes by.
    private let clock: any WallClock
    private let buckets = Mutex<[String: Bucket]>([:])

    /// - Parameters:
    ///   - perMinute: new tokens an address may create per minute; at least 1.
    ///   - clock: the time of day the gateway goes by (tests move it).(tests move it).
    package init(perMinute: Int, clock: any WallClock = SystemWallClock()) {
        self.perMinute = max(1, perMinute)
        self.clock = clock
    }

    /// Takes `count` tokens from `source`'s bucket; when there are not enough, takes none and says why and when to try
    /// again.
    package func take(_ count: Int, from source: SocketAddress?) -> String? {
        let address = source?.ipAddress ?? "an unknown address"
        let date = now()
        let capacity = Double(perMinute)
        return buckets.withLock { buckets -> String? in
            var bucket = buckets[address] ?? Bucket(available: capacity, updated: date)
            let elapsed = max(0, date.timeIntervalSince(bucket.updated))
            bucket.available = min(capacity, bucket.available + elapsed * capacity / 60)
            bucket.updated = date
            guard Double(count) <= bucket.available else {
                buckets[address] = bucket
                let wait = ((Double(count) - bucket.available) * 60 / capacity).rounded(.up).clampedInt
                return count > perMinute
                    ? "\(count) new tokens at once is over the limit of \(perMinute) per minute from one address "
                        + "(\(Self.option)); ask for fewer"
                    : "\(address) may create \(perMinute) device tokens a minute (\(Self.option)) and has used them; "
                        + "try again in \(wait) s"
            }
            bucket.available -= Double(count)
            buckets[address] = bucket
            if buckets.count > Self.trackedAddresses { forgetFull(&buckets, at: date, capacity: capacity) }
            return nil
        }
    }

    /// How many addresses the limit tracks now.
    package var trackedCount: Int { buckets.withLock { $0.count } }

    private func forgetFull(_ buckets: inout [String: Bucket], at date: Date, capacity: Double) {
        buckets = buckets.filter { _, bucket in
            bucket.available + date.timeIntervalSince(bucket.updated) * capacity / 60 < capacity
        }
        guard buckets.count > Self.trackedAddresses else { return }
        let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(Self.trackedAddresses / 2)
        buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}

extension TokenCreationLimit {
    /// The time now, on the gateway's clock.
    func now() -> Date { clock.currentDate }
}
