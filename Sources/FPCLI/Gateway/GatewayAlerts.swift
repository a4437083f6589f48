import FPAnalysis
import FPCore
import FPStore
import Foundation

/// `fprint gateway` evaluates the rules of its app config as documents
/// arrive: when the store's sequence moves (checked every second), and once a
/// minute whatever happens (hold times and silences run on with the clock).
/// Events go to the webhook through the outbox beside the gateway's database,
/// as after `fprint measure`; nothing here can fail a request.
enum GatewayAlerts {
    static func watch(store: SQLiteDocumentStore, databasePath: String, settings: AlertSettings) -> Task<Void, Never>? {
        guard !settings.rules.isEmpty else { return nil }
        Terminal.err("fprint gateway: evaluating \(Terminal.counted(settings.rules.count, "alert rule")) as documents arrive"
            + (settings.webhook.map { "; events to \($0)" } ?? ""))
        return Task.detached {
            var seen: Int64 = -1
            var lastRun = ContinuousClock.now
            var lastActive = 0
            while !Task.isCancelled {
                let sequence = (try? store.lastSequence()) ?? seen
                if sequence != seen || ContinuousClock.now - lastRun >= .seconds(60) {
                    seen = sequence
                    lastRun = .now
                    do {
                        let now = AlertRules.now()
                        let alerts = AlertEvaluation.evaluate(settings.rules, try AlertFactsReader.read(store, rules: settings.rules), now: now)
                        await AlertOutbox.deliverAfterEvaluating(outbox: databasePath + "-alerts.json", settings: settings, alerts: alerts, now: now)
                        let active = alerts.filter(\.isActive).count
                        if active != lastActive { Terminal.err("fprint gateway: \(Terminal.counted(active, "alert")) active") }
                        lastActive = active
                    } catch {
                        Terminal.err("warning: alert rules not evaluated: \(error)")
                    }
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
