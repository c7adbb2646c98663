import Foundation
import PathwatchTestSupport
import Testing

/// What the webhook sink promises under pressure, through the real binary: reload storms lose
/// nothing, a full state disk holds payloads in memory and recovers, a read-only state folder
/// is a configuration error.
@Suite(.onItsOwnThread) struct WebhookHardeningTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    /// A test probe reading `checks` lines from a state file, a json stdout sink on change, a
    /// status file, and the given webhook sink.
    func makeConfig(in dir: URL, stateFile: URL, stateDir: String, webhook: String, interval: String = "100ms") throws
        -> URL
    {
        try writeConfig(
            """
            {"agent": {"name": "hardening", "plugin_dirs": ["."], "interval": "\(interval)", "state_dir": "\(stateDir)"},
             "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "file", "path": "status.json", "pretty": false},
                       \(webhook)]}
            """, in: dir)
    }

    /// Event ids as the receiver accepted them, duplicates (a redelivered in-flight payload)
    /// dropped the way the contract tells receivers to.
    func uniqueIDs(_ receiver: WebhookReceiver) -> [String] {
        var seen = Set<String>()
        return receiver.acceptedBodies().compactMap { $0["id"] as? String }.filter { seen.insert($0).inserted }
    }

    /// Point 1: events every 250 ms while SIGHUP arrives every 70 ms, each reload replacing the
    /// webhook sink (its settings alternate). Every event printed on stdout reaches the
    /// receiver, in order, and the sink counts no drop.
    @Test func aReloadStormLosesNoWebhookEvent() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(3, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        func webhook(_ timeout: String) -> String {
            #"{"type": "webhook", "url": "\#(receiver.url)", "timeout": "\#(timeout)", "retry": {"initial": "100ms", "max": "500ms"}}"#
        }
        let config = try makeConfig(in: dir, stateFile: stateFile, stateDir: "queues", webhook: webhook("5s"))
        let text = try String(contentsOf: config, encoding: .utf8)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        defer { agent.stop() }
        try #require(waitUntil { agent.errorOutput.contains("started") })
        let start = Date()
        var flips = 0
        var reloads = 0
        var nextFlip = start
        // A storm that lasts twelve seconds by the clock: a load over a time, not a wait for an event.
        while Date().timeIntervalSince(start) < 12 {
            if Date() >= nextFlip {
                flips += 1
                try stateLines(3, flips % 2 == 1 ? "critical" : "ok").write(
                    to: stateFile, atomically: true, encoding: .utf8)
                nextFlip = nextFlip.addingTimeInterval(0.25)
            }
            reloads += 1
            try text.replacingOccurrences(of: webhook("5s"), with: webhook(reloads % 2 == 0 ? "5s" : "7s"))
                .write(to: config, atomically: true, encoding: .utf8)
            agent.signal(SIGHUP)
            usleep(70_000)
        }
        // Let the last flip be sampled and printed, then wait for the receiver to catch up.
        usleep(500_000)
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(printed.count >= 3 * (flips - 2), "events printed: \(printed.count) for \(flips) flips")
        let arrived = waitUntil(timeout: 60) { self.uniqueIDs(receiver).count >= printed.count }
        #expect(
            arrived,
            "\(uniqueIDs(receiver).count) of \(printed.count) events reached the receiver; \(agent.errorOutput.suffix(2000))"
        )
        #expect(sequenceProblem(got: uniqueIDs(receiver), expected: printed) == nil)
        #expect(!agent.errorOutput.contains("dropped"), "\(agent.errorOutput.suffix(2000))")
        #expect(
            waitUntil { (sinkEntry(inStatusFile: dir.appendingPathComponent("status.json"))?["dropped"] as? Int) == 0 })
        #expect(
            agent.errorOutput.components(separatedBy: "configuration reloaded").count > 20, "the storm really reloaded")
    }

    /// Point 2: `state_dir` on a 1 MiB tmpfs (a private mount namespace). With the receiver down,
    /// appends fail with ENOSPC: payloads wait in memory, `last_error` says the state disk is
    /// full, nothing is dropped. When the receiver comes back, delivered segments are reclaimed,
    /// the held payloads reach the disk, and every event arrives in order.
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func aFullStateDiskHoldsPayloadsAndRecovers() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"), start: false)
        defer { receiver.stop() }
        let stateFile = dir.appendingPathComponent("state")
        let checks = 40
        // Long messages make large payloads: the 1 MiB disk fills after a few hundred events.
        let padding = String(repeating: "x", count: 1500)
        try stateLines(checks, "ok", message: padding).write(to: stateFile, atomically: true, encoding: .utf8)
        let queues = dir.appendingPathComponent("queues")
        try FileManager.default.createDirectory(at: queues, withIntermediateDirectories: true)
        let config = try makeConfig(
            in: dir, stateFile: stateFile, stateDir: "queues",
            webhook: #"{"type": "webhook", "url": "\#(receiver.url)", "retry": {"initial": "100ms", "max": "300ms"}}"#)
        let script =
            "mount -t tmpfs -o size=1m pathwatch-state \(queues.path) && exec \(pathwatch) run --config \(config.path)"
        let agent = try BackgroundProcess(["unshare", "--mount", "--propagation", "private", "sh", "-c", script])
        defer { agent.stop() }
        let statusFile = dir.appendingPathComponent("status.json")
        var total = 0
        var flips = 0
        // Flip until the disk is full, then a few more times: those payloads are held in memory.
        var fullAt: Int?
        while flips < 60 {
            flips += 1
            total += checks
            try stateLines(checks, flips % 2 == 1 ? "critical" : "ok", message: padding).write(
                to: stateFile, atomically: true, encoding: .utf8)
            try #require(
                waitUntil(timeout: 20) { changeEvents(agent.outputLines).count >= total },
                "\(agent.errorOutput.suffix(2000))")
            if fullAt == nil, agent.errorOutput.contains("state disk is full") { fullAt = flips }
            if let fullAt, flips >= fullAt + 4 { break }
        }
        try #require(fullAt != nil, "the 1 MiB state disk never filled; \(agent.errorOutput.suffix(2000))")
        // Queued on disk and held in memory together: every event, none dropped.
        let sink = waitUntilValue {
            sinkEntry(inStatusFile: statusFile).flatMap { ($0["queued"] as? Int) == total ? $0 : nil }
        }
        #expect(sink != nil, "\(String(describing: sinkEntry(inStatusFile: statusFile)))")
        #expect((sink?["dropped"] as? Int) == 0)
        #expect((sink?["last_error"] as? String)?.contains("state disk is full") == true, "\(String(describing: sink))")
        try receiver.start()
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(printed.count == total)
        let arrived = waitUntil(timeout: 90) { self.uniqueIDs(receiver).count >= printed.count }
        #expect(arrived, "\(uniqueIDs(receiver).count) of \(printed.count) arrived; \(agent.errorOutput.suffix(3000))")
        #expect(sequenceProblem(got: uniqueIDs(receiver), expected: printed) == nil)
        #expect(agent.errorOutput.contains("takes payloads again"))
        // After recovery new events still flow through the disk queue.
        try stateLines(checks, flips % 2 == 1 ? "ok" : "critical", message: padding).write(
            to: stateFile, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 30) { self.uniqueIDs(receiver).count >= printed.count + checks })
        #expect(
            waitUntil {
                (sinkEntry(inStatusFile: statusFile)?["dropped"] as? Int) == 0
                    && (sinkEntry(inStatusFile: statusFile)?["queued"] as? Int) == 0
            })
    }

    /// Point 2: a read-only `state_dir` is a configuration error, at start and in check-config.
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func aReadOnlyStateFolderIsAConfigurationError() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(1, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let readOnly = dir.appendingPathComponent("ro")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        let config = try makeConfig(
            in: dir, stateFile: stateFile, stateDir: "ro/queues",
            webhook: #"{"type": "webhook", "url": "http://127.0.0.1:9/hook"}"#)
        for command in ["check-config", "run"] {
            let script =
                "mount -t tmpfs -o ro pathwatch-ro \(readOnly.path) && exec \(pathwatch) \(command) --config \(config.path)"
            let result = try run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], timeout: 10)
            #expect(result.status == 78, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("\(config.path): agent.state_dir: "), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("read-only file system"), "\(command): \(result.stderr)")
        }
    }

    /// A webhook signs (and finds a queue under its earlier name) with libcrypto, loaded on first
    /// use: a host where it cannot be loaded refuses the sink, naming it, at start and in check-config. The
    /// library is hidden by mounting an empty file over it in a private mount namespace.
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func aHostWithoutLibcryptoRefusesAWebhookSink() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(1, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try makeConfig(
            in: dir, stateFile: stateFile, stateDir: "queues",
            webhook: #"{"type": "webhook", "url": "http://127.0.0.1:9/hook"}"#)
        let hide =
            #"lib=$(readlink -f "$(ldconfig -p | awk '/libcrypto\.so\.3 /{print $NF; exit}')") && [ -f "$lib" ] && mount --bind /dev/null "$lib""#
        for command in ["check-config", "run"] {
            let script = "\(hide) && exec \(pathwatch) \(command) --config \(config.path)"
            let result = try run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], timeout: 10)
            #expect(result.status == 78, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains("\(config.path): sinks[2].type: a webhook sink needs OpenSSL's libcrypto"),
                "\(command): \(result.stderr)")
        }
        // Without the mount, the same file is valid: the refusal was libcrypto's absence alone.
        #expect(try run([pathwatch, "check-config", "--config", config.path], timeout: 10).status == 0)
    }
}
