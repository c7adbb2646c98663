import PathwatchProbeKit

/// `alertmanager`: Alertmanager's `POST /api/v2/alerts` — a JSON array of alerts, each with
/// `labels` (`alertname`, `check`, `probe`, `agent`, `severity`), `annotations` (`summary`,
/// `message`), `startsAt` and, when it is resolved, `endsAt`.
///
/// A check going warning, critical or unknown fires an alert whose `severity` is that state; a
/// change of severity resolves the old label set and fires the new one; going ok resolves it.
/// Firing alerts are sent without `endsAt`, so Alertmanager ends them after its
/// `resolve_timeout` unless they are sent again: every `resend_every` the whole firing set is
/// queued again (only when the queue is empty, so a backlog never piles up re-sends). A firing
/// alert whose check has been missing from the status documents for a whole `resend_every`
/// (its probe was removed from the configuration) is resolved by that re-send.
struct AlertmanagerFormat: PayloadFormat {
    let alertName: String
    let resendEvery: UInt64
    /// Where the firing set is saved; nil keeps it in memory only.
    let file: String?
    let logger: AgentLogger
    private(set) var firing = FiringAlerts()
    /// Monotonic time of the last re-send; 0 makes the next one due at once.
    private var lastResend: UInt64 = 0
    /// When the latest status document was seen.
    private var lastDocument = WallTime(milliseconds: 0)

    init(alertName: String, resendEvery: ConfigDuration, file: String?, logger: AgentLogger) {
        self.alertName = alertName
        self.resendEvery = UInt64(resendEvery.nanoseconds)
        self.file = file
        self.logger = logger
        if let file, let text = try? BoundedFile.readText(file, limit: 64 << 20) {
            do {
                let loaded = FiringAlerts.load(try JSONParser.parse(text), presentAt: .now())
                firing = loaded.alerts
                if loaded.skipped > 0 { logger.warning("webhook: skipped \(loaded.skipped) malformed entries of \(file)") }
            } catch {
                logger.warning("webhook: \(file) is not valid JSON (\(error)); starting with no firing alerts")
            }
        }
        // Alerts saved by a previous run are re-sent as soon as the queue allows.
        lastResend = firing.isEmpty ? monotonicNanoseconds() : 0
    }

    mutating func payloads(for batch: SinkBatch, triggers: Set<SinkTrigger>) -> [QueuedPayload] {
        let before: JSONValue? = batch.events.isEmpty ? nil : firing.json
        var out: [QueuedPayload] = []
        for event in batch.events {
            let alerts = apply(event)
            if !alerts.isEmpty { out.append(QueuedPayload(kind: .event, id: event.id, at: batch.time, json: .array(alerts))) }
        }
        lastDocument = batch.time
        // The snapshot's typed checks: no document is rendered for this.
        for id in batch.snapshot.checkIDs { firing.markPresent(id, at: batch.time) }
        if let before, firing.json != before { save() }
        return out
    }

    /// The alerts one change sends, updating the firing set.
    mutating func apply(_ event: ChangeEvent) -> [JSONValue] {
        var alerts: [JSONValue] = []
        let prior = firing[event.check]
        if event.to == .ok {
            if let prior {
                alerts.append(alert(prior, endsAt: event.at))
                firing[event.check] = nil
            }
            return alerts
        }
        var next = FiringAlert(
            check: event.check, probe: event.probe, agent: event.agent, severity: event.to.name, message: event.message,
            startsAt: event.at, lastPresent: event.at)
        if let prior {
            if prior.severity == next.severity {
                next.startsAt = prior.startsAt
            } else {
                alerts.append(alert(prior, endsAt: event.at))
            }
        }
        firing[event.check] = next
        alerts.append(alert(next, endsAt: nil))
        return alerts
    }

    mutating func duePayloads(at now: WallTime, monotonic: UInt64) -> [QueuedPayload] {
        guard !firing.isEmpty, lastResend == 0 || monotonic >= lastResend &+ resendEvery else { return [] }
        lastResend = monotonic
        var alerts: [JSONValue] = []
        var removed = false
        for a in firing.alerts {
            if lastDocument.milliseconds - a.lastPresent.milliseconds >= Int64(resendEvery / 1_000_000) {
                alerts.append(alert(a, endsAt: now))
                firing[a.check] = nil
                removed = true
            } else {
                alerts.append(alert(a, endsAt: nil))
            }
        }
        if removed { save() }
        return [QueuedPayload(kind: .resend, id: EventID.make(at: now), at: now, json: .array(alerts))]
    }

    var nextDue: UInt64? { firing.isEmpty ? nil : (lastResend == 0 ? 0 : lastResend &+ resendEvery) }

    func alert(_ a: FiringAlert, endsAt: WallTime?) -> JSONValue {
        let change = endsAt == nil ? "is \(a.severity)" : "recovered from \(a.severity)"
        var members: [(String, JSONValue)] = [
            ("labels", .object(JSONObject([
                ("alertname", .string(alertName)), ("check", .string(a.check)), ("probe", .string(a.probe)),
                ("agent", .string(a.agent)), ("severity", .string(a.severity)),
            ]))),
            ("annotations", .object(JSONObject([
                ("summary", .string("\(a.agent): \(a.check) \(change)")), ("message", .string(a.message)),
            ]))),
            ("startsAt", .string(a.startsAt.rfc3339)),
        ]
        if let endsAt { members.append(("endsAt", .string(endsAt.rfc3339))) }
        return .object(JSONObject(members))
    }

    private func save() {
        guard let file else { return }
        do {
            try AtomicFile.write(JSONSerializer.serialize(firing.json, pretty: true) + "\n", to: file)
        } catch {
            logger.error("webhook: cannot save the firing alerts: \(error)")
        }
    }
}

typealias FiringAlert = FiringAlerts.Alert
