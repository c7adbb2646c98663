/// The alerts this sink has told Alertmanager are firing, one per check, kept so they can be
/// re-sent before Alertmanager's `resolve_timeout` ends them, and so a recovery can resolve the
/// exact label set that fired. Saved in the queue folder (`alerts.json`, replaced atomically) on
/// every change, so a restarted agent keeps re-sending them.
struct FiringAlerts: Sendable {
    struct Alert: Sendable, Equatable {
        var check: String
        var probe: String
        var agent: String
        /// The check's state name: `warning`, `critical` or `unknown`.
        var severity: String
        var message: String
        var startsAt: WallTime
        /// When the check was last seen in a status document (in memory only).
        var lastPresent: WallTime
    }

    private(set) var byCheck: [String: Alert] = [:]
    /// In the order they started, so payloads list them predictably.
    var alerts: [Alert] { byCheck.values.sorted { ($0.startsAt, $0.check) < ($1.startsAt, $1.check) } }
    var isEmpty: Bool { byCheck.isEmpty }

    subscript(check: String) -> Alert? {
        get { byCheck[check] }
        set { byCheck[check] = newValue }
    }

    mutating func markPresent(_ check: String, at time: WallTime) {
        byCheck[check]?.lastPresent = time
    }

    // MARK: - On disk

    var json: JSONValue {
        .object(JSONObject([
            ("schema", 1),
            ("alerts", .array(alerts.map { a in
                .object(JSONObject([
                    ("check", .string(a.check)), ("probe", .string(a.probe)), ("agent", .string(a.agent)),
                    ("severity", .string(a.severity)), ("message", .string(a.message)),
                    ("starts_at", .string(a.startsAt.rfc3339)), ("starts_at_ms", .number(Double(a.startsAt.milliseconds))),
                ]))
            })),
        ]))
    }

    /// Reads a saved set; a malformed entry is skipped (and counted), never fatal.
    static func load(_ value: JSONValue, presentAt now: WallTime) -> (alerts: FiringAlerts, skipped: Int) {
        var set = FiringAlerts()
        var skipped = 0
        for item in value["alerts"]?.arrayValue ?? [] {
            guard let check = item["check"]?.stringValue, let probe = item["probe"]?.stringValue,
                let agent = item["agent"]?.stringValue, let severity = item["severity"]?.stringValue,
                let message = item["message"]?.stringValue, let ms = item["starts_at_ms"]?.numberValue, ms.isFinite
            else {
                skipped += 1
                continue
            }
            set[check] = Alert(
                check: check, probe: probe, agent: agent, severity: severity, message: message,
                startsAt: WallTime(milliseconds: Int64(ms)), lastPresent: now)
        }
        return (set, skipped)
    }
}
