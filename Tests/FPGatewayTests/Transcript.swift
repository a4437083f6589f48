import FPTestSupport
import Foundation
import Testing

/// The recorded CouchDB 3.5 exchanges (Fixtures/couchdb-3.5-answers.txt):
/// `>>> curl … --data BODY URL`, then CouchDB's status, headers and body.
struct CouchTranscript {
    struct Exchange {
        var command: String
        var requestBody: String?
        var status: Int
        var headers: [String: String]
        var answerBody: String
    }

    let exchanges: [Exchange]

    init() throws {
        let text = String(decoding: try fixtureData("couchdb-3.5-answers.txt"), as: UTF8.self)
        exchanges = text.components(separatedBy: ">>> ").dropFirst().compactMap(Self.exchange)
    }

    /// The one exchange whose command contains all of `parts`.
    func exchange(_ parts: String...) throws -> Exchange {
        let found = exchanges.filter { e in parts.allSatisfy { e.command.contains($0) } }
        return try #require(found.count == 1 ? found.first : nil, "\(found.count) recorded exchanges match \(parts)")
    }

    private static func exchange(_ block: String) -> Exchange? {
        let lines = block.components(separatedBy: "\n")
        guard let command = lines.first, lines.count > 1, lines[1].hasPrefix("HTTP/1.1 ") else { return nil }
        var body: String?
        if let data = command.range(of: " --data ") {
            let rest = command[data.upperBound...]
            let end = rest.range(of: " http://", options: .backwards)?.lowerBound ?? rest.endIndex
            body = String(rest[..<end])
        }
        let status = Int(lines[1].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        var index = 2
        while index < lines.count, !lines[index].isEmpty {
            if let colon = lines[index].firstIndex(of: ":") {
                headers[lines[index][..<colon].lowercased()] =
                    lines[index][lines[index].index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            index += 1
        }
        let answer = lines[min(index + 1, lines.count)...].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return Exchange(command: command, requestBody: body, status: status, headers: headers, answerBody: answer)
    }
}

func fixtureData(_ name: String) throws -> Data { try FixtureFolder(.module).data(name) }
