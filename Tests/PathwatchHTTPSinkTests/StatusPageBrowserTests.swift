import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink
@testable import PathwatchHTTPSinkSettings

extension Trait where Self == ConditionTrait {
    /// Runs the test only where Debian's chromium is installed; elsewhere it is skipped with the reason.
    static var needsChromium: Self {
        .enabled(if: Browser.isAvailable, Comment(rawValue: Browser.unavailableReason))
    }
}

/// The status page (contract §8, `GET /`) in a real headless Chromium. The first test reads the page's
/// text; the stand-in tests serve it from `Tests/Fixtures/browser/mock_agent.py`, which sends
/// exactly the events a test scripts (markup in messages, a dropped stream, a wrong hash); the
/// last runs the real agent in a network namespace and takes its link down and up under the page.
@Suite("Status page in Chromium", .serialized, .onItsOwnThread)
struct StatusPageBrowserTests {
    // MARK: - The page's text

    @Test func thePageCarriesItsStyleAndScriptOnceAndLoadsNothing() throws {
        let html = StatusPage.html
        #expect(html.components(separatedBy: "<style>\(StatusPage.style)</style>").count == 2)
        #expect(html.components(separatedBy: "<script>\(StatusPage.script)</script>").count == 2)
        #expect(html.components(separatedBy: "<style").count == 2, "one style element")
        #expect(html.components(separatedBy: "<script").count == 2, "one script element")
        #expect(!StatusPage.script.contains("</"), "the script cannot end its element early")
        #expect(!StatusPage.style.contains("</"))
        // What the policy forbids, or what would load something: none of it in the markup.
        let markup = html.replacingOccurrences(of: StatusPage.script, with: "").replacingOccurrences(
            of: StatusPage.style, with: "")
        #expect(markup.range(of: #"\sstyle\s*="#, options: .regularExpression) == nil, "no style attribute")
        #expect(
            markup.range(of: #"\son[a-z]+\s*="#, options: [.regularExpression, .caseInsensitive]) == nil,
            "no inline handler")
        #expect(
            markup.range(of: #"\s(src|href|action|srcset)\s*=\s*"(?!data:)"#, options: .regularExpression) == nil,
            "only data: URLs")
        // A namespace name, never fetched.
        let addresses = html.replacingOccurrences(of: "\"http://www.w3.org/2000/svg\"", with: "")
        #expect(
            !addresses.contains("http:") && !addresses.contains("https:") && !html.contains("url("),
            "no address of anything")
        #expect(!html.contains("@import") && !html.contains("@font-face"))
        // The script builds DOM nodes; it never parses a string as markup or code.
        for sink in [
            "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(",
            "setAttribute(\"style\"",
        ] {
            #expect(!StatusPage.script.contains(sink), "\(sink)")
        }
        #expect(StatusPage.script.contains(#"new EventSource("events")"#), "a relative URL: works behind a path prefix")
    }

    // MARK: - Against the stand-in

    @Test(.needsChromium) func messagesStayTextAndPlotsDrawTheHistory() throws {
        let mock = try StatusPageStandIn()
        defer { mock.stop() }
        let hostile = #"<img src=x onerror="document.title='owned'"><b>HTTP 503</b> & "quotes""#
        try mock.setState(
            status: document(
                checks: [
                    check("link/eth0", "linkstate", "ok", "up, carrier, 1000 Mb/s", [:]),
                    check("api/<i>x</i>", "reachability", "critical", hostile, ["total_ms": 41.2]),
                    check("bw/eth0", "bandwidth", "ok", "rx 1 Mb/s", ["rx_bps": 1_000_000, "tx_bps": 250_000]),
                    check("disk//", "disk", "warning", "warning: 88% used (warn 85%)", ["used_pct": 88]),
                    check("ping/gw", "ping", "ok", "5/5 replies", ["rtt_avg_ms": 0.21]),
                ], probes: [probe("api", state: "restarting", restarts: 2, error: "<script>alert(1)</script>")]),
            history: (0..<150).map { i in
                var latency: [String: Any] = ["api/<i>x</i>": ["total_ms": 40 + Double(i % 7)]]
                if !(60..<70).contains(i) { latency["ping/gw"] = ["rtt_avg_ms": 0.2] }  // no reply for ten samples
                return [
                    "at": time(seconds: i - 150),
                    "plots": [
                        "throughput": ["bw/eth0": ["rx_bps": 1_000_000 + Double(i) * 1000, "tx_bps": 250_000]],
                        "latency": latency, "usage": ["disk//": ["used_pct": 88, "inodes_used_pct": 1]],
                    ],
                ]
            },
            // The newest values, sorted into plots by the agent as the page receives them.
            plot: [
                "at": time(seconds: 0),
                "plots": [
                    "throughput": ["bw/eth0": ["rx_bps": 1_000_000, "tx_bps": 250_000]],
                    "latency": ["api/<i>x</i>": ["total_ms": 41.2], "ping/gw": ["rtt_avg_ms": 0.21]],
                    "usage": ["disk//": ["used_pct": 88, "inodes_used_pct": 1]],
                ],
            ])
        let browser = try Browser()
        defer { browser.close() }
        try browser.open(mock.url)
        try browser.wait(for: ##"document.querySelectorAll("#checks tbody tr").length === 5"##)

        let row = try #require(
            try browser.evaluate(
                #"""
                (() => { const r = [...document.querySelectorAll("#checks tr[data-check]")].find((r) => r.dataset.check === "api/<i>x</i>");
                         return r && { state: r.dataset.state, id: r.cells[0].textContent, message: r.cells[2].textContent }; })()
                """#) as? [String: Any])
        #expect(row["state"] as? String == "critical")
        #expect(row["id"] as? String == "api/<i>x</i>")
        #expect(row["message"] as? String == hostile)
        #expect(
            try browser.evaluate(#"document.querySelectorAll("img, b, i, main script").length"#) as? Int == 0,
            "no markup from messages")
        #expect(
            try browser.evaluate(#"document.querySelector('#probes tr[data-probe="api"] td.error').textContent"#)
                as? String
                == "<script>alert(1)</script>")
        #expect(try browser.evaluate("document.title") as? String == "critical · web-01 · Pathwatch")

        // 120 points at most however long the history (the last 119 of it and the document), one
        // line per series, broken where a sample lacks the series.
        let plots = try #require(
            try browser.wait(
                for: #"""
                    (() => { const n = (id) => [...document.querySelectorAll("#" + id + " polyline")].map((p) => p.points.numberOfItems);
                             const legend = (id) => [...document.querySelectorAll("#" + id + " .legend li")].map((li) => li.textContent);
                             const r = { bw: n("plot-bandwidth"), latency: n("plot-latency"), disk: n("plot-disk"),
                                         bwLegend: legend("plot-bandwidth"), latencyLegend: legend("plot-latency"), diskLegend: legend("plot-disk") };
                             // Drawn from the history, not just from the newest document's values; and
                             // the newest document's values drawn too (the plot frame follows the
                             // history frame: read between the two, the page is not done yet).
                             const newest = r.latencyLegend.some((text) => text.endsWith("41.2 ms"));
                             return r.bw.some((k) => k > 2) && r.latency.length && r.disk.length && newest && r; })()
                    """#) as? [String: Any])
        #expect(plots["bw"] as? [Int] == [120, 120])
        #expect((plots["latency"] as? [Int])?.sorted() == [29, 81, 120])
        // A disk's space and inodes, each named: the fuller measure alone read as its space.
        #expect(plots["disk"] as? [Int] == [120, 120])
        #expect(Set(plots["bwLegend"] as? [String] ?? []) == ["bw/eth0 rx1.0 Mb/s", "bw/eth0 tx250 kb/s"])
        #expect(Set(plots["latencyLegend"] as? [String] ?? []) == ["api/<i>x</i>41.2 ms", "ping/gw0.21 ms"])
        #expect(Set(plots["diskLegend"] as? [String] ?? []) == ["disk// used88 %", "disk// inodes_used1 %"])

        let report = try browser.report()
        #expect(report.cspViolations.isEmpty, "\(report.cspViolations)")
        #expect(report.consoleErrors.isEmpty, "\(report.consoleErrors)")
        #expect(report.exceptions.isEmpty, "\(report.exceptions)")
        #expect(report.requests.allSatisfy { $0.hasPrefix(mock.url) }, "\(report.requests)")
    }

    @Test(.needsChromium) func changeEventsAndDocumentsUpdateTheOpenPage() throws {
        let mock = try StatusPageStandIn()
        defer { mock.stop() }
        let online =
            [
                "status": "satisfied", "type": "wifi", "interface": "wlan0", "expensive": true,
                "description": "Connected via Wi-Fi (wlan0)",
            ] as [String: Any]
        try mock.setState(
            status: document(
                path: online,
                checks: [
                    check("link/wlan0", "linkstate", "ok", "up, carrier", [:]),
                    check("link/path", "linkstate", "ok", "Connected via Wi-Fi (wlan0)", [:]),
                ]), history: [])
        let browser = try Browser()
        defer { browser.close() }
        try browser.open(mock.url)
        try browser.wait(for: ##"document.querySelectorAll("#checks tbody tr").length === 2"##)
        #expect(try banner(browser) == ["satisfied", "Connected via Wi-Fi (wlan0)"])
        #expect(
            try browser.evaluate(#"document.getElementById("path-detail").textContent"#) as? String
                == "wifi · wlan0 · metered")

        let offline = ["status": "unsatisfied", "description": "Offline - No internet connection"]
        try mock.push(
            event: "change", id: "e1",
            data: [
                "schema": 1, "type": "change", "id": "e1", "agent": "web-01", "check": "link/path", "from": "ok",
                "to": "critical",
                "at": time(seconds: 1), "message": "Offline - No internet connection", "path": offline,
            ])
        try browser.wait(for: #"document.getElementById("banner").dataset.status === "unsatisfied""#)
        #expect(try banner(browser) == ["unsatisfied", "Offline - No internet connection"])
        #expect(try rowState(browser, "link/path") == ["critical", "Offline - No internet connection"])

        // A check the page has not seen yet gets its row from its first change event.
        try mock.push(
            event: "change", id: "e2",
            data: [
                "check": "api/new", "from": "ok", "to": "warning", "at": time(seconds: 2), "message": "slow",
                "path": offline,
            ])
        try browser.wait(for: #"document.querySelector('#checks tr[data-check="api/new"]')"#)
        #expect(try rowState(browser, "api/new") == ["warning", "slow"])

        // The next document is the truth: the path is back, and a check that is gone loses its row.
        try mock.push(
            event: "status",
            data: document(
                path: online,
                checks: [
                    check("link/wlan0", "linkstate", "ok", "up, carrier", [:]),
                    check("link/path", "linkstate", "ok", "Connected via Wi-Fi (wlan0)", [:]),
                ]))
        try browser.wait(for: #"document.getElementById("banner").dataset.status === "satisfied""#)
        #expect(try banner(browser) == ["satisfied", "Connected via Wi-Fi (wlan0)"])
        #expect(try rowState(browser, "link/path") == ["ok", "Connected via Wi-Fi (wlan0)"])
        #expect(try browser.evaluate(##"document.querySelectorAll("#checks tbody tr").length"##) as? Int == 2)
        #expect(try browser.report().navigations == 1, "the same page throughout")
    }

    @Test(.needsChromium) func aLostStreamShowsReconnectingUntilItIsBack() throws {
        let mock = try StatusPageStandIn()
        defer { mock.stop() }
        try mock.setState(status: document(checks: [check("link/eth0", "linkstate", "ok", "up", [:])]), history: [])
        let browser = try Browser()
        defer { browser.close() }
        try browser.open(mock.url)
        try browser.wait(for: #"document.getElementById("connection").dataset.state === "live""#)

        try mock.control("hold")
        try mock.control("drop")
        let shown = try browser.wait(
            for: #"""
                (() => { const c = document.getElementById("connection");
                         return c.dataset.state === "reconnecting" && [c.textContent, document.body.dataset.connection]; })()
                """#)
        #expect(shown as? [String] == ["Reconnecting…", "reconnecting"])
        try mock.control("release")
        try browser.wait(for: #"document.getElementById("connection").dataset.state === "live""#)
        #expect(try browser.evaluate("document.body.dataset.connection") as? String == "live")
    }

    /// The check that the other tests' "no violation" can fail: a policy whose style hash is not
    /// the page's makes Chromium refuse the style, and the driver reports it.
    @Test(.needsChromium) func aStyleTheHashDoesNotCoverIsReportedAsAViolation() throws {
        let mock = try StatusPageStandIn(wrongStyleHash: true)
        defer { mock.stop() }
        try mock.setState(status: document(checks: []), history: [])
        let browser = try Browser()
        defer { browser.close() }
        try browser.open(mock.url)
        try browser.wait(for: #"document.getElementById("connection").dataset.state === "live""#)
        let report = try browser.report()
        #expect(report.cspViolations.contains { $0.hasPrefix("style-src") }, "\(report.cspViolations)")
        #expect(!report.consoleErrors.isEmpty)
        #expect(report.exceptions.isEmpty, "the script still ran: its hash is right")
    }

    // MARK: - The real agent

    /// The acceptance test of the page: the real agent in a namespace with a veth uplink and a
    /// default route through it, Chromium in the same namespace. Taking the link down turns the
    /// banner offline on the open page; bringing it back clears it, without a reload.
    @Test(
        .enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)),
        .needsChromium)
    func theBannerFollowsTheRealAgentsLinkWithoutAReload() throws {
        let topology = try StatusPageTopology()
        defer { topology.delete() }
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // For the README's picture (PATHWATCH_STATUS_PAGE_SCREENSHOT=docs/status-page.png): traffic
        // for the bandwidth plot (UDP out, pings both ways), and time before and into the outage
        // for the plots; the picture is taken offline.
        let picture = ProcessInfo.processInfo.environment["PATHWATCH_STATUS_PAGE_SCREENSHOT"]
        let port = try unusedLoopbackPort()
        let config = try writeConfig(
            """
            {"agent": {"name": "page-test", "interval": "2s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(dir.path)/state"},
             "probes": [{"id": "link", "plugin": "linkstate"},
                        {"id": "bw", "plugin": "bandwidth", "interval": "1s", "config": {"interfaces": ["vA"]}},
                        {"id": "disk", "plugin": "disk", "interval": "5s", "config": {"mounts": ["/"]}},
                        {"id": "ping", "plugin": "ping", "interval": "2s", "config": {"targets": [
                            {"name": "gateway", "host": "\(StatusPageTopology.gateway)", "count": 3, "interval": "100ms", "timeout": "500ms"}]}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """, in: dir)
        let agent = try BackgroundProcess(
            [
                "ip", "netns", "exec", topology.host.name, TestEnvironment.pathwatchBinary.path, "run", "--config",
                config.path,
            ])
        defer { agent.stop() }
        let base = "http://127.0.0.1:\(port)/"
        let answered = waitUntil(timeout: 30) {
            !agent.isRunning || (try? topology.host.exec("curl -sf \(base)healthz", timeout: 10)) != nil
        }
        try #require(answered && agent.isRunning, "the agent does not serve \(base): \(agent.errorOutput)")
        let traffic = try picture.map { _ in
            try [
                BackgroundProcess([
                    "ip", "netns", "exec", topology.host.name, "ping", "-q", "-i", "0.02", "-s", "1000",
                    StatusPageTopology.gateway,
                ]),
                BackgroundProcess([
                    "ip", "netns", "exec", topology.host.name, "python3", "-c",
                    """
                    import socket, time
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    while True:
                        try: s.sendto(b"x" * 1200, ("\(StatusPageTopology.gateway)", 9))
                        except OSError: pass
                        time.sleep(0.004)
                    """,
                ]),
            ]
        }
        defer { traffic?.forEach { $0.stop() } }

        let browser = try Browser(netns: topology.host.name)
        defer { browser.close() }
        try browser.open(base)
        try browser.wait(for: #"document.getElementById("banner").dataset.status === "satisfied""#)
        #expect(try banner(browser) == ["satisfied", "Connected via Ethernet (vA)"])
        try browser.wait(for: #"document.querySelector('#checks tr[data-check="link/path"][data-state="ok"]')"#)
        #expect(try rowState(browser, "link/vA")?.first == "ok")
        _ = try browser.evaluate("window.pathwatchTestMarker = 42")
        if picture != nil { sleep(30) }  // pictures only: the plots fill with half a minute of history

        try topology.host.ip("link set vA down")
        try browser.wait(for: #"document.getElementById("banner").dataset.status === "unsatisfied""#)
        #expect(try banner(browser) == ["unsatisfied", "Offline - No internet connection"])
        try browser.wait(for: #"document.querySelector('#checks tr[data-check="link/path"][data-state="critical"]')"#)
        #expect(try rowState(browser, "link/path") == ["critical", "Offline - No internet connection"])
        if let picture {
            sleep(12)  // pictures only: the offline stretch shows in the plots
            try browser.screenshot(to: picture)
        }

        // The link comes back; the kernel dropped the default route with it, so it is added again
        // as a DHCP client or NetworkManager would.
        try topology.host.exec("ip link set vA up; ip route replace default via \(StatusPageTopology.gateway) dev vA")
        try browser.wait(for: #"document.getElementById("banner").dataset.status === "satisfied""#)
        #expect(try banner(browser) == ["satisfied", "Connected via Ethernet (vA)"])
        try browser.wait(for: #"document.querySelector('#checks tr[data-check="link/path"][data-state="ok"]')"#)
        #expect(try browser.evaluate("window.pathwatchTestMarker") as? Int == 42, "the same document, never reloaded")

        // Every check has a row with a state; every probe a row; each plot has drawn its probe.
        let checks = try #require(
            try browser.evaluate(
                #"""
                Object.fromEntries([...document.querySelectorAll("#checks tr[data-check]")].map((r) => [r.dataset.check, r.dataset.state]))
                """#) as? [String: String])
        #expect(
            Set(checks.keys).isSuperset(of: ["link/vA", "link/path", "bw/vA", "disk//", "ping/gateway"]), "\(checks)")
        #expect(checks.values.allSatisfy { ["ok", "warning", "unknown", "critical"].contains($0) }, "\(checks)")
        let probes = try browser.evaluate(
            ##"[...document.querySelectorAll("#probes tr[data-probe]")].map((r) => r.dataset.probe)"##)
        #expect(Set(probes as? [String] ?? []) == ["link", "bw", "disk", "ping"])
        try browser.wait(
            for: #"""
                ["plot-bandwidth", "plot-latency", "plot-disk"].every((id) => document.querySelector("#" + id + " polyline"))
                """#)

        let report = try browser.report()
        #expect(report.cspViolations.isEmpty, "\(report.cspViolations)")
        #expect(report.consoleErrors.isEmpty, "\(report.consoleErrors)")
        #expect(report.exceptions.isEmpty, "\(report.exceptions)")
        #expect(!report.requests.isEmpty && report.requests.allSatisfy { $0.hasPrefix(base) }, "\(report.requests)")
        #expect(report.navigations == 1)

        let shot = dir.appendingPathComponent("status-page.png").path
        try browser.screenshot(to: shot)
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG")

        // The agent gone: the page says it is reconnecting rather than showing old news as live.
        agent.stop()
        try browser.wait(for: #"document.getElementById("connection").dataset.state === "reconnecting""#)
    }

    // MARK: - Helpers

    /// [data-status, text] of the banner.
    func banner(_ browser: Browser) throws -> [String]? {
        try browser.evaluate(
            #"(() => { const b = document.getElementById("banner"); return [b.dataset.status, b.textContent]; })()"#)
            as? [String]
    }

    /// [data-state, message] of a check's row.
    func rowState(_ browser: Browser, _ id: String) throws -> [String]? {
        let literal = try jsString(id)
        return try browser.evaluate(
            """
            (() => { const r = [...document.querySelectorAll("#checks tr[data-check]")].find((r) => r.dataset.check === \(literal));
                     return r ? [r.dataset.state, r.cells[2].textContent] : null; })()
            """) as? [String]
    }

    func jsString(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: text, options: .fragmentsAllowed), as: UTF8.self)
    }

    func time(seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: 1_795_000_000 + Double(seconds)))
    }

    func check(_ id: String, _ plugin: String, _ state: String, _ message: String, _ metrics: [String: Double])
        -> [String: Any]
    {
        [
            "id": id, "probe": String(id.prefix { $0 != "/" }), "plugin": plugin, "state": state,
            "since": time(seconds: -600),
            "message": message, "metrics": metrics,
        ]
    }

    func probe(_ id: String, state: String, restarts: Int, error: String?) -> [String: Any] {
        [
            "id": id, "plugin": "reachability", "isolation": "process", "state": state, "restarts": restarts,
            "last_duration_ms": 1.5, "last_error": error ?? NSNull(),
        ]
    }

    func document(
        path: [String: Any] = [
            "status": "satisfied", "type": "ethernet", "interface": "eth0", "expensive": false,
            "description": "Connected via Ethernet (eth0)",
        ],
        checks: [[String: Any]], probes: [[String: Any]] = []
    ) -> [String: Any] {
        let order = ["ok", "warning", "unknown", "critical"]
        let worst =
            checks.compactMap { $0["state"] as? String }.max { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }
            ?? "ok"
        return [
            "schema": 1, "agent": ["name": "web-01", "version": "0.1.0", "started_at": time(seconds: -600)],
            "time": time(seconds: 0), "state": worst, "path": path, "checks": checks, "probes": probes,
        ]
    }
}

/// The stand-in for the http sink: the page as the sink serves it (its own hashes in the
/// policy), and an event stream the test scripts through `/control/*`.
final class StatusPageStandIn {
    static var script: URL {
        TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/browser/mock_agent.py")
    }
    let url: String
    private let dir: URL
    private let process: BackgroundProcess

    init(wrongStyleHash: Bool = false) throws {
        dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-page")
        try StatusPage.html.write(to: dir.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        try StatusPage.style.write(to: dir.appendingPathComponent("style.css"), atomically: true, encoding: .utf8)
        try StatusPage.script.write(to: dir.appendingPathComponent("script.js"), atomically: true, encoding: .utf8)
        let port = try unusedLoopbackPort()
        url = "http://127.0.0.1:\(port)/"
        process = try BackgroundProcess(
            ["python3", Self.script.path, "--port", String(port), "--page", dir.path]
                + (wrongStyleHash ? ["--wrong-style-hash"] : []))
        guard process.waitForLine(timeout: 20, { $0 == "listening" }) != nil else {
            process.stop()
            TestEnvironment.removeTemporaryDirectory(dir)
            throw TestFailure("the stand-in agent did not start: \(process.errorOutput)")
        }
    }

    func setState(status: [String: Any], history: [[String: Any]], plot: [String: Any]? = nil) throws {
        var body: [String: Any] = ["status": status, "history": history]
        if let plot { body["plot"] = plot }
        try post("state", body)
    }

    func push(event: String, id: String? = nil, data: [String: Any]) throws {
        var body: [String: Any] = ["event": event, "data": data]
        if let id { body["id"] = id }
        try post("push", body)
    }

    /// `drop`, `hold` or `release`.
    func control(_ action: String) throws { try post(action, [:]) }

    private func post(_ action: String, _ body: [String: Any]) throws {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let result = try run(
            ["curl", "-sf", "-X", "POST", "--data-binary", "@-", "\(url)control/\(action)"], input: json, timeout: 20)
        guard result.status == 0 else {
            throw TestFailure("control/\(action) failed: \(result.stderr) \(process.errorOutput)")
        }
    }

    func stop() {
        process.stop()
        TestEnvironment.removeTemporaryDirectory(dir)
    }
}

/// The page test's network: namespace `host` with veth `vA` (10.84.0.1/24) to `vB` in `upstream`
/// (10.84.0.2, the gateway), and the default route through it.
final class StatusPageTopology {
    static let gateway = "10.84.0.2"
    let host: LinkStateNamespace
    let upstream: LinkStateNamespace

    init() throws {
        host = try LinkStateNamespace("pg")
        do {
            upstream = try LinkStateNamespace("pgu")
        } catch {
            host.delete()
            throw error
        }
        do {
            try host.exec("ip link add vA type veth peer name vB netns \(upstream.name)")
            try upstream.exec("ip link set vB up; ip addr add \(Self.gateway)/24 dev vB")
            try host.exec(
                "ip link set vA up; ip addr add 10.84.0.1/24 dev vA; ip route add default via \(Self.gateway) dev vA")
        } catch {
            delete()
            throw error
        }
    }

    func delete() {
        host.delete()
        upstream.delete()
    }
}
