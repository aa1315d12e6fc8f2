import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import ProviderStorage

struct WidgetRoutes: UserProofRoutes {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox

    /// `/v1/widgets/tokens`: the WidgetKit tokens apps report, the widgets token (`WidgetPushInfo.token`, iOS 26) and
    /// each control's (iOS 18). A notification to `{"target": {"widgets": {}}}` reloads every registered app's
    /// widgets; `{"widgets": {"control": KIND}}` that control; both take `"user"` to reach one user's devices.
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("widgets/tokens") { request, context -> Response in
            let caller = context.caller
            let app = try await caller.anyApp(request, store: self.store, needs: .devices)
            let input = try await JSONCoding.decode(WidgetTokenInput.self, from: request)
            let stored = try input.checked()
            if case .device = caller, let userID = input.userID {
                try self.checkUserProof(
                    userID: userID, app: app,
                    userToken: input.userToken ?? request.headers[DeviceRoutes.userTokenHeader],
                    change: "binding a widget token to user \(userID)")
            }
            let (record, created) = try await self.store.upsertActivityToken(appID: app.app.id, stored, at: self.now())
            return try JSONCoding.response(WidgetTokenRecord(record), status: created ? .created : .ok)
        }
        router.get("widgets/tokens") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let query = request.uri.queryParameters
            if let kind = query.get("kind"), WidgetTokenInput.Kind(rawValue: kind) == nil {
                throw ProviderError.field("kind", "must be widgets or control; got \(kind)")
            }
            let tokens = try await self.store.activityTokens(
                ActivityTokenQuery(
                    appID: app.app.id, userID: query.get("user"), attributesType: query.get("control"),
                    kind: query.get("kind"), kinds: Self.widgetKinds, after: query.get("after"),
                    limit: min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100))),
                now: self.now())
            return try JSONCoding.response(tokens.map(WidgetTokenRecord.init))
        }
        router.delete("widgets/tokens/:token") { request, context -> HTTPResponse.Status in
            let caller = context.caller
            let app = try await caller.anyApp(request, store: self.store, needs: .devices)
            try await self.deleteToken(
                context.parameters.decoded("token").lowercased(), of: app, caller: caller, kinds: Self.widgetKinds,
                what: "widget token", request: request)
            return .noContent
        }
    }

    /// The kinds `/v1/widgets/tokens` lists and deletes.
    static let widgetKinds = WidgetTokenInput.Kind.allCases.map(\.rawValue)
}
