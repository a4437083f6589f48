import FPCore

extension Fingerprint {
    /// What selections and train/test evaluation read beside the samples:
    /// none of it changes leave-one-out, which reads `x`, `y`, `level` and
    /// the samples only. Every key is optional and read leniently: a value
    /// of another type counts as absent, so documents that evaluated before
    /// still do.
    package struct Labels: Sendable, Equatable {
        /// `position.x/y`: the exact point (map units, or metres when `inMetres`).
        package var exactX: Double?
        package var exactY: Double?
        /// `position.unit == "m"` (imported datasets: their maps are in metres).
        package var inMetres = false
        /// `floor`, a whole number (imported datasets).
        package var floor: Int?
        /// `tags` (string values only), in key order.
        package var tags: [Tag] = []
        package var sessionId: String?
        /// `imported.dataset`.
        package var dataset: String?
        /// `createdAt` as ms since 1970, 0 when absent.
        package var createdAtMs: Int64 = 0
        /// `imported.transmitters`: the table's every transmitter column, as eval ids.
        package var columns: DeclaredColumns?

        package init() {}

        package func tag(_ key: String) -> String? { tags.first { $0.key == key }?.value }
    }

    package struct Tag: Sendable, Equatable {
        package var key: String
        package var value: String
        package init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }
}

/// A table's transmitter columns as eval ids (`WIFI:WAP001`…), shared by
/// every fingerprint of the table (60,000 documents name the same 620).
package final class DeclaredColumns: Sendable, Equatable {
    package let ids: [String]
    package init(ids: [String]) { self.ids = ids }
    package static func == (a: DeclaredColumns, b: DeclaredColumns) -> Bool { a === b || a.ids == b.ids }

    /// From `imported.transmitters` and `imported.radio`; nil for anything else.
    package static func from(_ value: JSONValue?, radio: String?) -> DeclaredColumns? {
        guard let value, let names = TransmitterColumns.decode(value) else { return nil }
        let ble = radio == "ble"
        return DeclaredColumns(ids: names.map { ble ? Fingerprint.bleID($0) : Fingerprint.wifiID($0) })
    }
}

extension Fingerprint.Labels {
    /// From a parsed body (the full readers).
    package init(body: JSONValue) {
        self.init()
        if case .object(let p)? = body["position"], let x = p["x"]?.doubleValue, let y = p["y"]?.doubleValue {
            exactX = x
            exactY = y
            inMetres = p["unit"]?.stringValue == "m"
        }
        floor = body["floor"]?.intValue.flatMap { abs($0) < 1_000_000 ? Int($0) : nil }
        if case .object(let t)? = body["tags"] {
            tags = t.members.compactMap { m in m.value.stringValue.map { Fingerprint.Tag(m.key, $0) } }
        }
        sessionId = body["sessionId"]?.stringValue
        if case .object(let imported)? = body["imported"] {
            dataset = imported["dataset"]?.stringValue
            columns = DeclaredColumns.from(imported["transmitters"], radio: imported["radio"]?.stringValue)
        }
        createdAtMs = body["createdAt"]?.stringValue.flatMap(ISOTime.milliseconds) ?? 0
    }
}

extension Fingerprint {
    /// Where it was taken, as exactly as the document says: `position.x/y`
    /// when there (an imported dataset's metres, a walk's interpolated
    /// point), else the whole map units of `x`/`y`. Plots draw this.
    package var exactPoint: (x: Double, y: Double) {
        (labels.exactX ?? Double(x), labels.exactY ?? Double(y))
    }
}
