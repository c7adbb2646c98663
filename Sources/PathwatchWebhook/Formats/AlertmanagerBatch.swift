import PathwatchJSON

/// `alertmanager` requests: the alerts of a run of payloads in one array, merged. Each payload
/// is already an array of alerts, and Alertmanager takes alerts as state, not news: of several
/// alerts with the same label set in a run (fired, resolved, fired again), only the latest says
/// how things stand, so only it is sent, where the latest stood. Alerts of different label sets
/// keep their order (a severity change resolves the old set before it fires the new one).
struct AlertmanagerBatch: BatchShape {
    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        if run.count == 1, let only = run.first { return (only.body, 1) }
        var alerts: [(key: String, alert: JSONValue)] = []
        for payload in run {
            // Payloads are arrays this format wrote with the project's serializer, and a record
            // that reaches here passed its CRC: they parse.
            guard let array = (try? JSONParser.parse(bytes: payload.body))?.arrayValue else { continue }
            for alert in array {
                alerts.append((alert["labels"].map { JSONSerializer.serialize($0) } ?? "", alert))
            }
        }
        var latest: [String: Int] = [:]
        for (index, entry) in alerts.enumerated() { latest[entry.key] = index }
        let merged = alerts.enumerated().filter { latest[$0.element.key] == $0.offset }.map(\.element.alert)
        return (Array(JSONSerializer.serialize(.array(merged)).utf8), run.count)
    }
}
