import Foundation
import Testing
@testable import FPCore

@Suite struct JSONParserTests {
    @Test func buildsValuesWithIntegersKeptApart() throws {
        let v = try JSONParser.parse(Array(#"{"i": -42, "d": 2.5, "e": 1e2, "big": 123456789012345678901, "s": "a\"b\\c\/\n\u00e9", "l": [true, false, null]}"#.utf8))
        #expect(v["i"] == .int(-42))
        #expect(v["d"] == .double(2.5))
        // Numbers whose canonical writing would change their text keep it
        // (a peer's revision must come back as it was sent).
        #expect(v["e"] == .numberText("1e2"))
        #expect(v["e"]?.doubleValue == 100)
        #expect(v["big"] == .numberText("123456789012345678901"))  // beyond Int64
        #expect(v["s"] == .string("a\"b\\c/\né"))
        #expect(v["l"] == [true, false, nil])
    }

    @Test func surrogatePairsAndLoneHalves() throws {
        #expect(try JSONParser.parse(Array(#""\ud83d\udce1""#.utf8)) == .string("📡"))
        // A lone half has no character; replacing it would change the text.
        for lone in [#""\ud83d x""#, #""\ud800""#, #""\udce1\ud83d""#] {
            #expect(throws: JSONParseError.self, "\(lone)") { try JSONParser.parse(Array(lone.utf8)) }
        }
        do {
            _ = try JSONParser.parse(Array(#"{"a":"\ud800"}"#.utf8))
        } catch {
            #expect(error.description.contains(#"\ud800 is half of a surrogate pair"#), "\(error)")
        }
    }

    /// CouchDB 3.5 keeps these texts under a replicated revision
    /// (couch-transcripts/couchdb-3.5-answers.txt): so must we, byte for byte.
    @Test func numberTextSurvivesARoundTrip() throws {
        let sent = #"{"E":2E+3,"big":123456789012345678901234567890,"e":1.5e-7,"f":1.0,"neg":-125.0,"z":-0.0,"zero":-0}"#
        let value = try JSONParser.parse(Array(sent.utf8))
        #expect(CanonicalJSON.string(value) == sent)
        #expect(value["f"]?.doubleValue == 1 && value["neg"]?.intValue == -125 && value["e"]?.doubleValue == 1.5e-7)
        // Numbers already in canonical form stay plain values.
        #expect(try JSONParser.parse(Array("[1,2.5,1e-05,-3]".utf8)) == [1, 2.5, .double(1e-05), -3])
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
