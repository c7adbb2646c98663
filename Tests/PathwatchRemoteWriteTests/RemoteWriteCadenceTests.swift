import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchSinkTestSupport

/// Each series at its own probe's cadence: four probes at three intervals push to the scripted
/// receiver on 127.0.0.1. A report carries the series of the probe that reported and, once an
/// agent interval, the agent's own; never another probe's.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteCadenceTests {
    /// The agent's interval (the agent's own series go once in each) and each probe's.
    static let agentInterval = 1.0
    static let probeIntervals = ["fast": "250ms", "half": "500ms", "slow1": "1s", "slow2": "1s"]

    /// Each probe's report times (milliseconds), from the documents printed at every report: a
    /// probe reported when its `last_sample_at` took a new value.
    static func reportTimesByProbe(_ lines: [String]) -> [String: Set<Int64>] {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var times: [String: Set<Int64>] = [:]
        for line in lines {
            guard let doc = try? parseJSONObject(line), let probes = doc["probes"] as? [[String: Any]] else { continue }
            for probe in probes {
                guard let id = probe["id"] as? String, let text = probe["last_sample_at"] as? String,
                    let date = parser.date(from: text)
                else { continue }
                times[id, default: []].insert(Int64((date.timeIntervalSince1970 * 1000).rounded()))
            }
        }
        return times
    }

    @Test func eachProbesSeriesGoAtItsReportsAndTheAgentsOnceAnInterval() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"))
        defer { receiver.stop() }
        let probes = Self.probeIntervals.keys.sorted().map { id in
            #"{"id": "\#(id)", "plugin": "testprobe", "interval": "\#(Self.probeIntervals[id]!)", "config": {"checks": 2, "counter": true}}"#
        }
        let agent = try LiveAgent(in: dir) { port in
            """
            {"agent": {"name": "rw-cadence", "plugin_dirs": ["."], "interval": "1s", "state_dir": "queues"},
             "probes": [\(probes.joined(separator: ", "))],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}, {"type": "http", "listen": "127.0.0.1:\(port)"},
                       {"type": "remote_write", "url": "\(receiver.base)/api/v1/write"}]}
            """
        }
        defer { agent.stop() }
        #expect(
            waitUntil(timeout: 60) { reportTimes(agent.process.outputLines).count >= 60 },
            "\(agent.process.errorOutput.suffix(1500))")
        let taken = reportTimes(agent.process.outputLines)
        // Everything taken so far has arrived (a clean stop would send the rest too, but the
        // check is on what the receiver holds).
        #expect(waitUntil(timeout: 60) { Set(Self.upTimes(receiver)).contains { $0 >= taken.last! - 2_000 } })
        agent.stop()

        let accepted = receiver.writeRequests().filter { $0.status / 100 == 2 }.flatMap(\.samples)
        let byProbe = Self.reportTimesByProbe(agent.process.outputLines)
        #expect(Set(byProbe.keys) == Set(Self.probeIntervals.keys), "\(byProbe.keys)")
        // A probe's series arrive at that probe's reports, each report once: a report is stamped
        // when observed, or a millisecond or two later when reports shared a millisecond.
        for (probe, reports) in byProbe {
            let sent = accepted.filter { $0.name == "pathwatch_probe_success" && $0.labels["probe"] == probe }.map(
                \.timestamp)
            #expect(sent.count == Set(sent).count, "\(probe): a report's series twice")
            let unmatched = sent.filter { t in !reports.contains { t >= $0 && t <= $0 + 3 } }
            #expect(
                unmatched.isEmpty,
                "\(probe): \(unmatched.count) of \(sent.count) samples at no report of \(probe) (\(reports.count) reports)"
            )
            #expect(
                sent.count <= reports.count && sent.count >= reports.count - 2,
                "\(probe): \(sent.count) samples, \(reports.count) reports")
        }
        // One timestamp, one report: the series of one probe at most.
        let probesAtOneTime = Dictionary(
            grouping: accepted.compactMap { s in s.labels["probe"].map { (s.timestamp, $0) } }, by: \.0
        )
        .mapValues { Set($0.map(\.1)) }
        let mixed = probesAtOneTime.filter { $0.value.count > 1 }
        #expect(
            mixed.isEmpty,
            "\(mixed.count) of \(probesAtOneTime.count) timestamps carry several probes' series, e.g. \(mixed.first.map { "\($0.value)" } ?? "")"
        )
        // The agent's own series: once an interval, together, whatever the number of probes.
        let up = accepted.filter { $0.name == "pathwatch_up" }.map(\.timestamp).sorted()
        let span = Double((up.last ?? 0) - (up.first ?? 0)) / 1000
        #expect(
            up.count >= 3 && Double(up.count) <= span / Self.agentInterval + 2,
            "\(up.count) pathwatch_up samples in \(span) s")
        #expect(accepted.filter { $0.name == "pathwatch_path_satisfied" }.map(\.timestamp).sorted() == up)
        // In order and once, series by series.
        #expect(accepted.count == Set(accepted).count, "a sample twice")
        for (key, samples) in Dictionary(grouping: accepted, by: { $0.labels }) {
            let times = samples.map(\.timestamp)
            #expect(times == times.sorted(), "\(key) out of order")
        }
    }

    static func upTimes(_ receiver: WebhookReceiver) -> [Int64] {
        receiver.writeRequests().filter { $0.status / 100 == 2 }.flatMap {
            $0.samples.filter { $0.name == "pathwatch_up" }.map(\.timestamp)
        }
    }
}
