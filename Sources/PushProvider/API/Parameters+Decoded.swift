import Foundation
import Hummingbird

extension Parameters {
    /// A path parameter as the client meant it: Hummingbird hands it over as written in the path, so a user ID
    /// `ana@example.com` sent as `ana%40example.com` would otherwise be looked up with its escapes.
    ///
    /// - Throws: Hummingbird's 400 when the route has no such parameter.
    package func decoded(_ name: String) throws -> String {
        let raw = try require(name)
        return raw.removingPercentEncoding ?? raw
    }
}
