import FPCore
import Foundation

/// Turns JSON text into a `JSONValue`, with errors that name the file and say
/// where the text is broken (FPCore's strict parser gives line and column).
enum JSONText {
    static func parse(_ data: Data, source: String) throws(ConfigError) -> JSONValue {
        do {
            return try CanonicalJSON.parse(data)
        } catch {
            throw ConfigError(source: source, error.description)
        }
    }
}

