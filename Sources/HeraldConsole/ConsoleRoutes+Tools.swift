import APNSCore
import Foundation
import Hummingbird
import NIOFoundationCompat
import ProviderStorage
import PushProvider

extension ConsoleRoutes {
    private struct ToolInput: Decodable {
        var app: String
        var token: String?
        var jwt: String?
    }

    func addToolRoutes(to router: Router<ProviderRequestContext>) {
        router.post("console/api/tools/token") { request, _ -> Response in
            let (session, input) = try await toolInput(request)
            guard let app = try await provider.app(id: input.app), self.session(session, mayRead: app.id) else {
                throw ProviderError.notFound("no app \(input.app) for this session")
            }
            let text = (input.token ?? "").trimmingCharacters(in: .whitespaces)
            var answer = JSONObject([("token", .string(text)), ("appEnvironment", .string(app.environment))])
            let parsed: Result<APNSDeviceToken, APNSRequestRejection>
            do throws(APNSRequestRejection) {
                parsed = .success(try APNSDeviceToken(hex: text))
            } catch {
                parsed = .failure(error)
            }
            switch parsed {
            case .success(let token):
                answer["valid"] = true
                answer["bytes"] = .number(JSONNumber(token.byteCount))
                if let device = try await provider.device(appID: app.id, token: token.hex) {
                    answer["registered"] = true
                    answer["active"] = .bool(device.active)
                    answer["deactivationReason"] = device.deactivationReason.map(JSONValue.string) ?? .null
                    answer["userID"] = device.userID.map(JSONValue.string) ?? .null
                } else {
                    answer["registered"] = false
                }
                if token.byteCount != 32 {
                    answer["warning"] = .string("tokens from iOS today are 32 bytes; this one is \(token.byteCount)")
                }
            case .failure(let error):
                answer["valid"] = false
                answer["problem"] = .string("\(error.reason): \(error.message)")
            }
            return ConsoleRequest.json(JSONValue.object(answer).encoded())
        }
        router.post("console/api/tools/jwt") { request, _ -> Response in
            let (session, input) = try await toolInput(request)
            guard self.session(session, mayRead: input.app) else {
                throw ProviderError.notFound("no app \(input.app) for this session")
            }
            let jwt = (input.jwt ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            var answer = JSONObject()
            let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 3 {
                answer["header"] = Self.decodeSegment(parts[0]) ?? .null
                answer["claims"] = Self.decodeSegment(parts[1]) ?? .null
            }
            switch try await provider.apps.checkProviderToken(jwt, appID: input.app) {
            case .success(let token):
                answer["valid"] = true
                answer["keyID"] = .string(token.keyID)
                answer["teamID"] = .string(token.teamID)
                answer["ageSeconds"] = .number(JSONNumber(provider.now().timeIntervalSince(token.issuedAt).clampedInt))
            case .failure(let rejection):
                answer["valid"] = false
                answer["status"] = .number(JSONNumber(rejection.status))
                answer["reason"] = .string(rejection.reason.rawValue)
                answer["problem"] = .string(rejection.message)
            }
            return ConsoleRequest.json(JSONValue.object(answer).encoded())
        }
    }

    private func toolInput(_ request: Request) async throws -> (ConsoleSessions.Session, ToolInput) {
        let session = try await requireSession(request)
        return (session, try await JSONCoding.decode(ToolInput.self, from: request, limit: 16 << 10))
    }

    /// A JWT segment's JSON, or `nil` when it is not base64url JSON.
    private static func decodeSegment(_ segment: Substring) -> JSONValue? {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).flatMap { try? JSONValue(parsing: $0) }
    }
}
