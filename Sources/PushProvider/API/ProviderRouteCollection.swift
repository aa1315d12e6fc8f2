import Foundation
import HeraldTime
import Hummingbird
import ProviderStorage

/// The routes of one resource of the `/v1` API (apps, devices, notifications, channels, activities, feedback,
/// categories, ...): a small struct that holds what its routes use (the store, the clock, and the resource's
/// operations or signals, never the whole provider) and adds them to the router group the caller middleware guards.
protocol ProviderRouteCollection: Sendable {
    /// The store the routes read and write.
    var store: any ProviderStore { get }
    /// The provider's clock.
    var clock: any WallClock { get }
    /// Adds the resource's routes; every request reaching them has a caller (``AuthenticatedRequestContext/caller``).
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>)
}

extension ProviderRouteCollection {
    /// The provider's time.
    func now() -> Date { clock.currentDate }
}

/// Routes of tokens a user owns (devices, activities, widgets), where a publishable-key caller proves with a user
/// token from the app's server that it acts for that user.
protocol UserProofRoutes: ProviderRouteCollection {
    /// The secrets user tokens are signed with.
    var secrets: SecretBox { get }
}
