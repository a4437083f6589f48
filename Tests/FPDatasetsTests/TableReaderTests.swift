import FPDatasets
import Foundation
import Testing

@Suite struct TableReaderTests {
    /// ble-flat-robot's calibration_df.csv, as its columns are.
    static let flat = TableMapping(x: "x", y: "y", time: "ts", transmitterPrefixes: ["rssi_"], radio: .ble)

    @Test func bleFlatRobotRows() throws {
        let table = try TableReader.read(try CSVFile.read(path: fixture("ble-flat-mini.csv"), name: "flat.csv"), mapping: Self.flat)
        #expect(table.transmitters == ["rssi_1", "rssi_2", "rssi_3", "rssi_4", "rssi_5", "rssi_6"])
        #expect(table.radio == .ble)
        #expect(table.rows.count == 4)
        let first = table.rows[0]
        #expect(first.line == 2 && first.row == 1)
        #expect(first.x == 4.22260261974962 && first.y == 3.6435246624067106)
        #expect(first.timeMs == 1_627_997_452_227 && first.timeText == "1.627997452227e+18")
        #expect(first.readings.map(\.rssi) == [-54, -56.49533053638751, -54, -49.554895325546866, -64, -64.37137961520602])
        // The pandas index (empty header) and the heading are kept as tags, in file order.
        #expect(first.tags == [.init("column1", "0"), .init("heading", "4.1961192396396045")])
        // Empty cells are not heard.
        #expect(table.rows[2].readings == [.init(transmitter: 1, rssi: -70.5), .init(transmitter: 3, rssi: -60),
                                          .init(transmitter: 4, rssi: -75.25)])
        #expect(table.rows[3].readings.map(\.transmitter) == [0, 2, 5])
    }

    @Test func ujiIndoorLocSingleFile() throws {
        var mapping = TableMapping(x: "LONGITUDE", y: "LATITUDE", floor: "FLOOR", time: "TIMESTAMP", transmitterPrefixes: ["WAP"],
                                   notHeard: 100)
        mapping.timeFormat.unit = .s
        let table = try TableReader.read(try CSVFile.read(path: fixture("ujiindoorloc-mini.csv")), mapping: mapping)
        #expect(table.transmitters == ["WAP001", "WAP002", "WAP003", "WAP004"])
        #expect(table.rows.map(\.floor) == [2, 2, 2, 3, 0])
        #expect(table.rows[0].readings == [.init(transmitter: 0, rssi: -97), .init(transmitter: 2, rssi: -62)])
        #expect(table.rows[0].x == -7541.2643 && table.rows[0].timeMs == 1_371_713_733_000)
        #expect(table.rows[0].tags.map(\.key) == ["BUILDINGID", "SPACEID", "RELATIVEPOSITION", "USERID", "PHONEID"])
        #expect(table.rows[4].tags.first { $0.key == "PHONEID" }?.value == "13")
    }

    @Test func aMappingTheHeaderLacksIsNamed() {
        let header = ["WAP001", "x", "y"]
        let unknown = datasetError {
            _ = try TableReader.columns(header: header, mapping: TableMapping(x: "LONGITUDE", y: "y", transmitterPrefixes: ["WAP"]),
                                        file: "f.csv")
        }
        #expect(unknown?.description == "f.csv: line 1: --x-column 'LONGITUDE' is not a column (columns: WAP001, x, y)")
        let none = datasetError {
            _ = try TableReader.columns(header: header, mapping: TableMapping(x: "x", y: "y", transmitterPrefixes: ["rssi_"]),
                                        file: "f.csv")
        }
        #expect(none?.description == "f.csv: line 1: no column starts with 'rssi_' (columns: WAP001, x, y)")
    }

    /// Each malformed row names its file, line and column (1-based, as a spreadsheet counts).
    @Test(arguments: [
        ("x,y,WAP1\n1,2,-70\n1,2\n", "t.csv: line 3: 2 fields, the header has 3"),
        ("x,y,WAP1\n1,two,-70\n", "t.csv: line 2, column 2: y 'two' is not a number"),
        ("x,y,WAP1\n1,,-70\n", "t.csv: line 2, column 2: no y (empty cell)"),
        ("x,y,WAP1\n1,2,-7o\n", "t.csv: line 2, column 3: RSSI '-7o' is not a number"),
        ("x,y,WAP1\n1,2,100\n", "t.csv: line 2, column 3: RSSI '100' is outside -200…30 dBm; if it means not heard, say --not-heard 100"),
    ])
    func malformedRows(text: String, message: String) {
        let mapping = TableMapping(x: "x", y: "y", transmitterPrefixes: ["WAP"])
        #expect(datasetError { _ = try TableReader.read(csv(text), mapping: mapping) }?.description == message)
    }

    @Test func anEmptyCellIsAnErrorWhenNotHeardHasAValue() {
        let mapping = TableMapping(x: "x", y: "y", floor: "f", transmitterPrefixes: ["WAP"], notHeard: 100)
        #expect(datasetError { _ = try TableReader.read(csv("x,y,f,WAP1\n1,2,3,\n"), mapping: mapping) }?.description
            == "t.csv: line 2, column 4: empty cell (not heard is written 100 here; --not-heard empty says otherwise)")
        #expect(datasetError { _ = try TableReader.read(csv("x,y,f,WAP1\n1,2,3.5,100\n"), mapping: mapping) }?.description
            == "t.csv: line 2, column 3: floor '3.5' is not a whole number")
        #expect(try! TableReader.read(csv("x,y,f,WAP1\n1,2,3,100\n"), mapping: mapping).rows[0].readings.isEmpty)
    }
}
