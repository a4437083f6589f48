import FPCore
import GRDB

/// A row of `list`: the summary columns of `documents`, named once here with
/// the decoder that reads them, so the SELECT and the positions the decoder
/// reads cannot drift apart. Read by position, not by name: `list` decodes
/// up to 100,000 rows and a name lookup scans the columns each time.
struct ListedSummary: FetchableRecord {
    static let columns = ["id", "rev"] + Summary.columnNames + ["synced", "deleted"]
    static let selection = columns.joined(separator: ", ")

    let summary: DocumentSummary

    init(row: Row) {
        summary = DocumentSummary(
            id: row[0], rev: row[1], createdAtMs: row[2], createdAt: row[3], level: row[4],
            mode: row[5], x: row[6], y: row[7], sessionId: row[8], seq: row[9], bleCount: row[10],
            wifiCount: row[11], cellCount: row[12], geoCount: row[13], synced: row[14], deleted: row[15])
    }
}

extension Summary {
    /// The summary columns a revision sets, in the order of `columnValues`.
    static let columnNames = [
        "created_at_ms", "created_at", "level", "mode", "x", "y", "session_id", "walk_seq",
        "ble_count", "wifi_count", "cell_count", "geo_count",
    ]

    /// `name = ?` for each column, for an UPDATE.
    static let columnAssignments = columnNames.map { "\($0) = ?" }.joined(separator: ", ")
    /// The columns, and a `?` for each, for an INSERT.
    static let columnList = columnNames.joined(separator: ", ")
    static let columnPlaceholders = columnNames.map { _ in "?" }.joined(separator: ", ")

    var columnValues: StatementArguments {
        [createdAtMs, createdAt, level, mode, x, y, sessionId, walkSeq, bleCount, wifiCount, cellCount, geoCount]
    }
}
