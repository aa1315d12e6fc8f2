/// One page of an app's devices, as `GET /v1/devices` asks for it: ordered by token, after `after`, narrowed by user,
/// tag and whether the token is still active.
struct DeviceQuery: Sendable {
    var appID: String
    var userID: String?
    var tag: String?
    /// `true`: only active tokens; `false`: only deactivated ones (the reason shows); `nil`: both.
    var active: Bool?
    /// The last token of the previous page.
    var after: String?
    var limit: Int
}
