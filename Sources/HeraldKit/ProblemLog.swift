import Foundation

/// The last problems HeraldKit met, for an app to read or to be told of as they happen.
// Safety: `recent` is read and written only under `lock`; `handler` is set in `init` and never changed.
final class ProblemLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recent: [HeraldError] = []
    private let handler: (@Sendable (HeraldError) -> Void)?
    static let kept = 50

    init(handler: (@Sendable (HeraldError) -> Void)?) {
        self.handler = handler
    }

    func add(_ problem: HeraldError) {
        lock.withLock {
            recent.append(problem)
            if recent.count > Self.kept { recent.removeFirst(recent.count - Self.kept) }
        }
        handler?(problem)
    }

    var all: [HeraldError] { lock.withLock { recent } }
}
