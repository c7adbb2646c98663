import Foundation

/// The report times (milliseconds) that the status documents a `json` stdout sink with `on: every`
/// printed show, in order: each probe's reports (or only `probe`'s), once each.
public func reportTimes(_ lines: [String], probe wanted: String? = nil) -> [Int64] {
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    // Documents are paced (several reports may share one, and one report shows in several):
    // each probe's `last_sample_at` says when it reported, once per report.
    var seen: Set<String> = []
    var times: [Int64] = []
    for line in lines {
        guard let doc = try? parseJSONObject(line), doc["checks"] != nil, let probes = doc["probes"] as? [[String: Any]]
        else { continue }
        for probe in probes {
            guard let id = probe["id"] as? String, wanted == nil || wanted == id,
                let text = probe["last_sample_at"] as? String,
                seen.insert("\(id) \(text)").inserted, let date = parser.date(from: text)
            else { continue }
            times.append(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
    }
    return times.sorted()
}
