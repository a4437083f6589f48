@testable import FPCore
import Foundation
import Testing

/// `LegacyImport.contractDocument`: a JSON line already in fprint's
/// contract is stored as its text, not parsed. It is a shortcut only: for
/// every line it takes, the converting path (`LineConverter.converted`)
/// gives the same body, and every line it leaves gets that path's
/// conversions and errors.
@Suite struct ContractLineTests {
    let converter = LegacyImport.LineConverter(
        source: "dump.jsonl", timeZone: TimeZone(identifier: "Europe/Prague")!,
        stamp: LegacyImport.stamp(.jsonl, source: "dump.jsonl", at: Date(timeIntervalSince1970: 1_800_000_000)))

    /// A walk document as `fprint export jsonl` writes it.
    static let walkLine = CanonicalJSON.string([
        "_id": "walk-00000001", "schemaVersion": 1, "mode": "walk", "sessionId": "S1", "seq": 4, "x": 363, "y": 701,
        "level": "J1NP", "startTime": "2026-11-26T10:00:00.000Z", "endTime": "2026-11-26T10:00:01.500Z",
        "position": ["x": 363.25, "y": 701.5], "legacy": ["note": "kept"], "tags": ["set": "train"],
        "bleScans": [
            ["address": "C5:D5:21:51:00:01", "rssi": -71, "time": 12, "txPower": nil, "name": "b\u{e9}acon \"1\""],
            ["address": "C5:D5:21:51:00:02", "rssi": -80, "time": 13, "uuid": "kept-as-is"],
        ],
        "wifiScans": [["mac": "aa:bb:cc:dd:ee:ff", "rssi": -55, "frequency": 2412, "channel": 1, "time": 14]],
        "cellScans": [["cid": 1234, "lac": 7, "rssi": -90, "time": 15]],
        "geolocation": [["lat": 50.1, "long": 14.4, "accuracy": 4.5, "alt": 200, "time": 16]],
    ] as JSONValue)

    func line(_ text: String) -> LegacyImport.Line { LegacyImport.Line(Array(text.utf8), number: 1) }

    /// What a path answers for a line: its document's id (unless made up
    /// at random) and canonical body, or its error.
    func outcome(madeUpID: Bool, _ convert: () throws(LegacyImport.ImportError) -> NewDocument?) -> String {
        do {
            guard let document = try convert() else { return "passed over" }
            return (madeUpID ? "" : document.id) + " " + CanonicalJSON.string(document.body)
        } catch {
            return "error: \(error)"
        }
    }

    @Test func aLineInContractFormIsStoredAsItsText() throws {
        let taken = try #require(LegacyImport.contractDocument(Array(Self.walkLine.utf8)))
        guard case .canonicalText(let text, let members) = taken.content else {
            Issue.record("the line was not taken as text")
            return
        }
        let converted = try #require(try converter.converted(line(Self.walkLine)))
        #expect(taken.id == "walk-00000001" && converted.id == taken.id)
        #expect(text == CanonicalJSON.bytes(converted.body))
        #expect(!members.contains { $0.key == "_id" })
        // The members' ranges point into the text without `_id`.
        for member in members {
            #expect(try JSONParser.parse(Array(text[member.value])) == converted.body[member.key])
        }
    }

