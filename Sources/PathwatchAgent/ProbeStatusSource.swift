/// Each probe's status (contract §3 `probes`), read when a sink first asks a snapshot for it,
/// not when the snapshot is made. A thousand probes changing at once make a thousand snapshots,
/// and nearly none of them is rendered (a file sink writes the latest it holds; stdout and a
/// webhook take the events): reading every probe's health for each one cost the agent's reader
/// more than the reports themselves, and held the agent's lock while it did. What is read is
/// never older than the snapshot: each probe's health as it is when first asked, then kept for
/// every sink that asks after (StatusSnapshot).
struct ProbeStatusSource: Sendable {
    /// The probes as the agent holds them: shared, not copied (they change only on a reload).
    let probes: [String: AgentState.ActiveProbe]
    /// Configuration order.
    let order: [String]
    let lastReportAt: [String: WallTime]
    let redactor: SecretRedactor

    func read() -> [ProbeStatus] {
        order.compactMap { Self.status(of: $0, in: probes, lastReportAt: lastReportAt, redactor: redactor) }
    }

    /// One probe's host: isolation, child pid, restarts, last error (redacted) and duration. Each
    /// host's health is behind a lock of its own, held for a moment and never while it calls out.
    static func status(
        of id: String, in probes: [String: AgentState.ActiveProbe], lastReportAt: [String: WallTime],
        redactor: SecretRedactor
    ) -> ProbeStatus? {
        guard let active = probes[id] else { return nil }
        var health = active.runner.health
        health.lastError = health.lastError.map { redactor.redact($0) }
        return ProbeStatus(
            id: id, plugin: active.runner.instance.plugin.name, isolation: active.runner.instance.isolation,
            health: health, lastSampleAt: lastReportAt[id])
    }
}
