import FPNet
import Foundation

/// Where a config document lives: a local file or an http(s) URL.
package enum ConfigLocation: Sendable, Equatable, CustomStringConvertible {
    /// An absolute, lexically normalised path.
    case file(String)
    case remote(URL)

    /// Spaces and tabs off both ends, without Foundation's `CharacterSet`
    /// (its first use cost every command's start about a millisecond).
    static func trimmingBlanks(_ text: String) -> String {
        var kept = Substring(text)
        while let c = kept.first, c == " " || c == "\t" { kept.removeFirst() }
        while let c = kept.last, c == " " || c == "\t" { kept.removeLast() }
        return String(kept)
    }

    /// Reads a location as the user wrote it: an http(s) URL, a `file://` URL,
    /// or a path (relative paths are taken from `currentDirectory`, `~/` from HOME).
    package static func parse(_ text: String, currentDirectory: String) throws(ConfigError) -> ConfigLocation {
        let trimmed = trimmingBlanks(text)
        guard !trimmed.isEmpty else { throw ConfigError("the config location is empty") }
        if let scheme = scheme(of: trimmed) {
            switch scheme {
            case "http", "https":
                guard isHTTPURL(trimmed), let url = URL(string: trimmed) else {
                    throw ConfigError("\(HTTPError.displayURL(trimmed)): not a valid URL")
                }
                return .remote(url)
            case "file":
                guard let url = URL(string: trimmed), url.host.map({ $0.isEmpty || $0 == "localhost" }) ?? true,
                      !url.path.isEmpty
                else { throw ConfigError("\(trimmed): not a valid file:// URL") }
                return .file(normalised(url.path))
            default:
                throw ConfigError("\(trimmed): unsupported URL scheme \"\(scheme)\"; use a path, file:// or http(s)://")
            }
        }
        if trimmed == "~" || trimmed.hasPrefix("~/") {
            return .file(normalised(NSString(string: trimmed).expandingTildeInPath))
        }
        if trimmed.hasPrefix("/") { return .file(normalised(trimmed)) }
        return .file(normalised(currentDirectory + "/" + trimmed))
    }

    /// A reference found inside this document (the app config's `scenariosURL`):
    /// absolute URLs stand alone, anything else is relative to this document.
    /// `path` names the referring JSON key in errors.
    package func resolving(_ reference: String, referencedAt path: String) throws(ConfigError) -> ConfigLocation {
        let ref = Self.trimmingBlanks(reference)
        if Self.scheme(of: ref) != nil {
            let target: ConfigLocation
            do { target = try Self.parse(ref, currentDirectory: "/") } catch {
                throw ConfigError(source: description, path: path, error.description)
            }
            // Remote content must not make fprint read files of this machine.
            if case .remote = self, case .file = target {
                throw ConfigError(source: description, path: path, "a remote app config cannot refer to a local file (\(ref))")
            }
            return target
        }
        switch self {
        case .file(let base):
            if ref.hasPrefix("/") { return .file(Self.normalised(ref)) }
            let directory = URL(fileURLWithPath: base).deletingLastPathComponent().path
            return .file(Self.normalised(directory + "/" + ref))
        case .remote(let base):
            guard let url = URL(string: ref, relativeTo: base)?.absoluteURL, Self.isHTTPURL(url.absoluteString) else {
                throw ConfigError(source: description, path: path, "\"\(ref)\" is not a valid URL reference")
            }
            return .remote(url)
        }
    }

    /// The path or URL, with any URL password hidden.
    package var description: String {
        switch self {
        case .file(let path): path
        case .remote(let url): HTTPError.displayURL(url.absoluteString)
        }
    }

    /// `scheme://host:port` of a remote document; nil for a file.
    package var origin: String? {
        guard case .remote(let url) = self else { return nil }
        return HTTPAuth.origin(of: url)
    }

    /// The directory of a local document (where sibling files such as
    /// environments live); nil for a remote one.
    package var directory: String? {
        guard case .file(let path) = self else { return nil }
        return URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    static func isHTTPURL(_ text: String) -> Bool {
        guard let scheme = scheme(of: text), scheme == "http" || scheme == "https",
              let url = URL(string: text), let host = url.host, !host.isEmpty
        else { return false }
        return true
    }

    /// The lower-cased scheme of `scheme://…`, nil for anything else (a path).
    static func scheme(of text: String) -> String? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// Removes `.`, `..` and duplicate slashes of an absolute path without
    /// touching the file system (symlinks stay as they are).
    static func normalised(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }
}
