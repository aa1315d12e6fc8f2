import Foundation
import HeraldTime
import Testing
import WidgetKit

@Suite("WidgetKit pushes: what reloads, within the daily budget")
struct ReloadBudgetTests {
    static let changed = Data(#"{"aps":{"content-changed":true}}"#.utf8)

    @Test("a widgets push reloads every widget kind until the budget is spent; 24 hours later it reloads again")
    func budget() {
        let system = WidgetSystem()
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_790_000_000))
        system.setClock(clock)
        system.declare(widgets: ["Score", "Table"], controls: [], budget: 3)
        let token = Data([1, 2, 3])
        system.issueWidgetToken(token)
        for _ in 0..<3 {
            #expect(
                system.receivePush(Self.changed, token: token, pushType: "widgets")
                    == .reloaded(["Score", "Table"], refused: []))
            clock.advance(by: .seconds(60))
        }
        #expect(
            system.receivePush(Self.changed, token: token, pushType: "widgets")
                == .reloaded([], refused: ["Score", "Table"]))
        #expect(system.status(of: "Score").reloadsToday == 3 && system.status(of: "Score").refused == 1)
        clock.advance(by: .seconds(86_400 - 179))
        #expect(
            system.receivePush(Self.changed, token: token, pushType: "widgets")
                == .reloaded(["Score", "Table"], refused: []), "the first reload left the 24 hours")
    }

    @Test("no content-changed, a token of another kind, or a control push to the widgets' token reload nothing")
    func ignored() {
        let system = WidgetSystem()
        system.declare(widgets: ["Score"], controls: ["Mute"])
        let widgets = Data([1])
        let mute = Data([2])
        system.issueWidgetToken(widgets)
        system.issueControlToken(mute, kind: "Mute")
        func ignoredReason(_ reload: WidgetSystem.Reload) -> String? {
            if case .ignored(let why) = reload { return why }
            return nil
        }
        #expect(
            ignoredReason(
                system.receivePush(Data(#"{"aps":{"alert":"hi"}}"#.utf8), token: widgets, pushType: "widgets"))?
                .contains("content-changed") == true)
        #expect(ignoredReason(system.receivePush(Self.changed, token: widgets, pushType: "controls")) != nil)
        #expect(ignoredReason(system.receivePush(Self.changed, token: mute, pushType: "widgets")) != nil)
        #expect(system.receivePush(Self.changed, token: mute, pushType: "controls") == .reloaded(["Mute"], refused: []))
        #expect(system.owns(widgets) && system.owns(mute) && !system.owns(Data([9])))
    }
}
