import CategoryConfig
import Foundation
public import UserNotifications

extension Herald {
    /// The payload key of a push that says the categories changed (`{"herald-categories": "changed"}`, usually in
    /// a background push): ``didReceiveRemoteNotification(_:keeping:center:)`` fetches them again.
    public static let categoriesChangedKey = "herald-categories"

    /// Fetches the app's categories (the `NotificationConfig` JSON, `GET /v1/categories` with `If-None-Match`)
    /// and sets them with `setNotificationCategories`, beside the app's own. A failed fetch or a document that
    /// does not parse keeps the last set (which is kept in HeraldKit's folder, so it survives a relaunch offline).
    ///
    /// - Parameters:
    ///   - keeping: the categories the app declares in code; a fetched category with the same identifier wins.
    ///   - center: the notification center (the current one by default).
    /// - Returns: the categories set.
    /// - Throws: ``HeraldError/categories(_:)`` for a document that does not parse, or the provider's error; the
    ///   last set is applied in either case.
    @discardableResult
    public func syncCategories(
        keeping: Set<UNNotificationCategory> = [], center: UNUserNotificationCenter = .current()
    ) async throws(HeraldError) -> Set<UNNotificationCategory> {
        let saved = try? Data(contentsOf: categoriesFile)
        let savedETag = saved.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["etag"]
        var document = saved.flatMap(Self.config(inSaved:))
        var failure: HeraldError?
        do throws(HeraldError) {
            var headers: [String: String] = [:]
            headers["If-None-Match"] = savedETag as? String
            let answer = try await connection.send("GET", "categories", headers: headers)
            if answer.status == 200 {
                do {
                    let config = try NotificationConfig(data: answer.body)
                    document = config
                    keep(answer.body, etag: answer.etag)
                } catch {
                    throw .categories("the provider's categories do not parse (\(error)); the last set stays")
                }
            }
        } catch {
            failure = error
            problemLog.add(error)
        }
        let fetched = document?.makeCategories() ?? []
        let identifiers = Set(fetched.map(\.identifier))
        let all = fetched.union(keeping.filter { !identifiers.contains($0.identifier) })
        center.setNotificationCategories(all)
        if let failure { throw failure }
        return all
    }

    /// From `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` (a background push wakes the app
    /// with it): a push whose payload has ``categoriesChangedKey`` makes the app fetch its categories again.
    ///
    /// - Returns: whether the push was such a one and the categories were synced.
    /// - Throws: what ``syncCategories(keeping:center:)`` throws; the last set is applied in any case.
    @discardableResult
    public func didReceiveRemoteNotification(
        _ userInfo: [AnyHashable: Any], keeping: Set<UNNotificationCategory> = [],
        center: UNUserNotificationCenter = .current()
    ) async throws(HeraldError) -> Bool {
        guard userInfo[Self.categoriesChangedKey] != nil else { return false }
        try await syncCategories(keeping: keeping, center: center)
        return true
    }

    private func keep(_ body: Data, etag: String?) {
        var saved: [String: Any] = ["document": String(decoding: body, as: UTF8.self)]
        saved["etag"] = etag
        if let data = try? JSONSerialization.data(withJSONObject: saved) {
            try? data.write(to: categoriesFile, options: .atomic)
        }
    }

    private static func config(inSaved data: Data) -> NotificationConfig? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let text = object["document"] as? String
        else { return nil }
        return try? NotificationConfig(data: Data(text.utf8))
    }
}
