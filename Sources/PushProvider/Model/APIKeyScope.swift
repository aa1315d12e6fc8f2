import ProviderStorage

/// What a restricted API key may do. An app's first key, and a key made without scopes, may do all of it; a key
/// made with some (`POST /v1/apps/{id}/keys {"scopes": ["send"]}`) is answered `403` naming the scope a route needs.
enum APIKeyScope: String, CaseIterable, Sendable, Codable, Comparable {
    /// Create, change, cancel and resend notifications; broadcast channels.
    case send
    /// Read notifications, their deliveries, verdicts and reports; the app and its categories.
    case read
    /// Register, import, list and delete devices and their users' activity and widget tokens; report feedback.
    case devices
    /// Change the app: settings, credentials, categories, pause, resume, credential checks.
    case apps
    /// The app's webhooks: signing secrets, pending and dead events, retries.
    case webhooks

    static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The scopes of a stored key: every scope for `nil` (and for names this version does not know, none).
    static func granted(_ stored: [String]?) -> Set<APIKeyScope> {
        guard let stored else { return Set(allCases) }
        return Set(stored.compactMap(APIKeyScope.init(rawValue:)))
    }

    /// Parses the `scopes` of a new key.
    ///
    /// - Throws: ``ProviderError`` naming `scopes` for an empty list, an unknown name or a repeated one.
    static func parse(_ names: [String]) throws(ProviderError) -> [APIKeyScope] {
        let known = allCases.map(\.rawValue).joined(separator: ", ")
        guard !names.isEmpty else {
            throw .field(
                "scopes", "must name at least one scope (\(known)), or be left out for a key that may do everything")
        }
        var scopes: [APIKeyScope] = []
        for name in names {
            guard let scope = APIKeyScope(rawValue: name) else {
                throw .field("scopes", "has \"\(name.prefix(40))\", which is not a scope; the scopes are \(known)")
            }
            guard !scopes.contains(scope) else { throw .field("scopes", "names \"\(name)\" twice") }
            scopes.append(scope)
        }
        return scopes.sorted()
    }
}
