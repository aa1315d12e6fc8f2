public import Foundation

/// Degrees of latitude or longitude.
public typealias CLLocationDegrees = Double
/// A distance in meters.
public typealias CLLocationDistance = Double

/// A point on Earth.
public struct CLLocationCoordinate2D: Sendable, Hashable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees

    public init() {
        self.init(latitude: 0, longitude: 0)
    }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The great-circle distance to `other` in meters (haversine, mean Earth radius).
    public func distance(to other: CLLocationCoordinate2D) -> CLLocationDistance {
        let radius = 6_371_008.8
        let lat1 = latitude * .pi / 180
        let lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

/// An area a device can be in; Core Location's base region, as UserNotifications' location triggers use it.
// Safety: mutated only by its owner before it is handed to a trigger, which copies it.
open class CLRegion: NSObject, NSCopying, @unchecked Sendable {
    /// The region's unique identifier.
    public let identifier: String
    /// Whether entering the region counts.
    open var notifyOnEntry = true
    /// Whether leaving the region counts.
    open var notifyOnExit = true

    init(identifier: String) {
        self.identifier = identifier
        super.init()
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let region = CLRegion(identifier: identifier)
        region.notifyOnEntry = notifyOnEntry
        region.notifyOnExit = notifyOnExit
        return region
    }

    /// Whether `coordinate` is inside the region.
    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool { false }
}

/// A circle around a point.
// Safety: as CLRegion.
open class CLCircularRegion: CLRegion, @unchecked Sendable {
    /// The circle's centre.
    public let center: CLLocationCoordinate2D
    /// The circle's radius in meters.
    public let radius: CLLocationDistance

    /// A circular region.
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.center = center
        self.radius = radius
        super.init(identifier: identifier)
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let region = CLCircularRegion(center: center, radius: radius, identifier: identifier)
        region.notifyOnEntry = notifyOnEntry
        region.notifyOnExit = notifyOnExit
        return region
    }

    open override func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        center.distance(to: coordinate) <= radius
    }
}
