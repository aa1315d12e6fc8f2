import CoreLocation
import Testing

@Suite("CoreLocation's coordinates and circular regions, as location triggers use them")
struct CircularRegionTests {
    @Test("great-circle distances: a degree of latitude, Beijing to Shanghai, across the antimeridian, pole to pole")
    func distances() {
        let origin = CLLocationCoordinate2D(latitude: 0, longitude: 0)
        #expect(abs(origin.distance(to: CLLocationCoordinate2D(latitude: 1, longitude: 0)) - 111_195) < 10)
        let beijing = CLLocationCoordinate2D(latitude: 39.9042, longitude: 116.4074)
        let shanghai = CLLocationCoordinate2D(latitude: 31.2304, longitude: 121.4737)
        #expect(abs(beijing.distance(to: shanghai) - 1_067_000) < 3_000)
        let west = CLLocationCoordinate2D(latitude: 0, longitude: 179.9)
        let east = CLLocationCoordinate2D(latitude: 0, longitude: -179.9)
        #expect(abs(west.distance(to: east) - 22_239) < 10, "0.2 degrees across the antimeridian, not 359.8")
        let north = CLLocationCoordinate2D(latitude: 90, longitude: 0)
        let south = CLLocationCoordinate2D(latitude: -90, longitude: 45)
        #expect(abs(north.distance(to: south) - 20_015_115) < 100)
        #expect(beijing.distance(to: beijing) == 0)
    }

    @Test("a circle holds its edge and not a metre past it; a copy keeps the entry and exit choices")
    func circle() throws {
        let center = CLLocationCoordinate2D(latitude: 0, longitude: 0)
        let region = CLCircularRegion(center: center, radius: 111_195, identifier: "office")
        #expect(region.contains(center))
        #expect(region.contains(CLLocationCoordinate2D(latitude: 0.9999, longitude: 0)))
        #expect(!region.contains(CLLocationCoordinate2D(latitude: 1.001, longitude: 0)))
        region.notifyOnExit = false
        let copy = try #require(region.copy() as? CLCircularRegion)
        #expect(copy.identifier == "office" && copy.radius == 111_195 && copy.notifyOnEntry && !copy.notifyOnExit)
        #expect(
            !CLCircularRegion(center: center, radius: 0, identifier: "point").contains(
                CLLocationCoordinate2D(latitude: 0.0001, longitude: 0)))
    }
}
