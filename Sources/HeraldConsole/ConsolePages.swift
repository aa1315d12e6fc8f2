import Foundation
import Mustache
import ProviderStorage
import PushProvider

/// The console's HTML, rendered from the Mustache templates in `Resources/templates` (embedded in the binary) (every value is HTML-escaped).
struct ConsolePages: Sendable {
    /// A page reachable from the navigation, in its order.
    enum Page: String, CaseIterable, Sendable {
        case compose, history, delivery, devices, channels, apps, tools, metrics

        /// The link's text, which is also the page's title.
        var title: String {
            switch self {
            case .compose: "Compose"
            case .history: "History"
            case .delivery: "Delivery log"
            case .devices: "Devices"
            case .channels: "Channels"
            case .apps: "Apps"
            case .tools: "Tools"
            case .metrics: "Metrics"
            }
        }
    }

    private let library: MustacheLibrary

    /// Parses the embedded templates.
    ///
    /// - Throws: the parser's error for a template that is not valid Mustache.
    init() throws {
        var library = MustacheLibrary()
        for (name, data) in ConsoleResources.files(in: "templates") where name.hasSuffix(".mustache") {
            try library.register(String(decoding: data, as: UTF8.self), named: String(name.dropLast(".mustache".count)))
        }
        self.library = library
    }

    /// A page of the signed-in console, with what the server renders into it (History's first page, Metrics' last
    /// hour) when `fill` gives it.
    func render(_ page: Page, session: ConsoleSessions.Session, fill: (inout PageView) -> Void = { _ in }) -> String {
        let signedInAs: String
        switch session.holder {
        case .admin: signedInAs = "the admin token (every app)"
        case .app(let app): signedInAs = "an API key of \(app.name) (\(app.bundleID))"
        }
        var view = PageView(
            title: page.title, page: page.rawValue, csrf: session.csrfToken, signedInAs: signedInAs,
            nav: Page.allCases.map {
                NavigationLink(title: $0.title, href: "/console/\($0.rawValue)", current: $0 == page)
            })
        fill(&view)
        return library.render(view, withTemplate: page.rawValue) ?? "template \(page.rawValue) is missing"
    }

    /// The sign-in page, with a message when the last try failed.
    func login(message: String?, back: String? = nil, code: String? = nil) -> String {
        library.render(LoginView(message: message, back: back, code: code), withTemplate: "login")
            ?? "template login is missing"
    }
}
