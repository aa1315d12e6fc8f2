public import Testing

/// Marks a test, or every test of a suite, that starts servers, processes or databases: each of its test cases runs
/// only while it holds one of a few slots shared by the whole test run (``ServerSlots``), so such tests run a few at a
/// time whatever the runner's width, while tests that start nothing stay fully parallel.
///
/// Swift Testing starts every test at once; on two cores hundreds of gateways, providers and `herald` processes then
/// share two threads, and a test that bounds a wait fails for want of CPU, not for a fault. The harnesses that start
/// such things (``ServerSlots/requireSlot(_:)``) fail a test that runs them without this trait.
///
/// Its `timeLimit` counts from the moment the slot is taken, so time spent queued for a slot never fails a test (Swift
/// Testing's own `.timeLimit` would count the queue too).
public struct StartsServersTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long one test case may run once it holds its slot before it is recorded as hung and cancelled.
    public var timeLimit: Duration

    /// A suite's tests each take their own slot: applied to a suite, the trait applies to every test in it.
    public var isRecursive: Bool { true }

    /// A scope for each test case (each argument of a parameterized test), none for the suite or function as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await ServerSlots.shared.withSlot(timeLimit: timeLimit, name: test.displayName ?? test.name, function)
    }
}

extension Trait where Self == StartsServersTrait {
    /// The test starts servers, processes or databases: it runs while it holds one of a few shared slots, at most
    /// five minutes from the moment it takes one.
    public static var startsServers: Self { StartsServersTrait(timeLimit: .seconds(300)) }

    /// The test starts servers, processes or databases: it runs while it holds one of a few shared slots, at most
    /// `timeLimit` from the moment it takes one.
    public static func startsServers(timeLimit: Duration) -> Self { StartsServersTrait(timeLimit: timeLimit) }
}
