import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import ProviderStorage

struct ActivityRoutes: UserProofRoutes {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox

    /// `/v1/activities/tokens`: the Live Activity tokens apps report. A push-to-start token lets a
    /// notification start an activity (`{"target": {"activities": {"type": ...}}}` with `event: start`); an
    /// activity's update token lets one update or end it (`{"target": {"activity": id}}`).
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("activities/tokens") { request, context -> Response in
            let caller = context.caller
            let app = try await caller.anyApp(request, store: self.store, needs: .devices)
            let input = try await JSONCoding.decode(ActivityTokenInput.self, from: request)
            try input.check()
            if case .device = caller, let userID = input.userID {
                try self.checkUserProof(
                    userID: userID, app: app,
                    userToken: input.userToken ?? request.headers[DeviceRoutes.userTokenHeader],
                    change: "binding an activity token to user \(userID)")
            }
            let (record, created) = try await self.store.upsertActivityToken(appID: app.app.id, input, at: self.now())
            return try JSONCoding.response(record, status: created ? .created : .ok)
        }
        router.get("activities/tokens") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let query = request.uri.queryParameters
            if let kind = query.get("kind"), ActivityTokenInput.Kind(rawValue: kind) == nil {
                throw ProviderError.field("kind", "must be pushToStart or update; got \(kind)")
            }
            let tokens = try await self.store.activityTokens(
                ActivityTokenQuery(
                    appID: app.app.id, userID: query.get("user"), attributesType: query.get("type"),
                    activityID: query.get("activity"), kind: query.get("kind"), kinds: Self.activityKinds,
                    after: query.get("after"),
                    limit: min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100))),
                now: self.now())
            return try JSONCoding.response(tokens)
        }
        router.delete("activities/tokens/:token") { request, context -> HTTPResponse.Status in
            let caller = context.caller
            let app = try await caller.anyApp(request, store: self.store, needs: .devices)
            let token = try context.parameters.decoded("token").lowercased()
            try await self.deleteToken(
                token, of: app, caller: caller, kinds: Self.activityKinds, what: "activity token", request: request)
            return .noContent
        }
    }

    /// The kinds `/v1/activities/tokens` lists and deletes.
    static let activityKinds = [ActivityTokenInput.Kind.pushToStart.rawValue, ActivityTokenInput.Kind.update.rawValue]
}
