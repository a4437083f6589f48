@testable import FPDashboard
import FPStore
import Foundation
import Testing

/// The gateway's board of live positions, and the dashboard stream's `position` events.
@Suite struct LivePositionsTests {
    static func at(_ map: String, _ x: Double, _ y: Double) -> LivePosition {
        LivePosition(map: map, x: x, y: y, accuracyM: 2, time: "2026-11-25T17:00:00.000Z")
    }

    @Test func theBoardKeepsTheLastPositionsOfEachPublisherAndBoundsThem() async {
        let board = LivePositions()
        await board.publish((0..<700).map { Self.at("J1NP", Double($0), 0) }, by: "alice")
        #expect(await board.counts()["alice"] == LivePositions.perPublisher)
        #expect(await board.latest(map: "J1NP").first?.x == 699)
        #expect(await board.latest(map: "J2NP").isEmpty)
        // Past the publisher cap, the one silent the longest goes.
        for n in 0..<LivePositions.maxPublishers { await board.publish([Self.at("J2NP", 1, 1)], by: "p\(n)") }
        let counts = await board.counts()
        #expect(counts.count == LivePositions.maxPublishers)
        #expect(counts["alice"] == nil)
        #expect(counts["p0"] == 1)
        // A live view starts with those heard from lately only.
        #expect(await board.current(map: "J2NP").positions.count == LivePositions.maxPublishers)
        try? await Task.sleep(for: .milliseconds(20))
        #expect(await board.current(map: "J2NP", recent: .milliseconds(10)).positions.isEmpty)
        let (after, _, reached) = await board.after(700, map: "J2NP")
        #expect(after.map(\.publisher) == (0..<LivePositions.maxPublishers).map { "p\($0)" })
        #expect(reached == 700 + Int64(LivePositions.maxPublishers))
    }

    @Test func aWaitEndsWithTheNextPositionItsTimeoutOrCancellation() async throws {
        let board = LivePositions()
        let woken = Task { await board.wait(after: 0, timeout: .seconds(600)) }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        await board.publish([Self.at("J1NP", 1, 1)], by: "alice")
        await woken.value
        // Bounds half the 10 minute timeouts: what ended each wait was the
        // position or the cancellation, however busy the machine.
        #expect(ContinuousClock.now - started < .seconds(300))
        // Already past: at once. Nothing new: the timeout.
        await board.wait(after: 0, timeout: .seconds(600))
        let timed = ContinuousClock.now
        await board.wait(after: 1, timeout: .milliseconds(100))
        #expect(ContinuousClock.now - timed < .seconds(300))
        let cancelled = Task { await board.wait(after: 1, timeout: .seconds(600)) }
        try await Task.sleep(for: .milliseconds(50))
        let cancelledAt = ContinuousClock.now
        cancelled.cancel()
        await cancelled.value
        #expect(ContinuousClock.now - cancelledAt < .seconds(300))
    }

    @Test func theStreamShowsWhereEachPublisherIsThenEveryNewPositionOfItsMap() async throws {
        let f = try DashboardFixture()
        try f.seed()
        let board = LivePositions()
        await board.publish([Self.at("J1NP", 100, 200), Self.at("J1NP", 110, 210)], by: "alice")
        let start = try f.store.lastSequence()
        // The store never changes here: only positions wake the stream.
        let wait: Dashboard.ChangeWait = { _, timeout in
            try? await Task.sleep(for: timeout)
            return true
        }
        let index = SurveyIndex(store: f.store)
        let received = Task { () -> String in
            var text = ""
            do {
                try await Dashboard.stream(map: "J1NP", from: start, index: index, wait: wait, positions: board,
                                           lifetime: .seconds(20)) { chunk in
                    text += chunk
                    if text.contains("bob/tab-2") { throw CancellationError() }
                }
            } catch {}
            return text
        }
        try await Task.sleep(for: .milliseconds(200))
        await board.publish([Self.at("J2NP", 5, 5)], by: "carol")
        await board.publish([Self.at("J1NP", 300, 400)], by: "bob/tab-2")
        // How long ago each was heard depends on how busy the machine is.
        let text = await received.value.replacingOccurrences(of: #""age_s":[0-9]+,"#, with: #""age_s":N,"#,
                                                               options: .regularExpression)
        // alice's latest only, at the start; carol walks another map.
        #expect(text.hasPrefix("retry: 1000\n\nevent: position\ndata: {\"accuracy_m\":2,\"age_s\":N,\"publisher\":\"alice\",\"time\":\"2026-11-25T17:00:00.000Z\",\"x\":110,\"y\":210}\n\n"), "\(text)")
        #expect(!text.contains("\"x\":100,"))
        #expect(!text.contains("carol"))
        #expect(text.contains("event: position\ndata: {\"accuracy_m\":2,\"age_s\":N,\"publisher\":\"bob/tab-2\",\"time\":\"2026-11-25T17:00:00.000Z\",\"x\":300,\"y\":400}\n\n"))
    }

    /// A publisher is on one map at a time: gone up the stairs, or stopped,
    /// it has left the map it was on (it was shown there for 10 minutes).
    @Test func aPublisherLeavesTheFloorItWalkedOffAndTheMapWhenItStops() async {
        let board = LivePositions()
        await board.publish([Self.at("J2NP", 100, 100)], by: "alice")
        await board.publish([Self.at("J2NP", 50, 50)], by: "bob")
        let (_, _, before) = await board.after(0, map: "J2NP")
        await board.publish([Self.at("J3NP", 100, 100)], by: "alice")
        #expect(await board.latest(map: "J2NP").map(\.publisher) == ["bob"])
        #expect(await board.latest(map: "J3NP").map(\.publisher) == ["alice"])
        #expect(await board.current(map: "J2NP").positions.map(\.publisher) == ["bob"])
        let moved = await board.after(before, map: "J2NP")
        #expect(moved.positions.isEmpty && moved.left == ["alice"])
        await board.stop("bob")
        let stopped = await board.after(moved.reached, map: "J2NP")
        #expect(stopped.left == ["bob"])
        #expect(await board.latest().map(\.publisher) == ["alice"])
        // The stream tells the page.
        let events = Dashboard.leftEvents(stopped.left)
        #expect(events == "event: left\ndata: {\"publisher\":\"bob\"}\n\n")
    }

    /// A track's last positions and its stop can both come before a view
    /// reads again (one wake-up for both): the view still gets the positions,
    /// then the departure. Before, stopping dropped the track, and a live view
    /// missed the last position of a walk in one suite run.
    @Test func positionsPublishedJustBeforeAStopStillReachTheView() async {
        let board = LivePositions()
        await board.publish([Self.at("J1NP", 1, 1)], by: "alice")
        let (_, _, seen) = await board.after(0, map: "J1NP")
        await board.publish([Self.at("J1NP", 2, 2), Self.at("J1NP", 3, 3)], by: "alice")
        await board.stop("alice")
        let late = await board.after(seen, map: "J1NP")
        #expect(late.positions.map(\.x) == [2, 3])
        #expect(late.left == ["alice"])
        // Read once: a later look finds nothing more.
        let again = await board.after(late.reached, map: "J1NP")
        #expect(again.positions.isEmpty && again.left.isEmpty)
    }
}
