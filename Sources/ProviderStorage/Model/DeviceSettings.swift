/// What a notification is written by for one device: the language its locale reads, the end of its quiet hours in
/// its time zone, its attributes for variables (as stored: JSON).
package struct DeviceSettings: Sendable, Hashable {
    package var locale: String?
    package var timeZone: String?
    package var attributes: String?

    package init(locale: String?, timeZone: String?, attributes: String?) {
        self.locale = locale
        self.timeZone = timeZone
        self.attributes = attributes
    }
}
