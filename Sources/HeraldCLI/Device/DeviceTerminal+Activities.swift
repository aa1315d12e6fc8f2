import APNSCore
import DeviceSimulator
import Foundation

extension DeviceTerminal {
    static let activityHelp = """
        activities                list Live Activities: state, content, token, channel
        activity start APP TYPE [CHANNEL]
                                  start one (the manifest's sample attributes and state), with its own push token
                                  or subscribed to CHANNEL
        activity update ID JSON   set its content state, as the app would
        activity end ID [immediate]
                                  end it (it stays on the lock screen up to 4 hours unless immediate)
        """

    /// `activities` and `activity start|update|end`.
    func activityCommand(_ words: [String]) async throws(DeviceError) {
        if words[0] == "activities" {
            let activities = device.activities()
            io.write(activities.isEmpty ? "no activities\n" : activities.map(Self.render(activity:)).joined())
            return
        }
        switch (words.dropFirst().first, words.count) {
        case ("start", 4), ("start", 5):
            let started = try await device.startActivity(
                bundleID: words[2], type: words[3], attributes: nil, contentState: nil,
                channel: words.count == 5 ? words[4] : nil, pushToken: words.count == 4)
            io.write(Self.render(activity: started))
        case ("update", 4...):
            let text = words[3...].joined(separator: " ")
            guard let state = try? JSONValue(parsing: Data(text.utf8)) else {
                throw DeviceError("activity update ID JSON: \(text) is not JSON, e.g. {\"score\": \"1-0\"}")
            }
            io.write(Self.render(activity: try device.updateActivity(id: words[2], contentState: state)))
        case ("end", 3), ("end", 4):
            let immediately = words.count == 4 && words[3] == "immediate"
            io.write(
                Self.render(activity: try device.endActivity(id: words[2], contentState: nil, immediately: immediately))
            )
        default:
            throw DeviceError("activity start APP TYPE [CHANNEL] | update ID JSON | end ID [immediate]")
        }
    }

    static func render(activity: ActivitySummary) -> String {
        let state = String(decoding: activity.contentState.encoded(), as: UTF8.self)
        var line = "[\(activity.bundleID)] \(activity.id) \(activity.attributesType) \(activity.state): \(state)"
        if let token = activity.pushToken { line += " token \(token)" }
        if let channel = activity.channel { line += " channel \(channel)" }
        return line + "\n"
    }
}
