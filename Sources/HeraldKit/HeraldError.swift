/// What HeraldKit could not do, in words an app can log or show: every failure is one of these, none is a crash.
public enum HeraldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration cannot work (a missing app group, a provider URL that is not http or https).
    case configuration(String)
    /// A device token APNs cannot have issued: empty, or longer than 100 bytes.
    case badDeviceToken(String)
    /// The provider refused the request and resending it will not help (`400`, `403`, `404`, `413`): what it said.
    case refused(status: Int, message: String)
    /// The provider could not be reached or answered a status worth retrying (`429`, `5xx`): sent again later.
    case unavailable(String)
    /// HeraldKit's folder could not be read or written (a full disk, a folder the app cannot write).
    case storage(String)
    /// An end-to-end envelope did not open (a wrong or rotated key, an altered payload, an unknown version).
    case endToEnd(String)
    /// The provider's categories document does not parse: the last good set stays.
    case categories(String)

    public var description: String {
        switch self {
        case .configuration(let text): "configuration: \(text)"
        case .badDeviceToken(let text): "device token: \(text)"
        case .refused(let status, let message): "the provider refused it (\(status)): \(message)"
        case .unavailable(let text): "the provider is unavailable: \(text)"
        case .storage(let text): "storage: \(text)"
        case .endToEnd(let text): "end-to-end: \(text)"
        case .categories(let text): "categories: \(text)"
        }
    }
}
