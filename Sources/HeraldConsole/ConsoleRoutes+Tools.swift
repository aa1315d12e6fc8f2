import APNSCore
import Foundation
import Hummingbird
import NIOFoundationCompat
import PushProvider

extension ConsoleRoutes {
    private struct ToolInput: Decodable {
        var app: String
        var token: String?
        var jwt: String?
    }

    func addToolRoutes(to router: Router<BasicRequestContext>) {
        router.post("console/api/tools/token") { request, _ -> Response in
            let (session, input) = try await toolInput(request)
            guard let app = try await provider.app(id: input.app), self.session(session, mayRead: app.id) else {
                throw ProviderError.notFound("no app \(input.app) for this session")
            }
            let text = (input.token ?? "").trimmingCharacters(in: .whitespaces)
            var answer: [String: Any] = ["token": text, "appEnvironment": app.environment]
            let parsed: Result<APNSDeviceToken, APNSRequestRejection>
            do throws(APNSRequestRejection) {
                parsed = .success(try APNSDeviceToken(hex: text))
            } catch {
                parsed = .failure(error)
            }
            switch parsed {
            case .success(let token):
                answer["valid"] = true
                answer["bytes"] = token.bytes.count
                if let device = try await provider.device(appID: app.id, token: token.hex) {
                    answer["registered"] = true
                    answer["active"] = device.active
                    answer["deactivationReason"] = device.deactivationReason ?? NSNull()
                    answer["userID"] = device.userID ?? NSNull()
                } else {
                    answer["registered"] = false
                }
                if token.bytes.count != 32 {
                    answer["warning"] = "tokens from iOS today are 32 bytes; this one is \(token.bytes.count)"
                }
            case .failure(let error):
                answer["valid"] = false
                answer["problem"] = "\(error.reason): \(error.message)"
            }
            return ConsoleRequest.json(try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys]))
        }
        router.post("console/api/tools/jwt") { request, _ -> Response in
            let (session, input) = try await toolInput(request)
            guard self.session(session, mayRead: input.app) else {
                throw ProviderError.notFound("no app \(input.app) for this session")
            }
            let jwt = (input.jwt ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            var answer: [String: Any] = [:]
            let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 3 {
                answer["header"] = Self.decodeSegment(parts[0]) ?? NSNull()
                answer["claims"] = Self.decodeSegment(parts[1]) ?? NSNull()
            }
            switch try await provider.checkProviderToken(jwt, appID: input.app) {
            case .success(let token):
                answer["valid"] = true
                answer["keyID"] = token.keyID
                answer["teamID"] = token.teamID
                answer["ageSeconds"] = Int(Date().timeIntervalSince(token.issuedAt))
            case .failure(let rejection):
                answer["valid"] = false
                answer["status"] = rejection.status
                answer["reason"] = rejection.reason.rawValue
                answer["problem"] = rejection.message
            }
            return ConsoleRequest.json(try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys]))
        }
    }

    private func toolInput(_ request: Request) async throws -> (ConsoleSessions.Session, ToolInput) {
        let session = try requireSession(request)
        let body = try await request.body.collect(upTo: 16 << 10)
        do {
            return (session, try JSONDecoder().decode(ToolInput.self, from: Data(buffer: body)))
        } catch {
            throw ProviderError.invalid(field: nil, message: "send {\"app\": \"...\", \"token\" or \"jwt\": \"...\"}")
        }
    }

    /// A JWT segment's JSON, or `nil` when it is not base64url JSON.
    private static func decodeSegment(_ segment: Substring) -> Any? {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).flatMap { try? JSONSerialization.jsonObject(with: $0) }
    }
}
