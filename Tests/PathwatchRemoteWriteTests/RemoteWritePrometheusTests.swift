import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// The `remote_write` sink against Debian's Prometheus with its remote-write receiver on, all
/// on 127.0.0.1: PromQL sees the `/metrics` series with the values of the same reports, each at
/// its report's own time, and none twice.
@Suite(.serialized, .onItsOwnThread) struct RemoteWritePrometheusTests {
    static func missingPrometheus() -> String? { PrometheusServer.unavailable() }

    @Test(.enabled(if: missingPrometheus() == nil, "needs prometheus (make test-deps)"))
    func prometheusHoldsTheMetricsSeriesWithTheValuesOfEachReport() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let prometheus = try PrometheusServer(
            in: dir, configuration: "global:\n  scrape_interval: 1m\n",
            arguments: ["--web.enable-remote-write-receiver"])
        let agent = try LiveAgent(in: dir) { port in
            """
            {"agent": {"name": "rw-test", "plugin_dirs": ["."], "interval": "300ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe",
                         "config": {"state_file": "\(stateFile.path)", "counter": true, "metric_echo": "queue_depth"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "http", "listen": "127.0.0.1:\(port)"},
                       {"type": "remote_write", "url": "http://127.0.0.1:\(prometheus.port)/api/v1/write",
                        "external_labels": {"fleet": "test"}}]}
            """
        }
        defer { agent.stop() }
        func diagnostics() -> String {
            "agent: \(agent.process.errorOutput.suffix(1500))\nprometheus: \(prometheus.process.errorOutput.suffix(1500))"
        }

