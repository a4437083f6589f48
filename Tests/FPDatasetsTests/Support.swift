import FPDatasets
import Foundation
import Testing

/// The repository's root, for the hand-made fixtures of `Tests/FPCLITests/Fixtures`.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func fixture(_ name: String) -> String { repositoryRoot.appendingPathComponent("Tests/FPCLITests/Fixtures/\(name)").path }

/// A CSV file from text, named `name` in messages.
func csv(_ text: String, name: String = "t.csv") -> CSVFile { CSVFile(name: name, bytes: Array(text.utf8)) }

/// Every record's fields as text, with its line.
func records(_ file: CSVFile) throws -> [(line: Int, fields: [String])] {
    var out: [(Int, [String])] = []
    try file.forEachRecord { r in
        out.append((r.line, (0..<r.count).map { r.text($0) }))
        return true
    }
    return out
}

/// The `DatasetError` a throwing call throws, nil when it throws none.
func datasetError(_ body: () throws -> Void) -> DatasetError? {
    do { try body() } catch let error as DatasetError { return error } catch {
        Issue.record("not a DatasetError: \(error)")
    }
    return nil
}
