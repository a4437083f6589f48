/// What is wrong with a dataset file, and where: the file, its 1-based line
/// and column (a CSV field, counted from 1) when a single cell is to blame.
/// One line, so the CLI prints it as it is.
package struct DatasetError: Error, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var column: Int?
    package var message: String

    package init(file: String, line: Int? = nil, column: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    package var description: String {
        var place = file
        if let line { place += ": line \(line)" }
        if let column { place += ", column \(column)" }
        return "\(place): \(message)"
    }
}
