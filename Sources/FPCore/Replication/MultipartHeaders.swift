import Foundation

/// Header parameters of MIME multipart bodies (RFC 2046), shared by the
/// gateway (multipart/related PUTs) and the sync client (multipart answers).
public enum MultipartHeaders {
    /// The `boundary` parameter of a multipart Content-Type, unquoted.
    public static func boundary(of contentType: String) -> String? {
        parameter("boundary", of: contentType)
    }

    /// The `filename` of a part's Content-Disposition (CouchDB names each attachment part).
    /// A quoted name may hold ";", so it is read to its closing quote.
    public static func filename(of disposition: String) -> String? {
        guard let range = disposition.range(of: "filename=") else { return nil }
        var name = disposition[range.upperBound...].trimmingCharacters(in: .whitespaces)
        if name.hasPrefix("\"") {
            guard let close = name.dropFirst().firstIndex(of: "\"") else { return nil }
            name = String(name[name.index(after: name.startIndex)..<close])
        } else if let semicolon = name.firstIndex(of: ";") {
            name = String(name[..<semicolon])
        }
        return name.isEmpty ? nil : name
    }

    private static func parameter(_ name: String, of header: String) -> String? {
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2
                ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
