import FPDatasets
import Testing

@Suite struct CSVFileTests {
    @Test func fieldsQuotesLineEndsAndBlankLines() throws {
        let file = csv("\u{FEFF}a,b,c\r\n1,\"x, \"\"y\"\"\",\n\n\"two\nlines\",,3\rlast")
        let got = try records(file)
        #expect(got.map(\.line) == [1, 2, 4, 6])
        #expect(got[0].fields == ["a", "b", "c"])
        #expect(got[1].fields == ["1", "x, \"y\"", ""])
        #expect(got[2].fields == ["two\nlines", "", "3"])
        #expect(got[3].fields == ["last"])
    }

    @Test func numbers() throws {
        var values: [Double?] = []
        try csv("-90,100, -71 ,12.91385188,1.627997452227e+18,abc,,-0.5,+3\n").forEachRecord { r in
            values = (0..<r.count).map { r.number($0) }
            return true
        }
        #expect(values == [-90, 100, -71, 12.91385188, 1.627997452227e+18, nil, nil, -0.5, 3])
    }

    @Test func brokenQuotesNameTheirLineAndColumn() {
        let open = datasetError { try csv("a,b\n1,\"never closed\n").forEachRecord { _ in true } }
        #expect(open?.description == "t.csv: line 2, column 2: a quoted field is not closed before the end of the file")
        let after = datasetError { try csv("a,b\n1,\"x\"y\n").forEachRecord { _ in true } }
        #expect(after?.description == "t.csv: line 2, column 2: text after the closing quote of a field")
    }

    @Test func aRecordsErrorStopsTheReadAndIsThrownAsItIs() {
        var seen = 0
        let error = datasetError {
            try csv("1\n2\n3\n").forEachRecord { (r) throws(DatasetError) in
                seen += 1
                if r.line == 2 { throw r.error(0, "bad") }
                return true
            }
        }
        #expect(seen == 2)
        #expect(error == DatasetError(file: "t.csv", line: 2, column: 1, "bad"))
    }

    @Test func headerAndEmptyFile() throws {
        #expect(try csv("x,y\n1,2\n").header() == ["x", "y"])
        #expect(datasetError { _ = try csv("").header() }?.description == "t.csv: the file is empty")
    }
}
