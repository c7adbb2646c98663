import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// `alertmanager`: Alertmanager's `POST /api/v2/alerts` — a JSON array of alerts, each with
/// `labels` (`alertname`, `check`, `probe`, `agent`, `severity`), `annotations` (`summary`,
/// `message`), `startsAt` and, when it is resolved, `endsAt`.
///
/// A check going warning, critical or unknown fires an alert whose `severity` is that state; a
/// change of severity resolves the old label set and fires the new one; going ok resolves it.
/// `startsAt` is when the check entered its state, as the check book recorded it.
///
/// Firing alerts are sent without `endsAt`, so Alertmanager ends them after its
/// `resolve_timeout` unless they are sent again: every `resend_every` (only when the queue is
/// empty, so a backlog never piles up re-sends) the firing set is read from the latest snapshot
/// and queued again, with a resolution for each alert told before that the snapshot no longer
/// has (its probe was removed from the configuration).
///
/// What is firing is the check book's to know: the format keeps no file, only the alerts it last
/// told Alertmanager, so it can resolve exactly the label set that fired. After a restart (or a
/// reload that changes the sinks, which replaces this one) the first snapshot's firing checks
/// are re-sent as soon as the queue allows, and once more when every probe has reported, so
/// Alertmanager keeps them. A restart starts the check book afresh too, so their `startsAt` is
/// then when the new run first saw the state (Alertmanager keeps the earlier start of an alert
/// still active). An alert told before whose check is gone, or recovered meanwhile, is not told
/// again: Alertmanager ends it after its `resolve_timeout`.
struct AlertmanagerFormat: PayloadFormat {
    let alertName: String
    let resendEvery: UInt64
    /// What Alertmanager was last told is firing, by check.
    private(set) var told = FiringAlerts()
    /// The snapshot of the latest batch: what a re-send reads.
    private var latest: StatusSnapshot?
    /// A re-send is owed as soon as the queue allows: at start, and when every probe has reported.
    private var resendSoon = true
    /// Monotonic time of the last re-send.
    private var lastResend: UInt64 = 0

    init(alertName: String, resendEvery: ConfigDuration) {
        self.alertName = alertName
        self.resendEvery = UInt64(resendEvery.nanoseconds)
    }

    mutating func payloads(for batch: SinkBatch, triggers: SinkTriggers) -> [QueuedPayload] {
        latest = batch.snapshot
        if batch.firstComplete { resendSoon = true }
        var out: [QueuedPayload] = []
        for event in batch.events {
            let alerts = apply(event, record: batch.snapshot.check(event.check))
            if !alerts.isEmpty {
                out.append(QueuedPayload(kind: .event, id: event.id, at: batch.time, json: .array(alerts)))
            }
        }
        return out
    }

    /// The alerts one change sends, updating what was told. `record` is the check as the batch's
    /// snapshot has it, for the time it entered its state.
    mutating func apply(_ event: ChangeEvent, record: CheckRecord?) -> [JSONValue] {
        var alerts: [JSONValue] = []
        let prior = told[event.check]
        if event.to == .ok {
            if let prior {
                alerts.append(alert(prior, endsAt: event.at))
                told[event.check] = nil
            }
            return alerts
        }
        // The record's start, unless it already moved on (it has not in a batch the agent made).
        let since = record.flatMap { $0.state == event.to ? $0.since : nil } ?? event.at
        var next = FiringAlert(
            check: event.check, probe: event.probe, agent: event.agent, severity: event.to.name, message: event.message,
            startsAt: since)
        if let prior {
            if prior.sameLabels(as: next) {
                next.startsAt = min(prior.startsAt, next.startsAt)
            } else {
                alerts.append(alert(prior, endsAt: event.at))
            }
        }
        told[event.check] = next
        alerts.append(alert(next, endsAt: nil))
        return alerts
    }

    mutating func duePayloads(at now: WallTime, monotonic: UInt64) -> [QueuedPayload] {
        // Before the first batch there is nothing to read; the owed re-send waits for it.
        guard let latest, resendSoon || monotonic >= lastResend &+ resendEvery else { return [] }
        resendSoon = false
        lastResend = monotonic
        let firing = FiringAlerts(snapshot: latest, told: told)
        var alerts: [JSONValue] = []
        // What was told and is no longer firing as told (its check is gone): resolved first, so
        // a check whose severity moved ends its old label set before the new one fires.
        for old in told.alerts where !(firing[old.check].map { $0.sameLabels(as: old) } ?? false) {
            alerts.append(alert(old, endsAt: now))
        }
        for a in firing.alerts { alerts.append(alert(a, endsAt: nil)) }
        told = firing
        guard !alerts.isEmpty else { return [] }
        return [QueuedPayload(kind: .resend, id: EventID.make(at: now), at: now, json: .array(alerts))]
    }

    /// Due at once while a re-send is owed (the delivery loop asks again every second until the
    /// first batch arrives, which is at once: the format is made when the first batch opens the
    /// queue), then every `resend_every`: a check can start firing without a change event (first
    /// seen `unknown`), so the set is read again even when nothing was firing.
    var nextDue: UInt64? { resendSoon ? 0 : lastResend &+ resendEvery }

    func alert(_ a: FiringAlert, endsAt: WallTime?) -> JSONValue {
        let change = endsAt == nil ? "is \(a.severity)" : "recovered from \(a.severity)"
        var members: [(String, JSONValue)] = [
            (
                "labels",
                .object(
                    JSONObject([
                        ("alertname", .string(alertName)), ("check", .string(a.check)), ("probe", .string(a.probe)),
                        ("agent", .string(a.agent)), ("severity", .string(a.severity)),
                    ]))
            ),
            (
                "annotations",
                .object(
                    JSONObject([
                        ("summary", .string("\(a.agent): \(a.check) \(change)")), ("message", .string(a.message)),
                    ]))
            ),
            ("startsAt", .string(a.startsAt.rfc3339)),
        ]
        if let endsAt { members.append(("endsAt", .string(endsAt.rfc3339))) }
        return .object(JSONObject(members))
    }
}
