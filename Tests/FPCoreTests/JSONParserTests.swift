import Foundation
import Testing
@testable import FPCore

@Suite struct JSONParserTests {
    @Test func buildsValuesWithIntegersKeptApart() throws {
        let v = try JSONParser.parse(Array(#"{"i": -42, "d": 2.5, "e": 1e2, "big": 123456789012345678901, "s": "a\"b\\c\/\n\u00e9", "l": [true, false, null]}"#.utf8))
        #expect(v["i"] == .int(-42))
        #expect(v["d"] == .double(2.5))
        #expect(v["e"] == .double(100))  // an exponent makes a double, as in the canonical form
        #expect(v["big"] == .double(123456789012345678901))  // beyond Int64
        #expect(v["s"] == .string("a\"b\\c/\né"))
        #expect(v["l"] == [true, false, nil])
    }

    @Test func surrogatePairsAndLoneHalves() throws {
        #expect(try JSONParser.parse(Array(#""\ud83d\udce1""#.utf8)) == .string("📡"))
        #expect(try JSONParser.parse(Array(#""\ud83d x""#.utf8)) == .string("\u{FFFD} x"))
    }

    @Test func agreesWithFoundationOnARealDocument() throws {
        let text = CanonicalJSON.string(try JSONValueEncoder().encode(GoldenDocumentTests.sample()))
        let ours = try JSONParser.parse(Array(text.utf8))
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        let back = try JSONSerialization.jsonObject(with: CanonicalJSON.data(ours)) as? NSDictionary
        #expect(foundation != nil && foundation == back)
        #expect(CanonicalJSON.string(ours) == text)
    }

    @Test func refusesDeepNestingInsteadOfOverflowingTheStack() {
        let deep = Array(String(repeating: "[", count: 100_000).utf8)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        do { _ = try JSONParser.parse(deep) } catch { #expect(error.reason == "nested too deeply") }
    }

    @Test(arguments: [
        ("{\"a\":}", "not valid JSON near line 1, column 6: unexpected \"}\" where a value should be"),
        ("[1,]", "not valid JSON near line 1, column 4: trailing comma before \"]\""),
        ("{\"a\":1,\n\"b\" 2}", "not valid JSON near line 2, column 5: unexpected \"2\" where \":\" should follow the key"),
        ("\"\\x\"", "not valid JSON near line 1, column 2: invalid escape sequence in a string"),
        ("\"\\u12\"", "not valid JSON near line 1, column 2: \\u must be followed by 4 hex digits"),
        ("tru", "not valid JSON near line 1, column 1: unexpected \"t\" where a value should be"),
        ("-", "not valid JSON near line 1, column 2: unexpected end of the document"),
        ("1.", "not valid JSON near line 1, column 3: unexpected end of the document"),
    ])
    func brokenTextSaysWhere(text: String, message: String) {
        do {
            _ = try JSONParser.parse(Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func everyPrefixOfADocumentFailsCleanly() throws {
        let text = Array(try fixture("golden-static-document.json").prefix(600))
        for n in 0..<text.count where n != 0 {
            _ = try? JSONParser.parse(Array(text[0..<n]))  // must throw or parse, never trap
        }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text[0..<300])) }
    }
}
