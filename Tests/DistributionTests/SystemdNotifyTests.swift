import Foundation
import PathwatchTestSupport
import Testing

/// The agent under `pathwatch run` speaking systemd's notify protocol to a real NOTIFY_SOCKET
/// datagram listener, the way a `Type=notify` unit with `WatchdogSec=1s` sees it.
@Suite(.onItsOwnThread) struct SystemdNotifyTests {
    /// Two test probes (one reading its state from a file the test writes) sampled every 200 ms.
    struct Setup {
        let folder: URL
        let plugins: URL
        let stateFile: URL
        let config: URL

        init() throws {
            folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-notify")
            plugins = try FixturePlugins.folderWithTestProbe()
            stateFile = folder.appendingPathComponent("state")
            try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
            config = try writeConfig(
                """
                {"agent": {"name": "notify-test", "interval": "200ms", "plugin_dirs": ["\(plugins.path)"]},
                 "probes": [{"id": "a", "plugin": "testprobe"},
                            {"id": "b", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
                 "sinks": [{"type": "stdout", "format": "json", "on": "change"}]}
                """, in: folder)
        }

        func start(_ listener: NotifyListener, watchdogUSec: Int = 1_000_000, extra: [String: String] = [:]) throws
            -> BackgroundProcess
        {
            try BackgroundProcess(
                [TestEnvironment.pathwatchBinary.path, "run", "--config", config.path],
                environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "\(watchdogUSec)"].merging(extra) { $1 })
        }

