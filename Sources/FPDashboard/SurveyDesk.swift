import FPCore
import FPHex
import Foundation
import Synchronization

/// What the Survey page asks of the process that serves it: `fprint
/// dashboard` measures with the same engine, radios and options as
/// `fprint measure` and `fprint walk`. The gateway has none (it measures
/// nothing), so its dashboard has no Survey page.
package protocol SurveyDesk: Sendable {
    /// The scenarios that walk on `map`, in the config's order.
    func routes(map: String) -> [SurveyRoute]
    /// How measurements are taken, for the page: "5 s, simulated radios".
    var describe: String { get }
    /// Starts a measurement at a point or a walk, or says why not (a point
    /// off the map, an unknown scenario, another job running).
    func start(_ order: SurveyOrder) throws(SurveyRefusal) -> SurveyJob
    /// The job running, or the last one that ended (nil: none yet).
    func current() -> SurveyJob?
}

package enum SurveyOrder: Sendable, Equatable {
    case point(map: String, x: Double, y: Double)
    case walk(scenario: String)
}

package struct SurveyRoute: Sendable, Equatable {
    package var id: String
    package var name: String
    package var points: [MapPoint]
    /// Every map the route walks, in order, when it has more than one
    /// (`then` legs; empty otherwise): the page draws this map's part.
    package var floorMaps: [String]

    package init(id: String, name: String, points: [MapPoint], floorMaps: [String] = []) {
        self.id = id
        self.name = name
        self.points = points
        self.floorMaps = floorMaps
    }
}

/// Why a job did not start: the page shows `message` as it is.
package struct SurveyRefusal: Error, Sendable, Equatable {
    package enum Reason: Sendable { case busy, offMap, unknown }
    package var reason: Reason
    package var message: String

    package init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}

/// One measurement or walk started from the page, as its status answers it.
package struct SurveyJob: Sendable, Equatable, Encodable {
    package enum State: String, Sendable, Encodable { case running, storing, stored, failed }
    package struct Stored: Sendable, Equatable, Encodable {
        package var id: String
        package var x: Double
        package var y: Double
        /// The map it was stored on: a walk over stairs stores on each floor's map.
        package var map: String?

        package init(id: String, x: Double, y: Double, map: String? = nil) {
            self.id = id
            self.x = x
            self.y = y
            self.map = map
        }
    }

    package var job: Int
    package var kind: String
    package var map: String
    package var x: Double?
    package var y: Double?
    package var scenario: String?
    package var state: State = .running
    package var elapsedS: Double = 0
    package var durationS: Double
    /// A walk: where the surveyor should be now, and which way the next waypoint lies.
    package var target: MapPoint?
    package var guidance: String?
    package var stored: [Stored] = []
    /// Why it failed, or notes of a stored one (raw capture losses).
    package var message: String?

    enum CodingKeys: String, CodingKey {
        case job, kind, map, x, y, scenario, state, elapsedS = "elapsed_s", durationS = "duration_s", target, guidance, stored, message
    }

    package init(job: Int, order: SurveyOrder, map: String, durationS: Double) {
        self.job = job
        self.map = map
        self.durationS = durationS
        switch order {
        case .point(_, let x, let y): (kind, self.x, self.y) = ("point", x, y)
        case .walk(let scenario): (kind, self.scenario) = ("walk", scenario)
        }
    }

    /// "point (363, 701) on J1NP" or "walk scenarioJ1NP1 on J1NP".
    package var title: String {
        if let x, let y { return String(format: "point (%g, %g) on %@", x, y, map) }
        return "walk \(scenario ?? "") on \(map)"
    }
}

/// The one job at a time, shared by every tab: a second start while one
/// runs is refused, not queued (the surveyor stands at one place).
package final class SurveySlot: Sendable {
    private let state = Mutex<(next: Int, job: SurveyJob?)>((1, nil))

    package init() {}

    /// The new job, or the refusal naming the one that runs.
    package func begin(_ order: SurveyOrder, map: String, durationS: Double) throws(SurveyRefusal) -> SurveyJob {
        let started: SurveyJob? = state.withLock { slot in
            if let job = slot.job, job.state == .running || job.state == .storing { return nil }
            let job = SurveyJob(job: slot.next, order: order, map: map, durationS: durationS)
            slot.next += 1
            slot.job = job
            return job
        }
        guard let started else {
            let running = current()
            let what = running.map { "\($0.title), \(Int($0.elapsedS)) s of \(Int($0.durationS.rounded())) s" } ?? "a job"
            throw SurveyRefusal(.busy, "A measurement is already running (\(what)): wait for it to end.")
        }
        return started
    }

    /// Changes the job numbered `job` (a later job is never touched by an earlier one's task).
    package func update(_ job: Int, _ change: (inout SurveyJob) -> Void) {
        state.withLock { slot in
            guard var current = slot.job, current.job == job else { return }
            change(&current)
            slot.job = current
        }
    }

    package func current() -> SurveyJob? { state.withLock { $0.job } }
}

extension Dashboard {
    /// 32 random bytes as hex.
    static func newSurveyToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.string((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
