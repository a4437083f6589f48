import FPAnalysis
import FPCore
import Foundation

/// Evaluates the rules after `measure`, `walk` and `sync` stored documents,
/// and posts what changed to the webhook. Storage is done by then: whatever
/// goes wrong here is a warning line, and the command's exit stays its own.
enum AlertsAfterStoring {
    static func evaluate(_ ws: Workspace) async {
        let settings: AlertSettings
        do { settings = try AlertRules.inForce(ws) } catch {
            Terminal.err("warning: alert rules not evaluated: \(error)")
            return
        }
        guard !settings.rules.isEmpty else { return }
        do {
            let now = AlertRules.now()
            let alerts = AlertEvaluation.evaluate(settings.rules, try AlertFactsReader.read(ws.openStore(.read), rules: settings.rules), now: now)
            await AlertOutbox.deliverAfterEvaluating(ws, settings: settings, alerts: alerts, now: now)
            let active = alerts.filter(\.isActive).count
            if active > 0 { Terminal.err("\(Terminal.counted(active, "alert")) active (fprint alerts)") }
        } catch {
            Terminal.err("warning: alert rules not evaluated: \(error)")
        }
    }
}
