/// What deleting an app removed (`DELETE /v1/apps/{id}`).
package struct AppDeletion: Codable, Sendable, Hashable {
    package var appID: String
    package var devices: Int
    package var notifications: Int
    package var deliveries: Int
}
