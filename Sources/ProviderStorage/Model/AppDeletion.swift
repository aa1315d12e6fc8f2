/// What deleting an app removed (`DELETE /v1/apps/{id}`).
package struct AppDeletion: Codable, Sendable, Hashable {
    package var appID: String
    package var devices: Int
    package var notifications: Int
    package var deliveries: Int

    /// Every stored property, as given.
    package init(appID: String, devices: Int, notifications: Int, deliveries: Int) {
        self.appID = appID
        self.devices = devices
        self.notifications = notifications
        self.deliveries = deliveries
    }
}
