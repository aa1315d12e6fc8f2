import APNSCore
import Foundation

/// One line of `herald doctor`: what was checked, what was found, and the next step when it failed.
struct DoctorCheck: Sendable {
    enum Outcome: String, Sendable {
        case passed, warning, failed, skipped

        var mark: String {
            switch self {
            case .passed: "✓"
            case .warning: "!"
            case .failed: "✗"
            case .skipped: "-"
            }
        }
    }

    var name: String
    var outcome: Outcome
    var found: String
    var next: String?

    static func passed(_ name: String, _ found: String) -> DoctorCheck {
        DoctorCheck(name: name, outcome: .passed, found: found)
    }

    static func failed(_ name: String, _ found: String, next: String) -> DoctorCheck {
        DoctorCheck(name: name, outcome: .failed, found: found, next: next)
    }

    /// The line printed, with its next step below it.
    var text: String {
        "\(outcome.mark) \(name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(found)"
            + (next.map { "\n    next: \($0)" } ?? "")
    }

    var json: JSONValue {
        .object(
            JSONObject([
                ("check", .string(name)), ("outcome", .string(outcome.rawValue)), ("found", .string(found)),
                ("next", next.map(JSONValue.string) ?? .null),
            ]))
    }
}
