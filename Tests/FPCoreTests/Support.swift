import Foundation
import Testing

/// Reads a fixture shipped with this test target.
func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil),
                           "fixture \(name) is missing from the test bundle")
    return try Data(contentsOf: url)
}

/// The source folder of the fixtures, for re-recording golden files.
func fixtureSourcePath(_ name: String, file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)").path
}
