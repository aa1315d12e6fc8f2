import Foundation

/// Waits until `condition` holds, checking every 50 ms; fails the test after `seconds`.
func eventually(
    _ what: String, seconds: Double = 20, _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw WaitTimeout(what: what)
}

struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}
