import Testing

@testable import FPAnalysis

/// `--method` ranges for parameter sweeps: each expands to its methods in order, stepping by 1.
@Suite struct HoldoutMethodRangeTests {
    func names(_ term: String) throws -> [String] { try HoldoutMethod.expand(term).map(\.description) }

    @Test func rangesExpandToTheirMethodsInOrder() throws {
        #expect(try names("knn1..15") == (1...15).map { "knn\($0)" })
        #expect(try names("WKNN3..5") == ["wknn3", "wknn4", "wknn5"])
        #expect(try names("gk2..8k12") == (2...8).map { "gk\($0)k12" })
        #expect(try names("gk4k1..3") == ["gk4k1", "gk4k2", "gk4k3"])
        #expect(try names("gk2.5..4.5k8") == ["gk2.5k8", "gk3.5k8", "gk4.5k8"])
        #expect(try names("gk2..3k1..2") == ["gk2k1", "gk2k2", "gk3k1", "gk3k2"])
        #expect(try names("knn7..7") == ["knn7"])
        #expect(try names("knn9") == ["knn9"])
    }

    @Test(arguments: [
        ("knn15..1", "'knn15..1' is an empty range (15 > 1)"),
        ("gk8..2k12", "'gk8..2k12' is an empty range (8 > 2)"),
        ("knn0..3", "'knn0..3' is none of knnK"),
        ("knn1..", "'knn1..' is none of knnK"),
        ("knn1.5..3", "'knn1.5..3' is none of knnK"),
        ("foo1..3", "'foo1..3' is none of knnK"),
        ("knn1..2..3", "'knn1..2..3' is none of knnK"),
        ("gk0..2k3", "'gk0..2k3' is none of knnK"),
        ("knn1..1001", "'knn1..1001' names more than 1000 methods"),
    ])
    func badRangesSayWhy(term: String, message: String) {
        #expect(throws: HoldoutMethod.TermError.self) { try HoldoutMethod.expand(term) }
        do {
            _ = try HoldoutMethod.expand(term)
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }
}
