import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules

/// A status document received from a running agent (`pathwatch status`), read into a snapshot
/// so that the text and Nagios forms render it as they render the agent's own. This is the one
/// place a document is read back: where it arrives from the wire. It carries what those forms
/// read (who, when, the state, the path, the checks); the `probes` and `sinks` arrays stay in
/// the received text, which `--format json` prints as it came.
extension StatusSnapshot {
    package convenience init(received document: JSONValue) {
        let agent = document["agent"]
        let identity = AgentIdentity(
            name: agent?["name"]?.stringValue ?? "",
            startedAt: Self.receivedTime(agent?["started_at"]) ?? WallTime(milliseconds: 0))
        let checks = (document["checks"]?.arrayValue ?? []).map(Self.receivedCheck)
        let silenced = (document["checks"]?.arrayValue ?? []).filter { $0["silenced"]?.boolValue == true }
        self.init(
            identity: identity, time: Self.receivedTime(document["time"]) ?? WallTime(milliseconds: 0), checks: checks,
            path: Self.receivedPath(document["path"]), state: Self.receivedState(document["state"]),
            silenced: Set(silenced.compactMap { $0["id"]?.stringValue }))
    }

    private static func receivedCheck(_ check: JSONValue) -> CheckRecord {
        let probe = check["probe"]?.stringValue ?? ""
        return CheckRecord(
            id: check["id"]?.stringValue ?? "", probe: probe, plugin: check["plugin"]?.stringValue ?? "",
            state: receivedState(check["state"]), since: receivedTime(check["since"]) ?? WallTime(milliseconds: 0),
            message: check["message"]?.stringValue ?? "",
            metrics: (check["metrics"]?.objectValue?.members ?? []).compactMap { member -> Metric? in
                // A series with labels of its own is named with them (`depth{queue="spam"}`).
                let series = MetricLabelRule.parsedSeriesName(member.key)
                return member.value.numberValue.map { Metric(series.name, $0, labels: series.labels) }
            },
            labels: (check["labels"]?.objectValue?.members ?? []).compactMap { member in
                member.value.stringValue.map { (member.key, $0) }
            })
    }

    private static func receivedPath(_ path: JSONValue?) -> PathSummary {
        PathSummary(
            status: path?["status"]?.stringValue.flatMap(PathSummary.Status.init(rawValue:)) ?? .unknown,
            type: path?["type"]?.stringValue ?? "none", interface: path?["interface"]?.stringValue,
            expensive: path?["expensive"]?.boolValue ?? false, description: path?["description"]?.stringValue ?? "",
            internet: path?["internet"]?.stringValue.flatMap(PathSummary.Internet.init(rawValue:)))
    }

    /// A state by its name; a name the reader does not know is `unknown`.
    private static func receivedState(_ name: JSONValue?) -> CheckState {
        CheckState.allCases.first { $0.name == name?.stringValue } ?? .unknown
    }

    private static func receivedTime(_ text: JSONValue?) -> WallTime? {
        text?.stringValue.flatMap(WallTime.init(rfc3339:))
    }
}

extension WallTime {
    /// Reads the form `rfc3339` writes ("2026-11-21T20:51:00.123Z"); nil for any other.
    package init?(rfc3339 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "."),
            bytes[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let millisecond = number(20..<23),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        self.init(milliseconds: ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond)
    }
}
