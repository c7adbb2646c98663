import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchSinkTestSupport

/// The `remote_write` sink against a scripted receiver on 127.0.0.1 (Tests/Fixtures/webhook/
/// receiver.py, whose log keeps each request's bytes): retries, `Retry-After`, a refused batch,
/// and the queue's bounds, checked report by report against the documents the agent printed.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteDeliveryTests {
    static func config(_ port: Int, stateFile: URL, sinks: String) -> String {
        """
        {"agent": {"name": "rw-delivery", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
         "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
         "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                   {"type": "http", "listen": "127.0.0.1:\(port)"}, \(sinks)]}
        """
    }

    /// The report times of probe `api` in `requests`: the times of its `pathwatch_probe_success`
    /// samples, which every report of it carries.
    static func sentReportTimes(_ requests: [(status: Int, path: String, samples: [WrittenSample])]) -> [Int64] {
        requests.flatMap {
            $0.samples.filter { $0.name == "pathwatch_probe_success" && $0.labels["probe"] == "api" }.map(\.timestamp)
        }
    }

    /// The remote_write entries of the agent's /status, by target.
    static func sinkStatus(_ agent: LiveAgent) -> [[String: Any]] {
        guard let body = try? agent.request("/status").body, let doc = try? parseJSONObject(body) else { return [] }
        return (doc["sinks"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "remote_write" }
    }

    /// A refused request of several reports goes again one report at a time: the receiver
    /// refused it for some of its samples (too old, say), and only the reports it refuses alone
    /// are dropped; the first accepted one ends that, and batches resume.
    @Test func retriesThroughFailuresAndRetryAfterAndDropsOnlyTheRefusedReport() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"))
        defer { receiver.stop() }
        // One accepted request, then 500s, a 429 asking for a second, a 400 for the batch that
        // built up meanwhile and a 400 for its first report alone, then all accepted. A short
        // backoff: the schedule is DeliveryScheduleTests' (virtual time); here the second of
        // Retry-After is what lets a backlog build up behind the 400.
        let script =
            [#"{"status": 204}"#] + Array(repeating: #"{"status": 500}"#, count: 4)
            + [#"{"status": 429, "retry_after": 1}"#, #"{"status": 400}"#, #"{"status": 400}"#]
        try receiver.control(#"{"script": [\#(script.joined(separator: ","))]}"#)
        let agent = try LiveAgent(in: dir) { port in
            Self.config(
                port, stateFile: stateFile,
                sinks: """
                    {"type": "remote_write", "url": "\(receiver.base)/api/v1/write", "retry": {"initial": "100ms", "max": "300ms"}}
                    """)
        }
        defer { agent.stop() }
        #expect(
            waitUntil(timeout: 60) { receiver.writeRequests().filter { $0.status == 200 }.count >= 3 },
            "\(receiver.records().map { $0["status"] ?? "" })\nagent: \(agent.process.errorOutput.suffix(1500))")
        let status = try #require(Self.sinkStatus(agent).first)
        agent.stop()

        let requests = receiver.writeRequests()
        #expect(
            requests.map(\.status).prefix(8) == [204, 500, 500, 500, 500, 429, 400, 400], "\(requests.map(\.status))")
        for record in receiver.records() {
            let headers = record["headers"] as? [String: String] ?? [:]
            #expect(
                headers["content-encoding"] == "snappy" && headers["content-type"] == "application/x-protobuf"
                    && headers["x-prometheus-remote-write-version"] == "0.1.0", "\(headers)")
        }
        let refusedBatch = requests.count > 6 ? Self.sentReportTimes([requests[6]]) : []
        let refused = requests.count > 7 ? Self.sentReportTimes([requests[7]]) : []
        #expect(refusedBatch.count > 1, "the refused request held one report; the backlog should have been batched")
        #expect(refused == Array(refusedBatch.prefix(1)), "the batch's first report went alone, and was refused")
        let delivered = Self.sentReportTimes(requests.filter { $0.status / 100 == 2 })
        let reports = reportTimes(agent.process.outputLines)
        #expect(delivered.count == Set(delivered).count, "a report delivered twice")
        #expect(delivered == delivered.sorted(), "delivered out of order")
        #expect(Set(delivered).isDisjoint(with: refused))
        #expect(Set(refusedBatch.dropFirst()).isSubset(of: delivered), "the batch's other reports were delivered")
        #expect(
            Set(delivered).union(refused) == Set(reports),
            "reports \(reports.count), delivered \(delivered.count), refused \(refused.count)")
        #expect(status["rejected"] as? Int == 1 && status["dropped"] as? Int == 1, "\(status)")
        let log = agent.process.errorOutput
        #expect(log.contains("HTTP 400 for \(refusedBatch.count) reports"), "\(log.suffix(2000))")
        #expect(log.contains("sending them one at a time"), "\(log.suffix(2000))")
        #expect(log.contains("HTTP 400 for 1 report"), "\(log.suffix(2000))")
        #expect(log.contains("(Retry-After)"), "\(log.suffix(2000))")
    }

    @Test func aQueuePastMaxAgeOrMaxBytesDropsTheOldestAndCountsThem() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        // Many checks, so that 64 KiB holds a few dozen reports.
        try stateLines(40, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"), mode: "fail")
        defer { receiver.stop() }
        let agent = try LiveAgent(in: dir) { port in
            Self.config(
                port, stateFile: stateFile,
                sinks: """
                    {"type": "remote_write", "url": "\(receiver.base)/age", "max_age": "2s", "retry": {"initial": "100ms", "max": "200ms"}},
                    {"type": "remote_write", "url": "\(receiver.base)/bytes", "max_bytes": "64KiB", "retry": {"initial": "100ms", "max": "200ms"}}
                    """)
        }
        defer { agent.stop() }
        // Each bound drops at least twice (max_bytes drops a whole segment of reports at a time:
        // twice the first count is a second drop, not the first one's report that was out settling),
        // so that the log has a first line and a summary for each.
        var firstDrops: [String: Int] = [:]
        #expect(
            waitUntil(timeout: 90) {
                let s = Self.sinkStatus(agent)
                var again = 0
                for entry in s {
                    let target = entry["target"] as? String ?? ""
                    let dropped = entry["dropped"] as? Int ?? 0
                    if dropped > 0 && firstDrops[target] == nil { firstDrops[target] = dropped }
                    if let first = firstDrops[target], dropped >= 2 * first, dropped >= 5 { again += 1 }
                }
                return s.count == 2 && again == 2
            }, "\(Self.sinkStatus(agent))\nagent: \(agent.process.errorOutput.suffix(1500))")
        try receiver.control(#"{"mode": "ok"}"#)
        // Both entries, read: a /status that did not answer (a loaded machine) is no empty queue.
        try #require(
            waitUntil(timeout: 60) {
                let s = Self.sinkStatus(agent)
                return s.count == 2 && s.allSatisfy { $0["queued"] as? Int == 0 && $0["last_delivery"] is String }
            }, "\(Self.sinkStatus(agent))\nagent: \(agent.process.errorOutput.suffix(1500))")
        agent.stop()
        // The status of the last report printed: what each sink dropped in all.
        let lastDocument = agent.process.outputLines.compactMap { try? parseJSONObject($0) }.last {
            $0["checks"] != nil
        }
        let reports = reportTimes(agent.process.outputLines)
        for path in ["/age", "/bytes"] {
            let requests = receiver.writeRequests().filter { $0.path == path }
            let delivered = Self.sentReportTimes(requests.filter { $0.status / 100 == 2 })
            let first = try #require(delivered.first, "nothing delivered to \(path)")
            // Everything from the first delivered report on arrived, once, in order; all before it was dropped.
            #expect(
                delivered == reports.filter { $0 >= first }, "\(path): delivered \(delivered.count) of \(reports.count)"
            )
            let dropped = reports.filter { $0 < first }.count
            #expect(dropped >= 5)
            let entry = (lastDocument?["sinks"] as? [[String: Any]])?.first {
                ($0["target"] as? String)?.hasSuffix(path) == true
            }
            #expect(
                entry?["dropped"] as? Int == dropped && entry?["rejected"] as? Int == 0,
                "\(path): \(String(describing: entry)), \(dropped) dropped")
        }
        let log = agent.process.errorOutput
        #expect(log.contains("older than max_age"), "\(log.suffix(2000))")
        #expect(log.contains("at max_bytes"), "\(log.suffix(2000))")
        // Each bound dropped again and again: said once, the rest left to a summary ten minutes
        // on, or at the stop, which says what was held back.
        for words in ["older than max_age", "at max_bytes"] {
            let lines = log.split(separator: "\n").filter { $0.contains(words) }
            #expect(
                lines.count == 2 && lines.last?.contains("more like it in the last") == true,
                "\(words):\n\(lines.joined(separator: "\n"))")
        }
        // Dozens of retries (every 100-200 ms) of one failure: its first attempt and one retry
        // are written per sink, the rest left to the summary (written at the stop).
        let retries = log.split(separator: "\n").filter { $0.contains("failed, next in") }
        #expect(
            !retries.isEmpty && retries.count <= 6,
            "\(retries.count) retry lines:\n\(retries.suffix(10).joined(separator: "\n"))")
    }
}
