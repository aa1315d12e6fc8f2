import Foundation
import Hummingbird
import ProviderStorage

/// The routes of one resource of the `/v1` API (apps, devices, notifications, channels, activities, feedback,
/// categories, ...): a small struct that adds them to the router group the caller middleware guards. What a route
/// needs of the provider it reaches through ``provider``; what only its resource uses is the struct's own.
protocol ProviderRouteCollection: Sendable {
    /// The provider the routes serve.
    var provider: PushProviderService { get }
    /// Adds the resource's routes; every request reaching them has a caller (``AuthenticatedRequestContext/caller``).
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>)
}

extension ProviderRouteCollection {
    /// The provider's store.
    var store: any ProviderStore { provider.store }

    /// The provider's time.
    func now() -> Date { provider.now() }
}
