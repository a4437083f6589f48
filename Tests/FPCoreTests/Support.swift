import FPTestSupport
import Foundation
import Testing

/// Reads a fixture shipped with this test target.
func fixture(_ name: String) throws -> Data { try FixtureFolder(.module).data(name) }

/// The source folder of the fixtures, for re-recording golden files.
func fixtureSourcePath(_ name: String, file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)").path
}
