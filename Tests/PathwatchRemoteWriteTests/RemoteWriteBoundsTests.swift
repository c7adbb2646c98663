import Foundation
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// The `remote_write` sink at its bounds, through the real agent and the scripted receiver:
/// a report larger than `max_bytes`, reports over `max_samples_per_send` across a clean restart,
/// a small queue in front of a slow receiver that fails and refuses, and hostile
/// `external_labels`. Every report the sink takes ends delivered, dropped or queued, once.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteBoundsTests {
    typealias Delivery = RemoteWriteDeliveryTests

    func agent(in dir: URL, stateFile: URL, sink: String) throws -> LiveAgent {
        try LiveAgent(in: dir) { port in Delivery.config(port, stateFile: stateFile, sinks: sink) }
    }

    /// An agent reporting every second, without the stdout sink: 500 checks a report is work
    /// enough for a debug build.
    func slowAgent(in dir: URL, stateFile: URL, sink: String) throws -> LiveAgent {
        try LiveAgent(in: dir) { port in
            """
            {"agent": {"name": "rw-bounds", "plugin_dirs": ["."], "interval": "1s", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}, \(sink)]}
            """
        }
    }

    /// A report of 2,000 checks (8,000 series, each defined by the record, as none was ever
    /// queued) is some 150 KiB queued, past a 64 KiB queue: it can never be
    /// queued, so each one is dropped and counted, `last_error` says why, the log says it once
    /// (never that it dropped "oldest" reports from a queue that is empty), and the agent stays
    /// small. Once max_bytes is raised, they are delivered.
    @Test func aReportLargerThanMaxBytesIsDroppedCountedAndSaid() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(2000, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"))
        defer { receiver.stop() }
        let since = Date()
        let agent = try slowAgent(
            in: dir, stateFile: stateFile,
            sink: """
                {"type": "remote_write", "url": "\(receiver.base)/api/v1/write", "max_bytes": "64KiB"}
                """)
        defer { agent.process.stop(grace: 30) }
        let pid = agent.process.processIdentifier
        var entry: [String: Any] = [:]
        let folder = dir.appendingPathComponent(
            "queues/" + RemoteWritePush.folderName(url: "\(receiver.base)/api/v1/write"))
        /// The bytes the queue's segments hold: none of a report that was dropped.
        func segmentBytes() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".seg") }.reduce(0) { total, name in
                let size = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[
                    .size]
                return total + ((size as? NSNumber)?.intValue ?? 0)
            }
        }
        // Each report is dropped and nothing of it reaches the disk. (`queued` is not waited for:
        // it counts the reports the sink is still encoding, and a debug build on a busy machine
        // takes about the interval for 8,000 series, so it may never show none.)
        #expect(
            waitUntil(timeout: 90) {
                entry = Delivery.sinkStatus(agent).first ?? [:]
                return (entry["dropped"] as? Int ?? 0) >= 5 && segmentBytes() == 0
            }, "\(entry), segments \(segmentBytes()) bytes\nagent: \(agent.process.errorOutput.suffix(1500))")
        let reports = Date().timeIntervalSince(since) + 2
        let rss = try #require(ProcessUsage.residentKiB(pid))
        #expect(entry["rejected"] as? Int == 0, "\(entry)")
        #expect(
            (entry["last_error"] as? String)?.contains("is larger than max_bytes (64 KiB) and was dropped") == true,
            "\(entry)")
        #expect(receiver.writeRequests().isEmpty, "nothing can have been sent")
        // The adversary saw 240-320 MB, and a report tried again and again. A loose bound on
        // memory, and each report dropped once: never more drops than the reports made at one a
        // second since the agent started (a busy machine makes fewer, never more). CPU is not
        // bounded here: encoding 8,000 series a second is most of it, and a debug build's cost
        // of that depends on the machine.
        #expect(rss < 150_000, "\(rss) KiB resident")
        #expect(Double(entry["dropped"] as? Int ?? 0) <= reports, "\(entry) in \(reports - 2) s")
        let log = agent.process.errorOutput
        #expect(log.components(separatedBy: "is larger than max_bytes").count == 2, "said once: \(log.suffix(2000))")
        #expect(!log.contains("oldest"), "\(log.suffix(2000))")

        // The operator raises max_bytes (a reload keeps the queue's folder): reports are delivered.
        let text = try String(contentsOf: agent.config, encoding: .utf8)
        try text.replacingOccurrences(of: #""max_bytes": "64KiB""#, with: #""max_bytes": "8MiB""#)
            .write(to: agent.config, atomically: true, encoding: .utf8)
        agent.process.signal(SIGHUP)
        #expect(
            waitUntil(timeout: 60) {
                entry = Delivery.sinkStatus(agent).first ?? [:]
                return !receiver.writeRequests().filter { $0.status == 200 }.isEmpty && entry["last_delivery"] is String
            }, "\(entry)\nagent: \(agent.process.errorOutput.suffix(1500))")
    }

    /// `max_samples_per_send` 20 and reports of some 50 series: every request carries at most
    /// 20 samples. The first report's third part fails until the agent is stopped cleanly; after
    /// the restart that part is sent, and no sample ever reaches the receiver twice.
    @Test func aReportOverMaxSamplesPerSendGoesInPartsAndARestartSendsNoneTwice() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(10, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"))
        defer { receiver.stop() }
        let failures = Array(repeating: #"{"status": 500}"#, count: 200)
        // 200, not 204: the receiver sends a body with every status, which a 204 must not have.
        try receiver.control(#"{"script": [{"status": 200}, {"status": 200}, \#(failures.joined(separator: ","))]}"#)
        let sink = """
            {"type": "remote_write", "url": "\(receiver.base)/api/v1/write", "max_samples_per_send": 20,
             "retry": {"initial": "100ms", "max": "200ms"}}
            """
        let first = try agent(in: dir, stateFile: stateFile, sink: sink)
        #expect(waitUntil(timeout: 60) { receiver.records().count >= 5 }, "\(first.process.errorOutput.suffix(1500))")
        first.process.stop(grace: 30)
        try receiver.control(#"{"script": [], "mode": "ok"}"#)
        let second = try agent(in: dir, stateFile: stateFile, sink: sink)
        defer { second.process.stop(grace: 30) }
        let printed = reportTimes(first.process.outputLines)
        let firstReport = try #require(printed.first)
        // The first report's parts already sent carry its time too: wait for the part the
        // restart sends as well, not only for every report's time.
        func firstReportWhole(_ samples: [WrittenSample]) -> Bool {
            let parts = samples.filter { $0.timestamp == firstReport }
            return parts.filter { $0.name == "pathwatch_check_state" }.count == 40
                && parts.contains { $0.name == "pathwatch_up" }
        }
        #expect(
            waitUntil(timeout: 60) {
                let requests = receiver.writeRequests()
                return Set(Delivery.sentReportTimes(requests)).isSuperset(of: printed)
                    && firstReportWhole(requests.filter { $0.status / 100 == 2 }.flatMap(\.samples))
            })
        #expect(second.process.errorOutput.contains("kept from before"), "\(second.process.errorOutput.suffix(1500))")

        let requests = receiver.writeRequests()
        #expect(requests.allSatisfy { $0.samples.count <= 20 }, "\(requests.map(\.samples.count))")
        let accepted = requests.filter { $0.status / 100 == 2 }.flatMap(\.samples)
        #expect(accepted.count == Set(accepted).count, "a sample arrived twice")
        let parts = accepted.filter { $0.timestamp == firstReport }
        #expect(
            firstReportWhole(accepted),
            "the first report, sent in parts across the restart, arrived whole: \(parts.count) samples")
        for name in Set(accepted.map(\.name)) {
            let times = accepted.filter {
                $0.name == name && $0.labels["check"] == "api/c0" && $0.labels["state"] != "warning"
            }.map(\.timestamp)
            #expect(times == times.sorted(), "\(name) out of order")
        }
    }

    /// A 64 KiB queue holds two reports of 250 checks (a segment is its preamble, 1,000 series'
    /// labels, and a report or two); the receiver answers slowly (each append
    /// during a request pushes out the report being sent), fails, refuses one request, then
    /// accepts. Every report taken is counted once: delivered, dropped, rejected or queued.
    @Test func everyReportTakenIsDeliveredDroppedOrQueuedOnce() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(250, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"), delayMilliseconds: 450)
        defer { receiver.stop() }
        let script =
            [#"{"status": 200}"#] + Array(repeating: #"{"status": 500}"#, count: 3) + [#"{"status": 400}"#]
            + Array(repeating: #"{"status": 503}"#, count: 2)
        try receiver.control(#"{"script": [\#(script.joined(separator: ","))]}"#)
        let url = "\(receiver.base)/api/v1/write"
        let agent = try agent(
            in: dir, stateFile: stateFile,
            sink: """
                {"type": "remote_write", "url": "\(url)", "max_bytes": "64KiB", "retry": {"initial": "100ms", "max": "300ms"}}
                """)
        #expect(
            waitUntil(timeout: 120) { receiver.writeRequests().filter { $0.status == 200 }.count >= 25 },
            "\(agent.process.errorOutput.suffix(1500))")
        let status = try #require(Delivery.sinkStatus(agent).first)
        agent.process.stop(grace: 30)

        let requests = receiver.writeRequests()
        let delivered = Delivery.sentReportTimes(requests.filter { $0.status / 100 == 2 })
        let refused = Delivery.sentReportTimes(requests.filter { $0.status == 400 })
        let taken = reportTimes(agent.process.outputLines)
        #expect(delivered.count == Set(delivered).count && delivered == delivered.sorted())
        // What the status showed last, and the queue as the agent left it (its counts are the status's).
        let queue = try DurableQueue(
            folder: dir.path + "/queues/" + RemoteWritePush.folderName(url: url),
            limits: .init(records: 1000, bytes: 1 << 30))
        defer { queue.close() }
        let counts = queue.counters
        #expect(counts.rejected == UInt64(refused.count) && refused.count > 0, "\(counts), refused \(refused.count)")
        #expect(counts.dropped > 0, "the bound dropped reports")
        #expect(
            delivered.count + Int(counts.dropped + counts.rejected) + queue.count == taken.count,
            "delivered \(delivered.count) + dropped \(counts.dropped) + rejected \(counts.rejected) + queued \(queue.count) for \(taken.count) reports"
        )
        #expect((status["dropped"] as? Int ?? 0) + (status["queued"] as? Int ?? 0) <= taken.count, "\(status)")
    }

    /// 10,000 external labels and a megabyte of label value: the agent refuses the file at once
    /// with the path, exit 78, quoting no value.
    @Test(arguments: ["check-config", "run"])
    func hostileExternalLabelsAreRefusedAtLoad(command: String) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        for (labels, path) in [
            (RemoteWriteConfigTests.labels(10_000), "sinks[0].external_labels:"),
            (#"{"site": "\#(String(repeating: "v", count: 1 << 20))"}"#, "sinks[0].external_labels.site:"),
        ] {
            let config = try writeConfig(
                #"""
                {"agent": {"state_dir": "\#(dir.path)/queues"},
                 "sinks": [{"type": "remote_write", "url": "http://127.0.0.1:9/w", "external_labels": \#(labels)}]}
                """#, in: dir)
            let started = Date()
            let result = try run([TestEnvironment.pathwatchBinary.path, command, "--config", config.path], timeout: 30)
            #expect(
                result.status == 78 && Date().timeIntervalSince(started) < 5,
                "\(result.status) \(result.stderr.prefix(500))")
            #expect(result.stderr.contains(path), "\(result.stderr.prefix(500))")
            #expect(!result.stderr.contains("vvvvvvvv") && result.stderr.count < 2000 && result.stdout.count < 2000)
        }
    }
}
