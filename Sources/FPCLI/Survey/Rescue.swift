import FPConfig
import FPCore
import FPStore
import Foundation
import SystemPackage

/// A measurement that was recorded but could not be stored is never thrown
/// away: its documents go to a rescue file that `fprint import` reads back.
enum Rescue {
    /// Stores `documents`, or writes them to a rescue file and fails with its
    /// path and the import line. Before recording, `preflight` has already
    /// proved the store writable; this covers what still goes wrong (a disk
    /// that filled during the walk, a file damaged meanwhile).
    static func insert(_ documents: [NewDocument], into store: SQLiteDocumentStore, _ ws: Workspace) throws
        -> [StoredDocument]
    {
        do {
            return try store.insert(documents)
        } catch {
            let lines = documents.map { doc -> String in
                // Attachment bytes go inline: the file must hold the whole measurement.
                var body = Attachments.inlined(doc.body) { doc.attachmentData[$0] ?? [] }
                body["_id"] = .string(doc.id)
                return CanonicalJSON.string(body)
            }
            throw rescue(lines: lines, why: error.description, ws)
        }
    }

    /// The same for one document given as the canonical text this process
    /// wrote and its members (`SQLiteDocumentStore.insert(id:ownText:members:)`).
    static func insert(id: String, ownText text: [UInt8], members: [JSONSkim.Member], into store: SQLiteDocumentStore,
                       _ ws: Workspace) throws {
        do {
            _ = try store.insert(id: id, ownText: text, members: members)
        } catch {
            // `_id` first, then the body's members: a line `fprint import` reads.
            var line = Array(#"{"_id":"#.utf8)
            CanonicalJSON.write(.string(id), into: &line)
            if text.count > 2 { line.append(UInt8(ascii: ",")) }
            line.append(contentsOf: text.dropFirst())
            throw rescue(lines: [String(decoding: line, as: UTF8.self)], why: error.description, ws)
        }
    }

    /// Writes `lines` (one document each) to a new rescue file: the failure
    /// naming it and the import line, or saying the measurement is lost.
    static func rescue(lines: [String], why: String, _ ws: Workspace) -> CommandFailure {
        let text = lines.joined(separator: "\n") + "\n"
        let name = "fprint-rescue-\(ISOTime.fileStamp())-\(getpid()).jsonl"
        let folders = [ws.paths.dataDirectory, FileManager.default.currentDirectoryPath]
        for folder in folders {
            let path = (folder as NSString).appendingPathComponent(name)
            if writePrivate(path, Data(text.utf8)) {
                return CommandFailure("""
                    \(ws.databasePath): could not store the measurement (\(why)); \
                    its \(Terminal.counted(lines.count, "document")) \(lines.count == 1 ? "is" : "are") saved in \(path). Bring them back with: \
                    fprint import --db \(shellQuoted(ws.databasePath)) \(shellQuoted(path))
                    """, .ioError)
            }
        }
        return CommandFailure("\(ws.databasePath): could not store the measurement (\(why)), and no rescue file could be written in \(folders.joined(separator: " or ")): the measurement is lost", .ioError)
    }

    /// Proves the store takes writes before anything is recorded.
    static func preflight(_ store: SQLiteDocumentStore, _ ws: Workspace) throws {
        do {
            try store.checkWritable()
        } catch let e as StoreError {
            throw CommandFailure("\(ws.databasePath): the database cannot take a measurement (\(e.description)); nothing was recorded. `fprint check` tells what is wrong", .ioError)
        }
    }

    /// A new file with mode 0600 (documents carry device ids and places),
    /// fsynced, and its folder fsynced: a rescue file that is reported must
    /// keep its name through a power cut.
    static func writePrivate(_ path: String, _ data: Data) -> Bool {
        guard (try? Files.writeNew(data, to: path, permissions: 0o600)) != nil else { return false }
        return DirectorySync.sync(containing: path) == 0
    }

    static func shellQuoted(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:=@".contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension ISOTime {
    /// UTC time for file names: 20261123T114512Z.
    static func fileStamp(_ date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
