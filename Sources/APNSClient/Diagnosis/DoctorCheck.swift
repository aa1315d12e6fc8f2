package import APNSCore
import Foundation

/// One line of `herald doctor` (and of the provider's `POST /v1/apps/{id}/check`): what was checked, what was
/// found, and the next step when it failed.
package struct DoctorCheck: Sendable {
    package enum Outcome: String, Sendable {
        case passed, warning, failed, skipped

        package var mark: String {
            switch self {
            case .passed: "✓"
            case .warning: "!"
            case .failed: "✗"
            case .skipped: "-"
            }
        }
    }

    package var name: String
    package var outcome: Outcome
    package var found: String
    package var next: String?

    package init(name: String, outcome: Outcome, found: String, next: String? = nil) {
        self.name = name
        self.outcome = outcome
        self.found = found
        self.next = next
    }

    package static func passed(_ name: String, _ found: String) -> DoctorCheck {
        DoctorCheck(name: name, outcome: .passed, found: found)
    }

    package static func failed(_ name: String, _ found: String, next: String) -> DoctorCheck {
        DoctorCheck(name: name, outcome: .failed, found: found, next: next)
    }

    /// The line printed, with its next step below it.
    package var text: String {
        "\(outcome.mark) \(name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(found)"
            + (next.map { "\n    next: \($0)" } ?? "")
    }

    /// The check as JSON: `check`, `outcome`, `found`, and `next` when there is one.
    package var json: JSONValue {
        var object = JSONObject([
            ("check", .string(name)), ("outcome", .string(outcome.rawValue)), ("found", .string(found)),
        ])
        if let next { object["next"] = .string(next) }
        return .object(object)
    }
}
