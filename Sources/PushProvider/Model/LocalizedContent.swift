import APNSCore
import Foundation
import ProviderStorage

/// A notification's alert in other languages (``NotificationInput/Content/languages``), checked: each language's
/// payload is the default's with its alert replaced by that language's, linted as APNs would.
struct LocalizedContent: Sendable {
    /// The most languages one notification may carry.
    static let maxLanguages = 50
    /// The fields of one language's alert.
    static let alertFields = ["title", "subtitle", "body"]

    /// Each language's payload, by its tag in canonical case, in the order given.
    var payloads: [(tag: String, payload: APNSPayload)] = []
    /// Whether a language's text names device attributes (``TextVariables``).
    var variables = false

    /// Checks `languages` (the request's `field`: `content.languages`, or `languages` beside a payload) against the
    /// default `payload`.
    ///
    /// - Throws: ``ProviderError`` naming `field` (or one language in it) for a map that is empty, too big, names a
    ///   tag twice or one that is not a language, or an alert that is not title, subtitle and body.
    init(
        _ languages: JSONValue, field: String, default payload: APNSPayload,
        lint: (Data) throws(ProviderError) -> Void
    ) throws(ProviderError) {
        guard case .object(let map) = languages else {
            throw .field(field, "must be an object from a language tag to {\"title\", \"subtitle\", \"body\"}")
        }
        guard !map.members.isEmpty else {
            throw .field(field, "is empty: give at least one language, or leave languages out")
        }
        guard map.members.count <= Self.maxLanguages else {
            throw .field(
                field, "has \(map.members.count) languages; at most \(Self.maxLanguages) go in one notification")
        }
        var seen = Set<String>()
        for member in map.members {
            let tag = try LanguageTag(member.key, field: field).text
            let place = "\(field).\(tag)"
            guard seen.insert(tag.lowercased()).inserted else {
                throw .field(field, "names \(tag) twice (tags are compared without case)")
            }
            var localized = payload
            localized.root["aps"] = .object(try Self.aps(payload.aps, alert: member.value, field: place))
            if try TextVariables.check(member.value, field: place) { variables = true }
            do {
                try lint(localized.encoded())
            } catch {
                throw .field(place, "\(error.message)")
            }
            payloads.append((tag, localized))
        }
    }

    /// The `aps` of `aps` with `alert` as its alert.
    private static func aps(_ aps: JSONObject, alert: JSONValue, field: String) throws(ProviderError) -> JSONObject {
        guard case .object(let fields) = alert, !fields.members.isEmpty else {
            throw .field(field, "must be an object with a title, subtitle or body")
        }
        var text = JSONObject()
        for member in fields.members {
            guard Self.alertFields.contains(member.key), case .string(let value) = member.value else {
                throw .field(
                    "\(field).\(member.key)",
                    "a language's alert takes only title, subtitle and body, each a string")
            }
            try ProviderError.refuseNUL(value, field: "\(field).\(member.key)")
            text[member.key] = .string(value)
        }
        var aps = aps
        aps["alert"] = .object(text)
        return aps
    }

    /// The payloads as stored (``StoredNotification/localized``): one JSON object from each tag to its payload.
    var stored: Data {
        JSONValue.object(JSONObject(payloads.map { (key: $0.tag, value: JSONValue.object($0.payload.root)) }))
            .encoded()
    }
}
