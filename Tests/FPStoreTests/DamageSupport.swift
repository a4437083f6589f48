import FPCore
import FPHex
import FPTestSupport
import Foundation
import Testing

@testable import FPStore

/// Real database files with real damage: bytes overwritten on disk, as a
/// failing disk or a stray write would leave them.
enum Damage {
    /// A walk-like body of ~60 KB that compresses poorly (seeded noise), so its
    /// frame spans several overflow pages and can be found on disk.
    static func bulkyBody(_ n: Int) -> JSONValue {
        var state = UInt64(n) &* 0x9E37_79B9_7F4A_7C15 | 1
        let noise = (0..<3000).map { _ -> JSONValue in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return .string(String(state, radix: 36))
        }
        var body = measurementBody(createdAt: String(format: "2026-11-22T06:%02d:00.000Z", n), ble: 3)
        body["noise"] = .array(noise)
        return body
    }

    /// `count` documents in a new database file; returns the path and the ids in file order.
    static func database(in folder: URL, count: Int = 17) throws -> (path: String, ids: [String]) {
        let path = folder.appendingPathComponent("damaged.sqlite").path
        let store = try SQLiteDocumentStore(path: path)
        let ids = (0..<count).map { String(format: "doc-%02d", $0) }
        try store.insert(ids.enumerated().map { NewDocument(id: $1, body: bulkyBody($0)) })
        try store.close()
        return (path, ids)
    }

    /// The file offset of `id`'s stored frame (middle of it), found by its bytes.
    static func offsetOfBody(_ id: String, in path: String) throws -> Int {
        let store = try SQLiteDocumentStore(path: path)
        let hex = try #require(try store.rawSQL("SELECT hex(body) FROM revisions WHERE doc_id = '\(id)'").first?[0] ?? nil)
        try store.close()
        let frame = try #require(Hex.bytes(hex))
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let probe = frame[frame.count / 2..<frame.count / 2 + 64]
        let range = try #require(file.range(of: Data(probe)), "the frame of \(id) is not in the file")
        return range.lowerBound
    }

    /// Overwrites up to 2 KB around `offset`, inside its page and past the
    /// page's first 4 bytes (an overflow page's next-page pointer): the body's
    /// bytes change, the file's structure does not.
    static func scribbleBody(_ path: String, at offset: Int) throws {
        let page = offset - offset % Schema.newPageSize
        let start = max(page + 4, offset - 1024)
        try overwrite(path, at: start, count: min(page + Schema.newPageSize, start + 2048) - start)
    }

    static func overwrite(_ path: String, at offset: Int, count: Int, byte: UInt8 = 0x5A) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(repeating: byte, count: count))
        try handle.close()
    }

    static var isRoot: Bool { getuid() == 0 }

    /// Runs a command; its exit status.
    @discardableResult
    static func shell(_ arguments: [String]) async throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        return try await p.startAwaitingExit().value()
    }
}
