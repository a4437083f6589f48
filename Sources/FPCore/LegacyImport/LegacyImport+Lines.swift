import Foundation

extension LegacyImport {
    /// A JSON lines file read a chunk at a time: only the lines of the batch
    /// being converted are held, so importing a 456 MB dump takes as much
    /// memory as a 5 MB one (reading it whole took the file's size and more).
    /// `open` answers nil when the file is not JSON lines for sure (its first
    /// line is not one whole value, or it has one line only): such a file is
    /// read whole by `Source`, with the same results and errors as before.
    ///
    /// Each line is converted as `Source` converts it; the import being one
    /// transaction, a bad line anywhere stores nothing. What differs: a line
    /// is judged when it is reached, so of a file with a document that does
    /// not convert on line 3 and broken JSON on line 900, line 3 is named.
    public final class LineStream {
        public let source: String
        let handle: FileHandle
        let timeZone: TimeZone
        let stamp: JSONValue
        /// Bytes read and not yet handed out, from `start`.
        let buffer = ReadBuffer(chunk: LineStream.chunk)
        var start = 0
        var atEnd = false
        /// The 1-based number of the line that begins at `start`.
        var lineNumber = 1

        static let chunk = 1 << 20

        init(handle: FileHandle, source: String, timeZone: TimeZone, importedAt: Date) {
            self.handle = handle
            self.source = source
            self.timeZone = timeZone
            stamp = LegacyImport.stamp(.jsonl, source: source, at: importedAt)
        }

        /// The stream of a JSON lines file at `path`, nil when the file has
        /// another shape. Reading failures throw.
        public static func open(path: String, source: String, timeZone: TimeZone = .current,
                                importedAt: Date = Date()) throws(ImportError) -> LineStream? {
            guard let handle = FileHandle(forReadingAtPath: path) else { throw ImportError("\(source): cannot read the file (permission?)") }
            let stream = LineStream(handle: handle, source: source, timeZone: timeZone, importedAt: importedAt)
            // JSON lines when the first non-empty line is one whole value and another non-empty line follows.
            // The second line is looked for first: a file of one line (a couch-view file, a
            // document) is refused without skimming it here and again when it is read whole.
            guard let first = try stream.peekLine(after: nil),
                  try stream.peekLine(after: first.upperBound) != nil,
                  JSONSkim.isValue(stream.buffer.bytes, in: first) else { return nil }
            return stream
        }

        /// The trimmed range of the first non-empty line from `offset` (or `start`),
        /// reading more of the file as needed; nil at the end of the file.
        private func peekLine(after offset: Int?) throws(ImportError) -> Range<Int>? {
            var from = offset ?? start
            // The search goes on where it stopped: searched again from the
            // line's start after each read, a 92 MB file of one line took
            // 4 GB of memchr (~0.4 s) to be found not to be JSON lines.
            var searched = from
            while true {
                if let end = newline(from: searched) ?? (atEnd ? buffer.count : nil) {
                    let line = Self.trimmed(buffer.bytes, from..<end)
                    if !line.isEmpty { return line }
                    if end == buffer.count { return nil }
                    from = end + 1
                    searched = from
                    continue
                }
                searched = buffer.count
                try readMore()  // `start` is 0 while peeking: offsets stay valid
            }
        }

        private func readMore() throws(ImportError) {
            guard !atEnd else { return }
            // Keep only what is not handed out yet.
            buffer.drop(start)
            start = 0
            do {
                atEnd = try buffer.fill(from: handle.fileDescriptor) == 0
            } catch {
                throw ImportError("\(source): cannot read the file (\(error.reason))")
            }
        }

        /// Up to `count` non-empty lines, trimmed, with their 1-based numbers; [] at the end.
        public func nextLines(_ count: Int) throws(ImportError) -> [Line] {
            var lines: [Line] = []
            while lines.count < count {
                guard let end = try lineEnd() else { break }
                let line = Self.trimmed(buffer.bytes, start..<end)
                if !line.isEmpty { lines.append(Line(copying: UnsafeBufferPointer(rebasing: buffer.bytes[line]), number: lineNumber)) }
                start = min(end + 1, buffer.count)
                lineNumber += 1
            }
            return lines
        }

        /// Where the line at `start` ends (its newline, or the end of the file); nil when nothing is left.
        private func lineEnd() throws(ImportError) -> Int? {
            var searchedPastStart = 0  // from `start`, which a read may move
            while true {
                if let end = newline(from: start + searchedPastStart) { return end }
                if atEnd { return start < buffer.count ? buffer.count : nil }
                searchedPastStart = buffer.count - start
                try readMore()
            }
        }

        /// The first newline in the buffer from `k` (memchr: lines of
        /// hundreds of KB are searched at memory speed).
        private func newline(from k: Int) -> Int? {
            let b = buffer.bytes
            guard k < b.count, let base = b.baseAddress, let found = memchr(base + k, 0x0A, b.count - k) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }

        /// What converts the lines, from any thread.
        public var converter: LineConverter { LineConverter(source: source, timeZone: timeZone, stamp: stamp) }

        static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
            var a = range.lowerBound, b = range.upperBound
            while a < b && Source.isSpace(bytes[a]) { a += 1 }
            while b > a && Source.isSpace(bytes[b - 1]) { b -= 1 }
            return a..<b
        }
    }
}

extension LegacyImport {
    /// Converts the lines of one `LineStream`: each as `Source` converts a line.
    public struct LineConverter: Sendable {
        let source: String
        let timeZone: TimeZone
        let stamp: JSONValue

        /// One line in contract form; nil when passed over (a design document).
        public func document(_ line: Line) throws(ImportError) -> NewDocument? {
            if let unchanged = LegacyImport.contractDocument(line) { return unchanged }
            return try converted(line)
        }

        /// `document` without the shortcut for lines already in contract form.
        func converted(_ line: Line) throws(ImportError) -> NewDocument? {
            let value: JSONValue
            do { value = try JSONParser.parse(line.text) } catch {
                throw ImportError("\(source): line \(line.number), column \(error.column): not valid JSON (\(error.reason))")
            }
            return try LegacyImport.document(value, rowID: nil, path: "\(source): line \(line.number)", timeZone: timeZone,
                                             stamp: stamp)
        }
    }
}