    @Test(arguments: [
        #"{"_id":"a","_rev":"1-x","mode":"walk","schemaVersion":1,"x":1,"y":2}"#,  // `_rev` moves under legacy
        #"{"_attachments":{},"_id":"a","mode":"walk","schemaVersion":1,"x":1,"y":2}"#,
        #"{"_id":"a","mode":"walk","schemaVersion":0,"x":1,"y":2}"#,  // not yet in contract form: stamped
        #"{"_id":"a","imported":{},"mode":"walk","x":1,"y":2}"#,  // no schemaVersion: one is added
        #"{"_id":"a","schemaVersion":1,"x":1,"y":2}"#,  // no mode: one is added
        #"{"_id":"a","mode":"walk","schemaVersion":1,"x":"1","y":2}"#,  // a number as text
        #"{"_id":"a","mode":"walk","schemaVersion":1,"x":1.5,"y":2}"#,  // refused: not whole
        #"{"_id":"a","mode":"walk","schemaVersion":1,"y":2}"#,  // refused: no x
        #"{"_id":"a","mode":"walk","schemaVersion":1,"startTime":"2026-11-26 10:00:00","x":1,"y":2}"#,
        #"{"_id":"a","bleScans":null,"mode":"walk","schemaVersion":1,"x":1,"y":2}"#,
        #"{"_id":"a","bleScans":[{"rssi":-70,"uuid":"U"}],"mode":"walk","schemaVersion":1,"x":1,"y":2}"#,
        #"{"_id":"a","bleScans":[{"address":"A","rssi":"-70"}],"mode":"walk","schemaVersion":1,"x":1,"y":2}"#,
        #"{"_id":"a","bleScans":[{"address":"A","rssi":true}],"mode":"walk","schemaVersion":1,"x":1,"y":2}"#,
        #"{"_id":"a","bleScans":[7],"mode":"walk","schemaVersion":1,"x":1,"y":2}"#,
        #"{"_id":"a","mode":"walk","schemaVersion":1,"wifiScans":[{"bssid":"B","rssi":-1}],"x":1,"y":2}"#,
        #"{"_id":"a", "mode":"walk","schemaVersion":1,"x":1,"y":2}"#,  // white space: not canonical
        #"{"mode":"walk","schemaVersion":1,"x":1,"y":2}"#,  // no id: one is made
        #"{"_id":"_design/v","mode":"walk","schemaVersion":1,"x":1,"y":2}"#,  // passed over
        #"{"_id":"a\u0041","mode":"walk","schemaVersion":1,"x":1,"y":2}"#,  // an escaped id
    ])
    func aLineNeedingWorkIsLeftToTheConvertingPath(text: String) {
        #expect(LegacyImport.contractDocument(Array(text.utf8)) == nil)
        #expect(LegacyImport.contractDocument(line(text)) == nil)
    }

    /// A line is held without a leading plain `_id` only where that leaves
    /// canonical text exactly when the line was; it reads back as it was.
    @Test func aLeadingIDIsLeftOutOnlyWhereTheRestKeepsItsOrder() throws {
        let cut = [
            #"{"_id":"a","mode":"walk"}"#, #"{"_id":"wälk 1","x":1}"#, Self.walkLine,
        ]
        let kept = [
            #"{"_id":"a","Mode":"walk"}"#,  // sorts before `_id`: the line is not canonical
            #"{"_id":"a","_id":"b"}"#, #"{"_id":"a","_rev":"1-x"}"#,  // another `_` member
            #"{"_id":"a\u0041","x":1}"#, #"{"_id":"a/b\/","x":1}"#,  // escapes
            #"{"_id":"a"}"#, #"{"_id":"a" ,"x":1}"#, #"{ "_id":"a","x":1}"#, #"{"_id":1,"x":1}"#, #"{"_id":"a"#,
        ]
        for text in cut + kept {
            let held = line(text)
            #expect(held.text == Array(text.utf8), "\(text)")
            #expect((held.id != nil) == cut.contains(text), "\(text)")
        }
        let walk = line(Self.walkLine)
        #expect(walk.id == "walk-00000001" && walk.held.first == UInt8(ascii: "{"))
        #expect(walk.held.count == Self.walkLine.utf8.count - #""_id":"walk-00000001","#.utf8.count)
    }

