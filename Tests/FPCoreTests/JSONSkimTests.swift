import Foundation
import Testing
@testable import FPCore

/// `JSONSkim` lets replicated documents be stored as they came. It must
/// never accept what the parser refuses, and must call text canonical only
/// when writing the parsed value gives back the same bytes.
@Suite struct JSONSkimTests {
    func judge(_ text: String) -> Bool? {
        let bytes = Array(text.utf8)
        return JSONSkim(bytes).value(in: 0..<bytes.count)?.isCanonical
    }

    @Test func canonicalTextIsRecognised() {
        for text in [#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, #"[]"#, #"{}"#, #""x""#, #"-0"#, #"1.0"#,
                     #"1.5e-7"#, #"123456789012345678901234"#, #"{"s":"a\"b\\c\n\u001f\u0000é📡"}"#,
                     #"{"A":1,"_id":2,"a":3}"#, #"{"a":1,"ab":2,"b":3}"#] {
            #expect(judge(text) == true, "\(text)")
        }
    }

    @Test func otherValidTextIsNotCanonical() {
        for text in [#"{"b":1,"a":2}"#, #"{"a":1,"a":2}"#, #"{ "a":1}"#, #"[1, 2]"#, #"{"a":"\/"}"#, #"{"a":"\u0041"}"#,
                     #"{"a":"\u001F"}"#, #"{"a":"\n\u000a"}"#, #"{"a":"\ud83d\udce1"}"#, #"{"\u0061":1}"#,
                     #"{"a":[1 ]}"#] {
            let bytes = Array(text.utf8)
            let judged = JSONSkim(bytes).value(in: 0..<bytes.count)
            #expect(judged != nil, "\(text) is valid JSON")
            #expect(judged?.isCanonical == false, "\(text)")
        }
    }

    @Test func refusesWhatTheParserRefuses() {
        for text in [#"{"a":"\ud800"}"#, #"{"a":"\udce1"}"#, "1e400", "-", "01", #"{"a":}"#, #"{"a":1,}"#, "[1,]",
                     "\"a\u{1}\"", "tru", #"{"a" 1}"#, "[1] x", #""\x""#, "\"unterminated"] {
            #expect(judge(text) == nil, "\(text)")
            #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(Array(text.utf8)) }
        }
        // Not UTF-8: an overlong slash and a lone continuation byte.
        for bytes: [UInt8] in [[0x22, 0xC0, 0xAF, 0x22], [0x22, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(JSONSkim(bytes).value(in: 0..<bytes.count) == nil)
        }
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(judge(deep) == nil)
    }

    /// Mutations of a real document: whatever the skim accepts, the parser
    /// accepts; whatever it calls canonical is written back byte for byte;
    /// and what writes back byte for byte it calls canonical.
    @Test func agreesWithTheParserOnMutatedDocuments() async throws {
        let golden = try CanonicalJSON.bytes(CanonicalJSON.parse(fixture("golden-static-document.json")))
        try await agreesWithTheParser(mutating: golden)
    }

    /// The same on a list whose entries repeat each other's members, which
    /// the skim compares with the entry before instead of reading them: a
    /// mutation lands in a member that almost repeats one (`-6` after `-63`,
    /// a quote or bracket moved), which must still be read.
    @Test func agreesWithTheParserOnMutatedRepeatingLists() async throws {
        var entries: [JSONValue] = []
        for n in 0..<12 {
            entries.append(["address": "C5:D5:21:51:00:0\(n % 3)", "beacon": ["major": 1, "minor": .int(Int64(n % 2)), "uuid": "B9407F30"],
                            "eventType": "ADV_IND", "rssi": .int(Int64(-60 - n % 4)), "time": .int(Int64(100 * (n / 2)))])
        }
        let golden = CanonicalJSON.bytes(["bleScans": .array(entries), "x": 1])
        try await agreesWithTheParser(mutating: golden)
    }

    func agreesWithTheParser(mutating golden: [UInt8]) async throws {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]",:\ 0123456789.eE+-tfnul"aéx"#.utf8) + [0x0A, 0xC3, 0xA9, 0xFF, 0x01]
        var accepted = 0, canonical = 0
        for round in 0..<3_000 {
            if round % 200 == 0 { await Task.yield() }  // CPU-bound: share the pool's threads with the suites beside it
            var bytes = golden
            for _ in 0..<(1 + round % 3) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                }
            }
            let judged = JSONSkim(bytes).value(in: 0..<bytes.count)
            let parsed = try? JSONParser.parse(bytes)
            if let judged {
                accepted += 1
                let value = try #require(parsed, "the skim accepted what the parser refuses: \(String(decoding: bytes, as: UTF8.self))")
                let writtenBack = CanonicalJSON.bytes(value) == bytes
                // White space around the value (a mutation may add some) is not
                // the value's: callers take canonical text only when the value
                // fills it (`judged.value == 0..<count`, as the store does).
                if judged.isCanonical, judged.value == 0..<bytes.count {
                    #expect(writtenBack, "judged canonical: \(String(decoding: bytes, as: UTF8.self))")
                } else if writtenBack {
                    // Only an escaped key is left to the parser although canonical.
                    #expect(bytes.contains(UInt8(ascii: "\\")), "judged not canonical: \(String(decoding: bytes, as: UTF8.self))")
                }
                if judged.isCanonical { canonical += 1 }
            } else if let parsed {
                // Valid text refused: only escaped keys or surrogate pairs may be, and never canonical ones.
                #expect(CanonicalJSON.bytes(parsed) != bytes, "refused canonical text: \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(accepted > 300)
        #expect(canonical > 100)
    }

