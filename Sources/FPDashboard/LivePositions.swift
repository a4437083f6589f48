import FPCore
import Foundation

/// One position `fprint track --publish` sent, as the gateway keeps it.
package struct LivePosition: Sendable, Equatable {
    /// The board's own order: each accepted position gets the next number.
    package var sequence: Int64
    /// Who is walking: the authenticated user, and the device they named ("alice", "alice/tablet-2").
    package var publisher: String
    package var map: String
    /// Map units, as the documents' `x`, `y`.
    package var x: Double
    package var y: Double
    package var accuracyM: Double?
    /// When the position was taken (ISO 8601, as the publisher sent it).
    package var time: String
    /// When this gateway received it (how long ago a publisher was last heard).
    package var receivedAt: ContinuousClock.Instant = .now

    package init(sequence: Int64 = 0, publisher: String = "", map: String, x: Double, y: Double, accuracyM: Double?,
                 time: String) {
        self.sequence = sequence
        self.publisher = publisher
        self.map = map
        self.x = x
        self.y = y
        self.accuracyM = accuracyM
        self.time = time
    }

    /// A device name a publisher may add to its user's: 1–64 letters, digits, '.', '_' or '-'.
    package static func isDeviceName(_ text: String) -> Bool {
        (1...64).contains(text.count)
            && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0) }
    }

    package var json: JSONValue {
        ["seq": .int(sequence), "publisher": .string(publisher), "map": .string(map), "x": .double(x), "y": .double(y),
         "accuracy_m": accuracyM.map(JSONValue.double) ?? .null, "time": .string(time)]
    }
}

/// Where people are now: the positions published to the gateway, kept in
/// memory only (they are not measurements and are never stored or
/// replicated) and bounded: the last `perPublisher` of each publisher, and
/// `maxPublishers` publishers (the one silent the longest goes first).
/// Dashboard streams wait on it for the next position. A publisher is on one
/// map at a time (its newest position's): one who moved to another floor,
/// or stopped, has left the map it was on.
package actor LivePositions {
    package static let perPublisher = 600
    package static let maxPublishers = 32

    private var tracks: [String: [LivePosition]] = [:]
    /// When each publisher was last heard from, on this server's clock.
    private var heard: [String: ContinuousClock.Instant] = [:]
    private(set) var sequence: Int64 = 0
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    /// Publishers that stopped, with the sequence they stopped at, the map
    /// they were on and the end of their track (the last few): a view that
    /// had not yet read a track's last positions when it stopped still shows
    /// them before the departure.
    private var departures: [(sequence: Int64, publisher: String, map: String, tail: ArraySlice<LivePosition>)] = []
    /// The positions kept with a departure: a POST carries at most 100.
    static let departureTail = 100
    private var nextWaiter: UInt64 = 0

    package init() {}

    /// Keeps `positions` (each given the next sequence) for `publisher`; wakes waiting streams.
    package func publish(_ positions: [LivePosition], by publisher: String) {
        guard !positions.isEmpty else { return }
        var track = tracks[publisher] ?? []
        if track.isEmpty, tracks.count >= Self.maxPublishers,
           let silent = tracks.min(by: { lastSequence($0.value) < lastSequence($1.value) }) {
            tracks[silent.key] = nil
            heard[silent.key] = nil
        }
        let now = ContinuousClock.now
        for var position in positions {
            sequence += 1
            position.sequence = sequence
            position.publisher = publisher
            position.receivedAt = now
            track.append(position)
        }
        if track.count > Self.perPublisher { track.removeFirst(track.count - Self.perPublisher) }
        tracks[publisher] = track
        heard[publisher] = .now
        for id in Array(waiters.keys) { wake(id) }
    }

    /// A publisher has stopped publishing (`fprint track` ended): it leaves its map.
    package func stop(_ publisher: String) {
        guard let track = tracks.removeValue(forKey: publisher), let last = track.last else { return }
        heard[publisher] = nil
        sequence += 1
        departures.append((sequence, publisher, last.map, track.suffix(Self.departureTail)))
        if departures.count > 256 { departures.removeFirst(departures.count - 256) }
        for id in Array(waiters.keys) { wake(id) }
    }

    /// Positions on `map` after `sequence`, oldest first; the publishers who
    /// left it since (moved to another map, or stopped); and the sequence
    /// they reach. A track is in sequence order, so only its newest end is
    /// read (every open live view asks this at every published position).
    package func after(_ sequence: Int64, map: String) -> (positions: [LivePosition], left: [String], reached: Int64) {
        var found: [LivePosition] = []
        var left = Set<String>()
        for departure in departures where departure.sequence > sequence && departure.map == map {
            left.insert(departure.publisher)
            found += departure.tail.filter { $0.sequence > sequence && $0.map == map }
        }
        for (publisher, track) in tracks {
            let fresh = track.reversed().prefix { $0.sequence > sequence }
            found += fresh.filter { $0.map == map }
            // Now elsewhere, and was here: it left.
            if let newest = fresh.first, newest.map != map, track.contains(where: { $0.map == map }) { left.insert(publisher) }
        }
        return (found.sorted { $0.sequence < $1.sequence }, left.sorted(), self.sequence)
    }

    /// Each publisher's latest position, newest first; with `map`, only
    /// those whose latest position is on it (who is there now).
    package func latest(map: String? = nil) -> [LivePosition] {
        tracks.values.compactMap(\.last).filter { map == nil || $0.map == map }.sorted { $0.sequence > $1.sequence }
    }

    /// Where a live view starts: the latest position on `map` of each
    /// publisher heard from within `recent` (someone who stopped an hour ago
    /// is not walking now), oldest first, and the sequence they reach.
    package func current(map: String, recent: Duration = .seconds(600)) -> (positions: [LivePosition], reached: Int64) {
        let since = ContinuousClock.now - recent
        return (latest(map: map).reversed().filter { (heard[$0.publisher] ?? since) > since }, sequence)
    }

    /// How many positions each publisher has kept.
    package func counts() -> [String: Int] { tracks.mapValues(\.count) }

    /// Returns once a position past `sequence` is there, after `timeout`, or on cancellation.
    package func wait(after sequence: Int64, timeout: Duration) async {
        if self.sequence > sequence { return }
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.wake(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A cancellation that came before this waiter was listed found nothing to wake.
                if Task.isCancelled { continuation.resume() } else { waiters[id] = continuation }
            }
        } onCancel: {
            Task { await self.wake(id) }
        }
        timer.cancel()
    }

    private func wake(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.resume()
    }

    private func lastSequence(_ track: [LivePosition]) -> Int64 { track.last?.sequence ?? 0 }
}
