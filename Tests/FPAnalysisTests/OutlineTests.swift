@testable import FPAnalysis
import Testing

/// An outline is a floor only when it is a simple polygon with an area, and a
/// route's leg is indoors only when all of it is, also in a concave outline.
@Suite struct OutlineTests {
    typealias P = Outline.Point
    static let square: [P] = [(0, 0), (10, 0), (10, 10), (0, 10)]
    /// An L: the top band and the right-hand leg, the inner corner at (5, 5).
    static let ell: [P] = [(0, 0), (10, 0), (10, 10), (5, 10), (5, 5), (0, 5)]

    @Test func simplePolygonsAreFloors() {
        #expect(Outline.problem(Self.square) == nil)
        #expect(Outline.problem(Self.ell) == nil)
        #expect(Outline.problem(Self.ell.reversed()) == nil)
        #expect(Outline.problem([(0, 0), (4, 0), (0, 3)]) == nil)
    }

    @Test(arguments: [
        ([(0, 0), (10, 10), (10, 0), (0, 10)], "cross"),  // a bow tie
        ([(0, 0), (10, 0), (10, 10), (5, 10), (5, -5), (0, -5)], "cross"),  // an L whose leg crosses its top edge
        ([(0, 0), (5, 5), (10, 10)], "no area"),  // three collinear corners
        ([(0, 0), (10, 0), (5, 0)], "no area"),
        ([(0, 0), (10, 0), (10, 10), (10, 5), (0, 5)], "cross"),  // an edge runs back over the one before
        ([(0, 0), (10, 0), (10, 10), (0, 10), (10, 0)], "cross"),  // a corner visited twice
    ] as [([P], String)])
    func meaninglessOutlinesAreRefused(corners: [P], why: String) {
        let problem = Outline.problem(corners)
        #expect(problem?.contains(why) == true, "\(String(describing: problem))")
    }

    @Test func areaIsTheShoelaceOne() {
        #expect(abs(Outline.area(Self.square)) == 100)
        #expect(abs(Outline.area(Self.ell)) == 75)
    }

    @Test func legsInsideAConvexOutline() {
        #expect(Outline.contains(Self.square, from: (1, 1), to: (9, 9)))
        #expect(Outline.contains(Self.square, from: (0, 0), to: (10, 0)))  // along the wall
        #expect(!Outline.contains(Self.square, from: (1, 1), to: (11, 1)))
    }

    @Test func legsInAConcaveOutline() {
        // Both ends indoors, the leg across the missing quarter: outdoors.
        #expect(!Outline.contains(Self.ell, from: (1, 4), to: (9, 9)))
        #expect(!Outline.contains(Self.ell, from: (1, 1), to: (6, 9)))
        // Round the inner corner, and through it exactly: indoors.
        #expect(Outline.contains(Self.ell, from: (1, 2), to: (9, 2)))
        #expect(Outline.contains(Self.ell, from: (9, 2), to: (9, 9)))
        #expect(Outline.contains(Self.ell, from: (0, 0), to: (10, 10)))
        #expect(Outline.contains(Self.ell, from: (4, 4), to: (6, 6)))
        // Along the inner walls.
        #expect(Outline.contains(Self.ell, from: (0, 5), to: (5, 5)))
        #expect(Outline.contains(Self.ell, from: (5, 5), to: (5, 10)))
    }
}