    /// White space before a canonical value leaves the value canonical, and
    /// its range says where it is (the case the mutation test met).
    @Test func whiteSpaceAroundACanonicalValueIsOutsideItsRange() throws {
        let bytes = Array("\n{\"a\":1} ".utf8)
        let judged = try #require(JSONSkim(bytes).value(in: 0..<bytes.count))
        #expect(judged.isCanonical)
        #expect(judged.value == 1..<8)
    }

    @Test func shallowMembersAndCounts() throws {
        let text = Array(#"{"a":[1,{"x":"]"},"\"]"],"b":"}","c":{"d":[]},"e":-1.5}"#.utf8)
        let skim = JSONSkim(text)
        let members = try #require(skim.shallowMembers(of: 0..<text.count))
        #expect(members.map(\.key) == ["a", "b", "c", "e"])
        #expect(try skim.parse(members[0].value) == [1, ["x": "]"], "\"]"])
        #expect(skim.shallowCount(of: members[0].value) == 3)
        #expect(skim.shallowCount(of: members[1].value) == nil)
        #expect(String(decoding: text[members[3].text], as: UTF8.self) == #""e":-1.5"#)
        // Broken text ends in nil, never a crash or a loop.
        for broken in [#"{"a":[1,2"#, #"{"a""#, #"{"a":"x}"#, "{", #"{"a":1"#] {
            let bytes = Array(broken.utf8)
            #expect(JSONSkim(bytes).shallowMembers(of: 0..<bytes.count) == nil, "\(broken)")
        }
    }

    /// A replicated document split from canonical text equals the parsed
    /// split, and its body text is what the writer makes of the body.
    @Test func documentsSplitFromCanonicalText() throws {
        let body = try CanonicalJSON.parse(fixture("golden-static-document.json"))
        var doc = try #require(body.objectValue)
        doc["_id"] = "m1"
        doc["_rev"] = "2-bbb"
        doc["_revisions"] = ["start": 2, "ids": ["bbb", "aaa"]]
        doc["_conflicts"] = ["2-ccc"]
        let text = CanonicalJSON.bytes(.object(doc))
        let skim = JSONSkim(text)
        let element = try #require(skim.value(in: 0..<text.count))
        let (content, owner) = try #require(try RevisionContent.received(skim, document: element,
                                                                         reading: "couchbase_sync_gateway_id"))
        #expect(content.id == "m1")
        #expect(content.rev.description == "2-bbb")
        #expect(content.history.map(\.description) == ["2-bbb", "1-aaa"])
        #expect(content.bodyText == CanonicalJSON.bytes(body))
        #expect(content.body == body)
        #expect(owner == body["couchbase_sync_gateway_id"])
        #expect(content == RevisionContent(id: "m1", rev: content.rev, deleted: false, body: body, history: content.history))
    }

    /// A peer's text keeps its members in their order and their text (number
    /// text, escapes, nested order); only white space goes, and the `_`
    /// members. Inline attachments become stubs where `_attachments` was
    /// (one without a revpos gets 0, as CouchDB 3.5 stores it).
    @Test func documentsSplitFromAPeersTextKeepTheirOrder() throws {
        let sent = #" {"_id" : "k", "_rev":"1-aaa", "type":"scan","tenth" : 0.10, "big":123456789012345678901234567890,"#
            + #" "alpha": {"z":1, "a":[2E+3, -0]}, "s":"é\/", "_attachments":{"n.txt":{"content_type":"text/plain","data":"aGk="}},"#
            + #" "_revisions":{"start":1,"ids":["aaa"]}, "zulu":null} "#
        let text = Array(sent.utf8)
        let skim = JSONSkim(text)
        let element = try #require(skim.value(in: 0..<text.count, levels: 1))
        let (content, _) = try #require(try RevisionContent.received(skim, document: element))
        let body = String(decoding: try #require(content.bodyText), as: UTF8.self)
        #expect(body == #"{"type":"scan","tenth":0.10,"big":123456789012345678901234567890,"alpha":{"z":1,"a":[2E+3,-0]},"#
            + #""s":"é\/","_attachments":{"n.txt":{"content_type":"text/plain","digest":"md5-SfaKXIST7CwL9ImCHCH8Ow==","#
            + #""length":2,"revpos":0,"stub":true}},"zulu":null}"#)
        #expect(content.attachmentData == ["md5-SfaKXIST7CwL9ImCHCH8Ow==": Array("hi".utf8)])
        #expect(content.body == (try JSONParser.parse(Array(body.utf8))))
        // Its member ranges point into the body text.
        let members = try #require(content.bodyMembers)
        #expect(members.map(\.key) == ["type", "tenth", "big", "alpha", "s", "_attachments", "zulu"])
        #expect(String(decoding: Array(body.utf8)[members[3].value], as: UTF8.self) == #"{"z":1,"a":[2E+3,-0]}"#)

        // A mismatched history or a member named twice take the parser's way.
        for other in [#"{"_id":"x","_rev":"3-c","_revisions":{"start":2,"ids":["b"]}}"#, #"{"_id":"x","_rev":"1-a","a":1,"a":2}"#] {
            let bytes = Array(other.utf8)
            let skim = JSONSkim(bytes)
            let element = try #require(skim.value(in: 0..<bytes.count))
            #expect(try RevisionContent.received(skim, document: element) == nil)
        }
    }
}
