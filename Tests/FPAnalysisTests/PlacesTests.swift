import Testing
@testable import FPAnalysis

/// One rule decides when two positions are one measured place (heatmap marks, map show's points, imported maps).
@Suite struct PlacesTests {
    @Test func positionsWithinThePrecisionAreOnePlaceInFirstMetOrder() {
        let at: [(x: Double, y: Double)] = [(5, 5), (1, 1), (5.004, 4.996), (1.02, 1), (5, 5)]
        let grouped = places(Array(at.indices), precision: 0.01) { at[$0] }
        #expect(grouped.map(\.members) == [[0, 2, 4], [1], [3]])
        #expect(grouped.map(\.x) == [5, 1, 1.02] && grouped.map(\.y) == [5, 1, 1])
    }

    @Test func aCoarserPrecisionJoinsNearPositions() {
        let at: [(x: Double, y: Double)] = [(363, 701), (363.4, 701.2), (364, 701)]
        #expect(places(Array(at.indices), precision: 1) { at[$0] }.map(\.members.count) == [2, 1])
        #expect(places([(x: Double, y: Double)](), precision: 1) { $0 }.isEmpty)
    }
}
