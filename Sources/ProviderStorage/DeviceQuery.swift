/// One page of an app's devices, as `GET /v1/devices` asks for it: ordered by token, after `after`, narrowed by user,
/// tag and whether the token is still active.
package struct DeviceQuery: Sendable {
    package var appID: String
    package var userID: String?
    package var tag: String?
    /// `true`: only active tokens; `false`: only deactivated ones (the reason shows); `nil`: both.
    package var active: Bool?
    /// The last token of the previous page.
    package var after: String?
    package var limit: Int

    /// Every stored property, as given.
    package init(
        appID: String, userID: String? = nil, tag: String? = nil, active: Bool? = nil, after: String? = nil, limit: Int
    ) {
        self.appID = appID
        self.userID = userID
        self.tag = tag
        self.active = active
        self.after = after
        self.limit = limit
    }
}
