/// What a notification is written by for one device: the language its locale reads, the end of its quiet hours in
/// its time zone, its attributes and its user's for variables (as stored: JSON), and its user, whom a frequency cap
/// counts.
package struct DeviceSettings: Sendable, Hashable {
    package var locale: String?
    package var timeZone: String?
    package var attributes: String?
    package var userID: String?
    package var userAttributes: String?

    package init(
        locale: String?, timeZone: String?, attributes: String?, userID: String? = nil, userAttributes: String? = nil
    ) {
        self.locale = locale
        self.timeZone = timeZone
        self.attributes = attributes
        self.userID = userID
        self.userAttributes = userAttributes
    }
}