        let selector = #"pathwatch_check_state{check="api/c0",state="ok",fleet="test",instance="rw-test"}"#
        #expect(
            waitUntil(timeout: 60) { prometheus.query(selector).first?.value == "1" },
            "\(selector) never 1\n\(diagnostics())")
        // Every stable series of /metrics is in Prometheus with the same value (its labels plus
        // the external ones and `instance`).
        let metrics = try agent.request("/metrics").body
        let stable = ExpositionReader.series(in: Array(metrics.utf8)).filter {
            [
                "pathwatch_check_state", "pathwatch_path_satisfied", "pathwatch_path_info", "pathwatch_probe_success",
                "pathwatch_build_info", "pathwatch_testprobe_queue_depth",
            ].contains($0.name)
        }
        #expect(stable.count >= 8, "\(metrics)")
        #expect(
            stable.contains { $0.name == "pathwatch_testprobe_queue_depth" },
            "no plug-in series in /metrics: \(metrics)")
        for series in stable {
            let matchers =
                series.labels.filter { $0.name != "__name__" }.map { "\($0.name)=\(quoted($0.value))" }
                + [#"fleet="test""#, #"instance="rw-test""#]
            let expression = "\(series.name){\(matchers.joined(separator: ","))}"
            let found = prometheus.query(expression)
            #expect(
                found.count == 1 && Double(found.first?.value ?? "") == series.value,
                "\(expression): /metrics has \(series.value), Prometheus \(found.map(\.value))")
        }
        #expect(prometheus.query(#"pathwatch_up{instance="rw-test"}"#).first?.value == "1")

        // Each report's counter is in Prometheus at that report's own time, once.
        #expect(waitUntil(timeout: 30) { reportTimes(agent.process.outputLines).count >= 8 })
        agent.stop()
        let times = reportTimes(agent.process.outputLines)
        #expect(times.count >= 5, "too few reports: \(times.count)\n\(diagnostics())")
        let samples = prometheus.rawSamples(#"pathwatch_testprobe_samples{check="api/c0"}"#)
        let byTime = Dictionary(samples.map { ($0.timestamp, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(samples.count == byTime.count, "a timestamp twice")
        #expect(
            Set(samples.map(\.timestamp)) == Set(times),
            "reports \(times.count), samples \(samples.count)\n\(diagnostics())")
        let counters = counterValues(agent.process.outputLines)
        #expect(counters.count == times.count, "the samples metric of each printed report")
        for (time, value) in counters {
            #expect(
                byTime[time] == value, "report at \(time): \(value), Prometheus \(String(describing: byTime[time]))")
        }
        let count = prometheus.query(#"count_over_time(pathwatch_probe_success{probe="api",instance="rw-test"}[10m])"#)
            .first?.value
        #expect(count == String(times.count), "count_over_time \(String(describing: count)) for \(times.count) reports")
    }

    /// Several probes reporting at once, some within one millisecond: each report's series
    /// (its probe's, and the agent's once an interval) are stored, none refused.
    @Test(.enabled(if: missingPrometheus() == nil, "needs prometheus (make test-deps)"))
    func reportsOfProbesSampledTogetherAreAllStored() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let prometheus = try PrometheusServer(
            in: dir, configuration: "global:\n  scrape_interval: 1m\n",
            arguments: ["--web.enable-remote-write-receiver"])
        let probes = (0..<4).map {
            #"{"id": "p\#($0)", "plugin": "testprobe", "config": {"checks": 2, "counter": true}}"#
        }
        let agent = try LiveAgent(in: dir) { port in
            """
            {"agent": {"name": "rw-together", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [\(probes.joined(separator: ", "))],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}, {"type": "http", "listen": "127.0.0.1:\(port)"},
                       {"type": "remote_write", "url": "http://127.0.0.1:\(prometheus.port)/api/v1/write"}]}
            """
        }
        defer { agent.stop() }
        #expect(waitUntil(timeout: 30) { reportTimes(agent.process.outputLines).count >= 60 })
        agent.stop()
        let reports = reportTimes(agent.process.outputLines)
        #expect(
            Set(reports).count < reports.count, "no two reports shared a millisecond; the test proves nothing this time"
        )
        let stored = (0..<4).flatMap {
            prometheus.rawSamples(#"pathwatch_probe_success{probe="p\#($0)",instance="rw-together"}"#)
        }
        #expect(
            stored.count == reports.count,
            "\(stored.count) stored of \(reports.count) reports\n\(agent.process.errorOutput.suffix(1500))")
        #expect(!agent.process.errorOutput.contains("HTTP 400"), "\(agent.process.errorOutput.suffix(1500))")
    }

    /// What the sink's handling of a request sent again (after a kill -9 between a 2xx and the
    /// queue's removal) rests on: Prometheus accepts the same samples at the same timestamps
    /// silently, and refuses with a 400 samples older than what it holds, without storing the
    /// rest of that request.
    @Test(.enabled(if: missingPrometheus() == nil, "needs prometheus (make test-deps)"))
    func prometheusAcceptsARepeatedRequestAndRefusesAnOlderOne() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let prometheus = try PrometheusServer(
            in: dir, configuration: "global:\n  scrape_interval: 1m\n",
            arguments: ["--web.enable-remote-write-receiver"])
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func request(_ samples: [(Int64, Double)]) throws -> URL {
            var body: [UInt8] = []
            for (time, value) in samples {
                let series = TimeSeries(
                    labels: [.init(name: "__name__", value: "rw_probe"), .init(name: "job", value: "t")], value: value)
                body += WriteRequestEncoder.entries(of: [series], timestamp: time)
            }
            let file = dir.appendingPathComponent("request-\(samples.count)-\(samples[0].0)")
            try Data(try #require(Snappy.compress(body))).write(to: file)
            return file
        }
        func post(_ file: URL) throws -> (status: String, body: String) {
            let result = try run(
                [
                    "curl", "-s", "--noproxy", "*", "-w", "\n%{http_code}", "-H", "Content-Encoding: snappy", "-H",
                    "Content-Type: application/x-protobuf",
                    "-H", "X-Prometheus-Remote-Write-Version: 0.1.0", "--data-binary", "@\(file.path)",
                    "\(prometheus.base)/api/v1/write",
                ], timeout: 20)
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        let batch = try request([(now - 3000, 1), (now - 2000, 2), (now - 1000, 3)])
        #expect(try post(batch).status == "204")
        #expect(
            try post(batch).status != "204",
            "the same three samples again: the first two are older than the newest stored")
        let last = try request([(now - 1000, 3)])
        #expect(try post(last).status == "204", "the newest sample again, alone: accepted silently")
        let older = try request([(now - 1500, 9), (now, 4)])
        let refused = try post(older)
        #expect(refused.status == "400" && refused.body.contains("out of order"), "\(refused)")
        #expect(
            prometheus.rawSamples(#"rw_probe{job="t"}"#).map(\.value) == [1, 2, 3], "the refused request stored nothing"
        )
    }

    func quoted(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// The `samples` metric of check api/c0 at each report of probe api (its `last_sample_at`:
    /// documents are paced, and one report may show in several).
    func counterValues(_ lines: [String]) -> [(Int64, Double)] {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var seen: Set<String> = []
        return lines.compactMap { try? parseJSONObject($0) }.compactMap { doc in
            guard
                let text = (doc["probes"] as? [[String: Any]])?.first(where: { $0["id"] as? String == "api" })?[
                    "last_sample_at"] as? String,
                seen.insert(text).inserted, let time = parser.date(from: text),
                let check = (doc["checks"] as? [[String: Any]])?.first(where: { $0["id"] as? String == "api/c0" }),
                let value = (check["metrics"] as? [String: Any])?["samples"] as? Double
            else { return nil }
            return (Int64((time.timeIntervalSince1970 * 1000).rounded()), value)
        }
    }
}

extension PrometheusServer {
    /// Every raw sample of the series `selector` picks in the last hour (one series expected).
    func rawSamples(_ selector: String) -> [(timestamp: Int64, value: Double)] {
        guard
            let result = try? run(
                [
                    "curl", "-sfG", "--noproxy", "*", "--data-urlencode", "query=\(selector)[1h]",
                    "\(base)/api/v1/query",
                ], timeout: 10),
            result.status == 0, let object = try? parseJSONObject(result.stdout),
            let series = (object["data"] as? [String: Any])?["result"] as? [[String: Any]]
        else { return [] }
        return series.flatMap { ($0["values"] as? [[Any]]) ?? [] }.compactMap { pair in
            guard let t = pair.first as? Double, let v = (pair.last as? String).flatMap(Double.init) else { return nil }
            return (Int64((t * 1000).rounded()), v)
        }
    }
}
