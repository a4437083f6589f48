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

    /// Where the two readers fprint had (datasets', beacon sheets') differed, the one reader decides.
    @Test func paddingAroundQuotesIsTakenAQuoteInsideAnUnquotedFieldIsNot() throws {
        let padded = try records(csv("a, \"b\" ,c\n"))
        #expect(padded.map(\.fields) == [["a", "b", "c"]])
        let stray = datasetError { try csv("a,b\n1,ab\"c\n").forEachRecord { _ in true } }
        #expect(stray?.description == "t.csv: line 2, column 2: a quote inside an unquoted field (quote the whole field)")
        // A row of empty fields is a record (a spacer row the caller may skip); a blank line is not.
        let blanks = try records(csv("a,b\n,\n\n1,2\n"))
        #expect(blanks.map(\.line) == [1, 2, 4] && blanks[1].fields == ["", ""])
    }

    @Test func semicolonsAndTabsAreDelimitersWhenTold() throws {
        let semicolons = Array("name;x;y\n\"a;b\";1,5;2\n".utf8)
        #expect(CSVFile.delimiter(ofHeader: semicolons) == CSVFile.semicolon)
        let rows = try records(CSVFile(name: "t.csv", bytes: semicolons, delimiter: CSVFile.semicolon))
        #expect(rows.map(\.fields) == [["name", "x", "y"], ["a;b", "1,5", "2"]])
        let tabs = Array("name\tx\na,b\t1\n".utf8)
        #expect(CSVFile.delimiter(ofHeader: tabs) == CSVFile.tab)
        #expect(try records(CSVFile(name: "t.csv", bytes: tabs, delimiter: CSVFile.tab)).last?.fields == ["a,b", "1"])
        #expect(CSVFile.delimiter(ofHeader: Array("one column\n1\n".utf8)) == CSVFile.comma)
    }

    @Test func headerAndEmptyFile() throws {
        #expect(try csv("x,y\n1,2\n").header() == ["x", "y"])
        #expect(datasetError { _ = try csv("").header() }?.description == "t.csv: the file is empty")
    }
}