        func cleanUp() { [folder, plugins].forEach(TestEnvironment.removeTemporaryDirectory) }
    }

    @Test func readyStatusWatchdogReloadAndStop() throws {
        let setup = try Setup()
        defer { setup.cleanUp() }
        let listener = try NotifyListener(in: setup.folder)
        defer { listener.close() }
        let agent = try setup.start(listener)

        // READY only once both probes have reported: the status it carries counts two checks.
        let ready = try #require(listener.wait(for: "READY", value: "1"), "no READY=1; stderr: \(agent.errorOutput)")
        let statusAtReady = listener.messages[...ready.index].compactMap { $0.fields["STATUS"] }.last
        #expect(statusAtReady == "Connectivity not monitored (no link probe reports it); 2 checks: 2 ok")

        // A check changes state: STATUS follows.
        try "critical down\n".write(to: setup.stateFile, atomically: true, encoding: .utf8)
        #expect(
            listener.wait(
                for: "STATUS",
                value: "Connectivity not monitored (no link probe reports it); 2 checks: 1 ok, 1 critical") != nil,
            "\(listener.messages.map(\.text))")

        // WATCHDOG_USEC=1s: a ping every half second. Bounds are generous (a loaded machine), but
        // a ping per check, or one per second, would fall outside them.
        let firstPing = listener.pings.count
        Thread.sleep(forTimeInterval: 3)  // a rate over a window: the window is real time
        let pings = Array(listener.pings[firstPing...])
        #expect((3...9).contains(pings.count), "\(pings.count) pings in 3 s")
        let gaps = zip(pings.dropFirst(), pings).map { $0.timeIntervalSince($1) }.sorted()
        if !gaps.isEmpty { #expect((0.3...0.8).contains(gaps[gaps.count / 2]), "median gap \(gaps[gaps.count / 2]) s") }

        // SIGHUP: RELOADING=1 stamped with the monotonic clock, then READY=1 again.
        let before = listener.messages.count
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        agent.signal(SIGHUP)
        let reloading = try #require(listener.wait(for: "RELOADING", value: "1", from: before), "no RELOADING=1")
        let stamp = try #require(reloading.message.fields["MONOTONIC_USEC"].flatMap(UInt64.init))
        let sent = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        #expect(stamp >= sent && stamp < sent + 30_000_000, "MONOTONIC_USEC \(stamp), signal sent at \(sent)")
        #expect(
            listener.wait(for: "READY", value: "1", from: reloading.index + 1) != nil, "no READY=1 after the reload")

        // SIGTERM: STOPPING=1, and a clean exit.
        let beforeStop = listener.messages.count
        #expect(agent.stop() == 0)
        #expect(listener.messages[beforeStop...].contains { $0.fields["STOPPING"] == "1" }, "no STOPPING=1")
    }

    /// A probe whose first sample hangs does not hold READY past `agent.ready_timeout`: STATUS=
    /// names it while it is awaited, and stops naming it once it has reported.
    @Test func readyDoesNotWaitForAHungFirstSample() throws {
        let setup = try Setup()
        defer { setup.cleanUp() }
        let gate = setup.folder.appendingPathComponent("gate")
        let config = try writeConfig(
            """
            {"agent": {"name": "notify-hung", "interval": "200ms", "ready_timeout": "300ms",
                       "plugin_dirs": ["\(setup.plugins.path)"]},
             "probes": [{"id": "a", "plugin": "testprobe"},
                        {"id": "hung", "plugin": "testprobe", "timeout": "10m", "config": {"wait_file": "\(gate.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"}]}
            """, in: setup.folder, name: "hung.json")
        let listener = try NotifyListener(in: setup.folder)
        defer { listener.close() }
        let agent = try BackgroundProcess(
            [TestEnvironment.pathwatchBinary.path, "run", "--config", config.path],
            environment: ["NOTIFY_SOCKET": listener.path])
        let ready = try #require(listener.wait(for: "READY", value: "1"), "no READY=1; stderr: \(agent.errorOutput)")
        // The gate is still shut, so the hung probe cannot have reported: READY came without it.
        let statusAtReady = listener.messages[...ready.index].compactMap { $0.fields["STATUS"] }.last ?? ""
        let pending = statusAtReady.components(separatedBy: "; waiting for first samples: ").dropFirst().first
        #expect(pending?.components(separatedBy: ", ").contains("hung") == true, "\(statusAtReady)")

        try "".write(to: gate, atomically: true, encoding: .utf8)
        let reported = "Connectivity not monitored (no link probe reports it); 2 checks: 2 ok"
        #expect(
            listener.wait(for: "STATUS", value: reported, from: ready.index) != nil,
            "\(listener.messages.compactMap { $0.fields["STATUS"] })")
        #expect(agent.stop() == 0)
    }

    /// With a link probe the path is monitored; once the agent says STOPPING=1 it says nothing
    /// more, where the probes stopping used to send a last "Connectivity not monitored".
    @Test func nothingFollowsStopping() throws {
        let setup = try Setup()
        defer { setup.cleanUp() }
        let config = try writeConfig(
            """
            {"agent": {"name": "notify-stop", "interval": "1s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"]},
             "probes": [{"id": "link", "plugin": "linkstate", "isolation": "inline"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"}]}
            """, in: setup.folder, name: "link.json")
        let listener = try NotifyListener(in: setup.folder)
        defer { listener.close() }
        // The service's own user, who may write to the notify socket, as systemd arranges.
        try Unprivileged.own(setup.folder)
        let agent = try BackgroundProcess(
            Unprivileged.pathwatch(["run", "--config", config.path]), environment: ["NOTIFY_SOCKET": listener.path])
        let ready = try #require(listener.wait(for: "READY", value: "1"), "no READY=1; stderr: \(agent.errorOutput)")
        let status = listener.messages[...ready.index].compactMap { $0.fields["STATUS"] }.last ?? ""
        #expect(!status.hasPrefix("Connectivity not monitored"), "\(status)")
        #expect(agent.stop() == 0)
        let messages = listener.messages
        let stopping = try #require(messages.firstIndex { $0.fields["STOPPING"] == "1" }, "no STOPPING=1")
        let after = messages[(stopping + 1)...].compactMap { $0.fields["STATUS"] }
        #expect(after.isEmpty, "STATUS= after STOPPING=1: \(after)")
    }

    @Test(
        .enabled(
            if: !TestEnvironment.productsDirectory.path.contains("/release"), "failpoints exist only in debug builds"))
    func aWedgedTimerThreadStopsTheWatchdogPings() throws {
        let setup = try Setup()
        defer { setup.cleanUp() }
        let listener = try NotifyListener(in: setup.folder)
        defer { listener.close() }
        // The timer thread turns for every interval and timeout (two probes every 200 ms: about
        // 20 turns a second) and once per watchdog check (it is nudged); at its 40th turn, about
        // 2 s in, it blocks forever, as a deadlocked or spinning thread would, and with it every
        // sample.
        let agent = try setup.start(listener, extra: ["PATHWATCH_FAILPOINT": "timer-wedge:40"])
        #expect(listener.wait(for: "READY", value: "1") != nil, "stderr: \(agent.errorOutput)")
        #expect(listener.wait(for: "WATCHDOG", value: "1") != nil, "the agent never pinged before the wedge")

        // Wait for four periods in a row without a ping (at most 10 s), then stay another four.
        _ = waitUntil(timeout: 10, interval: 0.05) {
            guard let last = listener.pings.last else { return true }
            return Date().timeIntervalSince(last) >= 2
        }
        let pingsAtQuiet = listener.pings.count
        Thread.sleep(forTimeInterval: 2)  // pings that do not come: an absence, shown only over real time
        #expect(agent.isRunning)
        #expect(listener.pings.count == pingsAtQuiet, "pings went on after the timer thread wedged")
        #expect(pingsAtQuiet < 10, "\(pingsAtQuiet) pings: the thread did not wedge where the failpoint said")
        // The rest of the agent still works: it is the wedged thread alone that stops the pings.
        let before = listener.messages.count
        agent.signal(SIGHUP)
        let reloading = listener.wait(for: "RELOADING", value: "1", from: before)
        #expect(reloading != nil, "the agent no longer answers a reload")
        if let reloading {
            #expect(
                listener.wait(for: "READY", value: "1", from: reloading.index + 1) != nil, "no READY=1 after the reload"
            )
        }
        agent.stop(grace: 2)
    }

    @Test func libsystemdIsMappedOnlyWhenTheServiceManagerAsks() throws {
        let setup = try Setup()
        defer { setup.cleanUp() }
        func mapsLibsystemd(_ agent: BackgroundProcess) -> Bool {
            // Through cat: /proc files report size 0, and a reader trusting the size reads nothing.
            let maps = (try? run(["cat", "/proc/\(agent.process.processIdentifier)/maps"]).stdout) ?? ""
            return maps.contains("libsystemd")
        }
        func waitStarted(_ agent: BackgroundProcess) -> Bool {
            waitUntil(timeout: 15, interval: 0.02) { agent.errorOutput.contains("started as") }
        }
        let listener = try NotifyListener(in: setup.folder)
        defer { listener.close() }
        let notified = try setup.start(listener)
        #expect(listener.wait(for: "READY", value: "1") != nil)
        #expect(mapsLibsystemd(notified))
        notified.stop()

        let plain = try BackgroundProcess(
            [TestEnvironment.pathwatchBinary.path, "run", "--config", setup.config.path],
            environment: ["NOTIFY_SOCKET": "", "WATCHDOG_USEC": "1000000"])
        defer { plain.stop() }
        #expect(waitStarted(plain), "\(plain.errorOutput)")
        #expect(!mapsLibsystemd(plain), "libsystemd mapped without NOTIFY_SOCKET")
    }
}
