/// Every failure of FPConfig: a bad config or scenarios file, a fetch that
/// failed with no cached copy to fall back to, a bad settings file or value.
///
/// The description is one line meant for the user, normally
/// `<file or URL>: <JSON path>: <problem>`, e.g.
/// `Config/app-config.json: $.maps[1].id: expected a string, found number`.
package struct ConfigError: Error, Equatable, CustomStringConvertible, Sendable {
    package let description: String
    /// The server answered 404: for optional files (environments) that means "none".
    package var notFound = false

    package init(_ description: String) { self.description = description }

    /// Errors are the same when they say the same.
    package static func == (a: ConfigError, b: ConfigError) -> Bool { a.description == b.description }

    /// `source: path: problem`, the form of every content error.
    init(source: String, path: String, _ problem: String) {
        self.init("\(source): \(path): \(problem)")
    }

    init(source: String, _ problem: String) {
        self.init("\(source): \(problem)")
    }
}
