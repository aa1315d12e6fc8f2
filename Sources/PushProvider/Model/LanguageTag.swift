import Foundation
import ProviderStorage

/// A language tag of a notification's content (BCP 47, as Apple's bundles name their localizations): a language
/// (`en`, `zh`, `fil`), then optionally a script (`Hans`) and a region (`BR`, `419`), each known to ISO. Written in
/// its canonical case: `zh-Hans`, `pt-BR`.
struct LanguageTag: Sendable, Hashable {
    let language: String
    let script: String?
    let region: String?

    /// The tag's text in its canonical case.
    var text: String { ([language] + [script, region].compactMap { $0 }).joined(separator: "-") }

    /// Parses a tag of content.
    ///
    /// - Throws: ``ProviderError`` naming `field` for a tag that is not a language, script and region known to ISO.
    init(_ text: String, field: String) throws(ProviderError) {
        guard let tag = LanguageTag(lenient: text), tag.text.lowercased() == text.lowercased() else {
            throw .field(
                field,
                "\"\(text.prefix(40))\" is not a language tag: give a language known to ISO 639 (en, zh, pt), "
                    + "optionally with a script and a region (zh-Hans, pt-BR, es-419)")
        }
        self = tag
    }

    /// A device's locale as iOS reports it (`en_US`, `zh-Hans-CN`, `pt_BR@calendar=…`) as a tag; `nil` when it
    /// names no known language.
    init?(lenient text: String) {
        let plain = text.split(separator: "@").first.map(String.init) ?? ""
        let parts = plain.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first, (2...3).contains(first.count), Locale.LanguageCode(first).isISOLanguage else {
            return nil
        }
        var script: String?
        var region: String?
        for part in parts.dropFirst() {
            if script == nil, region == nil, part.count == 4, part.allSatisfy(\.isLetter),
                Locale.Script(part.capitalized).isISOScript
            {
                script = part.capitalized
            } else if region == nil,
                (part.count == 2 && part.allSatisfy(\.isLetter))
                    || (part.count == 3 && part.allSatisfy(\.isNumber)), Locale.Region(part.uppercased()).isISORegion
            {
                region = part.uppercased()
            } else {
                return nil
            }
        }
        language = first.lowercased()
        self.script = script
        self.region = region
    }

    /// The tags a device with this locale reads, best first, as Apple's bundle localization falls back: the whole
    /// tag, then without its region, then the language alone; Chinese without a script takes the script its region
    /// writes (`zh-TW` reads `zh-Hant`, `zh-CN` `zh-Hans`).
    var fallbacks: [String] {
        var script = script
        if language == "zh", script == nil, let region {
            script = ["TW", "HK", "MO"].contains(region) ? "Hant" : "Hans"
        }
        var tags = [text]
        if let script {
            if let region { tags.append("\(language)-\(script)-\(region)") }
            tags.append("\(language)-\(script)")
        }
        if let region { tags.append("\(language)-\(region)") }
        tags.append(language)
        var seen = Set<String>()
        return tags.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The tag among `tags` (lowercased) a device with `locale` reads; `nil` for the default content.
    static func best(for locale: String?, among tags: Set<String>) -> String? {
        guard let locale, let tag = LanguageTag(lenient: locale) else { return nil }
        return tag.fallbacks.map { $0.lowercased() }.first { tags.contains($0) }
    }
}
