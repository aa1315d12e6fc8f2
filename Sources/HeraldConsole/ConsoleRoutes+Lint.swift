import APNSCore
import Foundation
import Hummingbird
import NIOFoundationCompat
import ProviderStorage
import PushProvider

extension ConsoleRoutes {
    /// What the Compose page sends to be checked as it is typed.
    struct LintInput: Decodable {
        /// The payload exactly as it will be sent.
        var payload: String
        /// The header fields, beside `payload` in the same object (empty ones not given).
        var headers: APNSHeaderValues

        private enum CodingKeys: String, CodingKey {
            case payload
        }

        init(from decoder: any Decoder) throws {
            payload = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .payload)
            headers = try APNSHeaderValues(from: decoder).withoutBlanks
        }
    }

    /// `herald payload lint`'s findings for the page.
    struct LintAnswer: Encodable {
        struct Finding: Encodable {
            var severity: String
            var reason: String?
            var status: Int?
            var rule: String
            var location: String?
            var message: String
        }

        var accepted: Bool
        var pushType: String
        var pushTypeInferred: Bool
        var size: Int
        var maximumSize: Int
        var findings: [Finding]
    }

    /// The largest payload text the lint route reads: any larger is over every push type's limit already.
    static let lintInputLimit = 64 << 10

    func addLintRoutes(to router: Router<ProviderRequestContext>) {
        router.post("console/api/lint") { request, _ -> Response in
            _ = try await requireSession(request)
            let input = try await JSONCoding.decode(LintInput.self, from: request, limit: Self.lintInputLimit)
            let report = APNSLinter.lint(APNSLinter.Request(body: Data(input.payload.utf8), headers: input.headers))
            return try ConsoleRequest.json(
                LintAnswer(
                    accepted: report.isAccepted, pushType: report.pushType.rawValue,
                    pushTypeInferred: report.pushTypeInferred, size: report.size,
                    maximumSize: report.pushType.maximumPayloadSize,
                    findings: report.diagnostics.map {
                        .init(
                            severity: $0.severity.rawValue, reason: $0.reason?.rawValue, status: $0.status,
                            rule: $0.rule, location: $0.location, message: $0.message)
                    }))
        }
    }
}
