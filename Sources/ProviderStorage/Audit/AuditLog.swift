package import Foundation

/// Who changed what: every change made with a secret (the admin token, an API key, a console session signed in with
/// one), kept under its own retention. What a publishable key does is not recorded here (it has its own metrics).
package protocol AuditLog: Sendable {
    /// Records one change.
    func recordAudit(_ entry: AuditEntry) async throws(ProviderError)
    /// The entries `query` selects, newest first.
    func auditEntries(_ query: AuditQuery) async throws(ProviderError) -> [AuditEntry]
    /// Deletes the entries made before `before`, at most `limit`; how many.
    func pruneAudit(before: Date, limit: Int) async throws(ProviderError) -> Int
}

/// One change in the audit log.
package struct AuditEntry: Sendable, Hashable, Codable {
    /// Its number in the log (0 before it is recorded).
    package var id: Int64
    package var at: Date
    /// `admin` (the admin token) or `apiKey`.
    package var actor: String
    /// The API key's ID (`key_…`), never the key; `nil` for the admin token.
    package var keyID: String?
    /// Whether it came through a console session (signed in with that secret) rather than the key itself.
    package var console: Bool
    /// The app it changed, when one.
    package var appID: String?
    /// What kind of change: the resource (`notifications`, `apps`, `keys`, `devices`, `webhooks`, ...).
    package var kind: String
    /// The request: its method and route (`POST /v1/notifications`), and the path it named.
    package var method: String
    package var route: String
    package var path: String
    /// The fields the request's JSON body gave (its top-level keys, never their values, which may be secrets);
    /// `nil` for a request without one, or one too long to read twice (an import).
    package var fields: [String]?
    /// The answer's status.
    package var status: Int
    /// The client's address (behind a trusted proxy, the one it names).
    package var address: String

    package init(
        id: Int64 = 0, at: Date, actor: String, keyID: String?, console: Bool, appID: String?, kind: String,
        method: String, route: String, path: String, fields: [String]? = nil, status: Int, address: String
    ) {
        self.fields = fields
        self.id = id
        self.at = at
        self.actor = actor
        self.keyID = keyID
        self.console = console
        self.appID = appID
        self.kind = kind
        self.method = method
        self.route = route
        self.path = path
        self.status = status
        self.address = address
    }
}

/// What `GET /v1/audit` asks for.
package struct AuditQuery: Sendable, Hashable {
    /// Only this app's entries; `nil` for every app's (the admin's).
    package var appID: String?
    package var from: Date
    package var to: Date
    package var kind: String?
    package var keyID: String?
    /// Entries before this id (the page before); `nil` from the newest.
    package var before: Int64?
    package var limit: Int

    package init(
        appID: String?, from: Date, to: Date, kind: String?, keyID: String?, before: Int64?, limit: Int
    ) {
        self.appID = appID
        self.from = from
        self.to = to
        self.kind = kind
        self.keyID = keyID
        self.before = before
        self.limit = limit
    }
}
