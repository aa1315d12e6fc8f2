import Foundation
import Synchronization

/// A clock a test moves by hand.
final class MovableClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