    /// The early refusal finds the key wherever it is, and only the whole key.
    @Test func textWithoutTheSchemaVersionKeyIsRefusedBeforeItIsChecked() {
        let key = #""schemaVersion":"#
        func names(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes(LegacyImport.namesSchemaVersion) }
        #expect(names(key))
        #expect(names("{" + key + "1}"))
        #expect(names(#"{"a":"VVV","# + key + "1}"))  // after other V's
        #expect(names("{" + key + #"1,"z":"VVV"}"#))  // before other V's
        // Wherever the key lies against the 4 KiB the search takes at a time from the end, among V's.
        for tail in [4070, 4079, 4080, 4081, 4082, 4090, 8166, 8167, 8168, 8169, 8170] {
            #expect(names("VV" + key + String(repeating: "V", count: tail)), "\(tail) bytes after the key")
            #expect(!names("VV" + String(key.dropLast()) + String(repeating: "V", count: tail)))
        }
        #expect(names(String(repeating: "x", count: 1000) + key))  // at the very end
        #expect(names(Self.walkLine))
        #expect(!names(""))
        #expect(!names(#""schemaVersion""#))  // no colon
        #expect(!names(#""schemaversion":"#))  // another key
        #expect(!names(#"{"schemaVersion ":1,"V":"schemaVersion"}"#))
        #expect(!names(String(key.dropFirst())))  // cut at the start
        #expect(!names(String(key.dropLast())))  // or at the end
        // A row without it is not taken, before its body is copied and skimmed.
        let row = Self.walkLine.replacingOccurrences(of: key, with: #""schemaVersiom":"#)
        #expect(LegacyImport.contractDocument(Array(row.utf8)) == nil)
    }

    /// Every one-member change of the walk line (a value replaced by
    /// another kind, a member taken out), at the top and inside each list's
    /// first entry: the shortcut never answers differently from the converting path.
    @Test func theShortcutNeverAnswersOtherwiseThanTheConvertingPath() throws {
        let base = try #require(try JSONParser.parse(Array(Self.walkLine.utf8)).objectValue)
        let replacements: [JSONValue?] = [nil, "1", "-70", "2026-11-26 10:00:00", "2026-11-26T10:00:00.000Z", 1.5, 0, -3,
                                          .null, true, [], [:], [["uuid": "U", "rssi": -1]], [["bssid": "B"]]]
        var variants: [JSONObject] = []
        for key in base.keys {
            for replacement in replacements {
                var changed = base
                changed[key] = replacement
                variants.append(changed)
            }
        }
        for list in ["bleScans", "wifiScans", "cellScans", "geolocation"] {
            let entries = try #require(base[list]?.arrayValue)
            let entry = try #require(entries[0].objectValue)
            for key in entry.keys + ["uuid", "bssid", "mac", "address"] {
                for replacement in replacements {
                    var changedEntry = entry
                    changedEntry[key] = replacement
                    var changed = base
                    changed[list] = .array([.object(changedEntry)] + entries.dropFirst())
                    variants.append(changed)
                    // After an unchanged copy, where every other member repeats the one before.
                    changed[list] = .array([.object(entry), .object(changedEntry)] + entries.dropFirst())
                    variants.append(changed)
                }
            }
        }
        var taken = 0
        for variant in variants {
            let text = CanonicalJSON.string(.object(variant))
            if LegacyImport.contractDocument(Array(text.utf8)) != nil { taken += 1 }
            let madeUpID = variant["_id"]?.stringValue?.isEmpty ?? true
            let fast = outcome(madeUpID: madeUpID) { () throws(LegacyImport.ImportError) in try converter.document(line(text)) }
            let slow = outcome(madeUpID: madeUpID) { () throws(LegacyImport.ImportError) in try converter.converted(line(text)) }
            #expect(fast == slow, "\(text)")
        }
        // Both paths were exercised: many variants taken as text, many converted.
        #expect(variants.count > 1_000 && taken > 250 && variants.count - taken > 250, "\(taken) of \(variants.count)")
    }

    /// Text the shortcut takes is canonical to the byte, inside the lists
    /// too, where the check reads each list once for both questions and
    /// passes over members repeating the entry before: every one-byte
    /// change of a line with repeating entries (a byte taken out, doubled,
    /// swapped with the next, or replaced by a space, comma, quote or
    /// backslash) is either refused or its text is exactly what the
    /// writer makes of it.
    @Test func whatTheShortcutTakesIsCanonicalToTheByte() throws {
        var walk = try #require(try JSONParser.parse(Array(Self.walkLine.utf8)).objectValue)
        let entry: JSONObject = ["address": "C5:D5:21:51:00:07", "rssi": -70, "time": 20, "txPower": -59, "name": "b\u{7}"]
        var next = entry
        next["rssi"] = -71
        next["time"] = 21
        walk["bleScans"] = [.object(entry), .object(next), .object(next), .object(entry)]
        let line = Array(CanonicalJSON.string(.object(walk)).utf8)
        #expect(LegacyImport.contractDocument(line) != nil)
        var changes: [[UInt8]] = []
        for at in line.indices {
            var removed = line
            removed.remove(at: at)
            var doubled = line
            doubled.insert(line[at], at: at)
            changes += [removed, doubled]
            if at + 1 < line.count {
                var swapped = line
                swapped.swapAt(at, at + 1)
                changes.append(swapped)
            }
            for byte in Array(" ,\"\\".utf8) where byte != line[at] {
                var replaced = line
                replaced[at] = byte
                changes.append(replaced)
            }
        }
        var taken = 0
        for text in changes {
            guard let document = LegacyImport.contractDocument(LegacyImport.Line(text, number: 1)) else {
                #expect(LegacyImport.contractDocument(text) == nil)
                continue
            }
            #expect(LegacyImport.contractDocument(text) == document)
            taken += 1
            guard case .canonicalText(let body, let members) = document.content else {
                Issue.record("taken, but not as text")
                continue
            }
            var parsed = try #require(try JSONParser.parse(text).objectValue, "\(String(decoding: text, as: UTF8.self))")
            #expect(parsed["_id"] == .string(document.id))
            parsed["_id"] = nil
            #expect(body == CanonicalJSON.bytes(.object(parsed)), "\(String(decoding: text, as: UTF8.self))")
            #expect(members.map(\.key) == parsed.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            for member in members {
                #expect(try JSONParser.parse(Array(body[member.value])) == parsed[member.key])
                if let entries = parsed[member.key]?.arrayValue { #expect(member.node.count == entries.count) }
            }
        }
        // Changes inside values (a digit doubled, a name's letter) stay canonical and are taken.
        #expect(taken > 100 && changes.count - taken > 1_000, "\(taken) of \(changes.count)")
    }

    /// Rows of a couch-view file or CouchDB dump, and lines of a file read
    /// whole: bodies in contract form are taken as text, with the row's `id`
    /// when they have no `_id`, and every document is the one the whole
    /// reading (`parse`, the converting path) makes.
    @Test(arguments: ["value", "doc"])
    func rowsInContractFormAreTakenAsText(bodyKey: String) throws {
        let walk = try #require(try JSONParser.parse(Array(Self.walkLine.utf8)).objectValue)
        var body = walk
        body["_id"] = nil
        var renamed = walk
        renamed["_id"] = "own-id"
        let legacy: JSONValue = ["x": "3", "y": 4, "bleScans": [["uuid": "U", "rssi": "-70"]]]
        let rows: [String] = [
            #"{"id":"row-1","key":null,"\#(bodyKey)":\#(CanonicalJSON.string(.object(body)))}"#,
            #"{"id":"row-2","key":null,"\#(bodyKey)":\#(CanonicalJSON.string(.object(renamed)))}"#,
            #"{"id":"row-3","key":null,"\#(bodyKey)":\#(CanonicalJSON.string(legacy))}"#,
            #"{"id":"_design/v","key":null,"\#(bodyKey)":\#(CanonicalJSON.string(.object(body)))}"#,
            #"{"id":"row\u002d5","key":null,"\#(bodyKey)":\#(CanonicalJSON.string(.object(body)))}"#,
        ]
        let data = Data(("{\"rows\":[\n" + rows.joined(separator: ",\n") + "\n]}\n").utf8)
        let at = Date(timeIntervalSince1970: 1_800_000_000), zone = TimeZone(identifier: "Europe/Prague")!
        let source = try LegacyImport.Source(data, source: "dump.json", timeZone: zone, importedAt: at)
        let whole = try LegacyImport.parse(data, source: "dump.json", timeZone: zone, importedAt: at)
        var read: [NewDocument] = []
        for i in 0..<source.count { if let d = try source.document(at: i) { read.append(d) } }
        #expect(read.map(\.id) == ["row-1", "own-id", "row-3", "row-5"])
        #expect(read == whole.documents)
        for (i, document) in read.enumerated() {
            let asText = if case .canonicalText = document.content { true } else { false }
            #expect(asText == [true, true, false, false][i], "row \(i + 1)")  // row-5's id has an escape: parsed
        }
    }

    @Test func linesOfAFileReadWholeAreTakenAsText() throws {
        let data = Data((Self.walkLine + "\n" + #"{"_id":"b","x":"1","y":2}"# + "\n").utf8)
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let source = try LegacyImport.Source(data, source: "d.jsonl", importedAt: at)
        let whole = try LegacyImport.parse(data, source: "d.jsonl", importedAt: at)
        let read = try (0..<source.count).compactMap { i throws(LegacyImport.ImportError) in try source.document(at: i) }
        #expect(read == whole.documents && read.count == 2)
        if case .canonicalText = read[0].content {} else { Issue.record("the contract line was parsed") }
    }
}
