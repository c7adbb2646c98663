import Foundation
import PathwatchTestSupport
import Testing

/// The checks of the system tier, each as an operator would make it from a shell on the booted
/// host. Each records its own failures (`#expect`) and throws only when what follows cannot be
/// checked at all.
struct Operator {
    let container: BootedContainer
    /// The container's `/`, seen from the host: files written here appear inside at once.
    let root: URL
    var url: String { SystemTierTests.agentURL }
    let notes = Notes()

    /// What one run of the checks has already said.
    final class Notes {
        var statusFailed = false
        var pageFailed = false
    }

    // MARK: systemd

    /// `systemctl show -p …` of the unit, as a dictionary.
    func show(_ properties: String...) throws -> [String: String] {
        let text = try container.must(
            "systemctl show pathwatch " + properties.map { "-p \($0)" }.joined(separator: " "))
        return Dictionary(
            text.split(separator: "\n").compactMap { line -> (String, String)? in
                guard let equals = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<equals]), String(line[line.index(after: equals)...]))
            }, uniquingKeysWith: { $1 })
    }

    func mainPID() throws -> Int {
        Int(try show("MainPID")["MainPID"] ?? "") ?? 0
    }

    /// Runs `script` in the container and returns how long it took.
    func timed(_ script: String, timeout: Double = 120) throws -> (result: ProcessResult, seconds: Double) {
        let start = Date()
        let result = try container.shell(script, timeout: timeout)
        return (result, Date().timeIntervalSince(start))
    }

    // MARK: the journal

    /// The cursor of the unit's newest journal entry: entries after it are what happens next.
    /// (Of the unit's, not the whole journal's: journalctl -u … --after-cursor skips one entry
    /// past the cursor's, so a cursor the filter does not match loses the unit's next line.)
    func cursor() throws -> String {
        let line = try container.must("journalctl -u pathwatch -o json -n 1 --no-pager")
        guard let cursor = try parseJSONObject(line)["__CURSOR"] as? String else {
            throw TestFailure("no cursor in \(line)")
        }
        return cursor
    }

    /// The unit's journal entries after `cursor` (the agent's lines and systemd's about the unit).
    func journal(after cursor: String) throws -> [[String: Any]] {
        let text = try container.must("journalctl -u pathwatch -o json --no-pager --after-cursor='\(cursor)'")
        return try text.split(separator: "\n").map { try parseJSONObject(String($0)) }
    }

    /// An entry's MESSAGE (journald stores one with control characters as an array of bytes).
    static func message(_ entry: [String: Any]) -> String {
        if let text = entry["MESSAGE"] as? String { return text }
        let bytes = (entry["MESSAGE"] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.uint8Value }
        return String(decoding: bytes, as: UTF8.self)
    }

    func journalText(after cursor: String) throws -> String {
        try journal(after: cursor).map(Self.message).joined(separator: "\n")
    }

    // MARK: the live agent

    /// GET `path` with curl inside the container: status, content type, body.
    func get(_ path: String) throws -> (status: Int, type: String, body: String) {
        let result = try container.shell("curl -sS --max-time 10 -w '\\n%{http_code}\\n%{content_type}' \(url)\(path)")
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard result.status == 0, lines.count >= 3 else {
            throw TestFailure("GET \(path) inside the container: curl exited \(result.status): \(result.stderr)")
        }
        let type = String(lines.removeLast())
        let status = Int(lines.removeLast()) ?? 0
        return (status, type, lines.joined(separator: "\n"))
    }

    /// The live status document from GET /status.
    func liveDocument() throws -> [String: Any] {
        let answer = try get("/status")
        guard answer.status == 200 else {
            throw TestFailure("GET /status: HTTP \(answer.status): \(answer.body.prefix(300))")
        }
        return try parseJSONObject(answer.body)
    }

    /// The document the checks of probes read: /status, or, when /status does not answer (a
    /// failure recorded once), the file sink's copy, so that a broken http sink does not hide
    /// how the probes are doing.
    func document() throws -> [String: Any] {
        do {
            return try liveDocument()
        } catch {
            if !notes.statusFailed {
                notes.statusFailed = true
                Issue.record(
                    error,
                    "/status does not answer; the checks of probes read /var/lib/pathwatch/status.json (the file sink) instead"
                )
            }
            return try parseJSONObject(try container.must("cat /var/lib/pathwatch/status.json"))
        }
    }

    /// Waits until /status satisfies `condition`; throws naming `what` and the last document's
    /// checks (or why /status did not answer).
    func waitForDocument(_ what: String, timeout: Double = 60, _ condition: (Document) -> Bool) throws -> Document {
        var last = "no document"
        do {
            return try waitFor(what, timeout: timeout, interval: 0.2) { () -> Document? in
                let document = Document(try self.document())
                last = document.summary
                return condition(document) ? document : nil
            }
        } catch {
            throw TestFailure("\(error); last /status: \(last)")
        }
    }

    // MARK: 11. systemd-analyze security

    func securityExposure() throws {
        let report = try container.shell("systemd-analyze security --no-pager pathwatch.service")
        let lead = "Overall exposure level for pathwatch.service: "
        let line = report.stdout.split(separator: "\n").last { $0.contains(lead) }
        // "→ Overall exposure level for pathwatch.service: 1.8 OK :-)"
        let value = line.flatMap { $0.components(separatedBy: lead).last?.split(separator: " ").first }.flatMap {
            Double($0)
        }
        #expect(
            value != nil && value! <= 2.0,
            "systemd-analyze security: \(line.map(String.init) ?? report.stdout + report.stderr)")
        // docs/operating.md states the figure; it is what the unit as shipped measures.
        let operating =
            (try? String(contentsOf: Distribution.root.appendingPathComponent("docs/operating.md"), encoding: .utf8))
            ?? ""
        let documented = operating.components(separatedBy: "`systemd-analyze security pathwatch` rates it ").dropFirst()
            .first
            .flatMap { Double($0.prefix { $0.isNumber || $0 == "." }) }
        #expect(
            documented != nil && documented == value,
            "docs/operating.md says \(String(describing: documented)), the unit measures \(String(describing: value))")
    }

    // MARK: 7. stop

    /// `systemctl stop`: clean (Result=success) within TimeoutStopSec, nothing killed. Returns
    /// how long the stop took.
    func stopsCleanly() throws -> Double {
        let before = try cursor()
        let stop = try timed("systemctl stop pathwatch")
        #expect(stop.result.status == 0, "systemctl stop: \(stop.result.stderr)")
        let state = try show("ActiveState", "Result", "ExecMainCode", "ExecMainStatus")
        #expect(state["ActiveState"] == "inactive" && state["Result"] == "success", "after stop: \(state)")
        let log = try journalText(after: before)
        #expect(
            !log.contains("SIGKILL") && !log.contains("Killing process") && !log.contains("timed out"),
            "the stop's journal:\n\(log)")
        return stop.seconds
    }

    // MARK: 1. start, READY, its own user, STATUS=

    /// `systemctl start`: returns once READY=1 came (a Type=notify unit is `activating` until then),
    /// the agent runs as `pathwatch`, and STATUS= says where things stand. Returns how long
    /// the start took.
    func startsAndReportsReady() throws -> Double {
        let start = try timed("systemctl start pathwatch")
        #expect(start.result.status == 0, "systemctl start: \(start.result.stderr)")
        let state = try show("ActiveState", "SubState", "MainPID", "StatusText")
        #expect(
            state["ActiveState"] == "active" && state["SubState"] == "running",
            "right after systemctl start returned: \(state)")
        let pid = Int(state["MainPID"] ?? "") ?? 0
        try #require(pid > 0, "no MainPID: \(state)")
        let uid = try container.must("awk '/^Uid:/ { print $2, $3 }' /proc/\(pid)/status").trimmingCharacters(
            in: .whitespacesAndNewlines)
        let expected = try container.must("id -u pathwatch").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            uid == "\(expected) \(expected)", "the agent's real and effective uid: \(uid); pathwatch is \(expected)")
        let user = try container.must("ps -o user:32= -p \(pid)").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(user == "pathwatch", "ps says the agent runs as \(user)")
        let status = state["StatusText"] ?? ""
        #expect(status.contains(" checks: "), "StatusText: \(status)")
        return start.seconds
    }

    // MARK: 2. every endpoint, through the sandbox

    /// Returns how long /events took to deliver its first event after curl started.
    func servesEveryEndpoint() throws -> Double? {
        let endpoints: [(path: String, type: String, body: String)] = [
            ("/", "text/html", "id=\"banner\""), ("/status", "application/json", "\"schema\""),
            ("/metrics", "text/plain", "pathwatch_build_info{version=\""), ("/healthz", "", ""),
        ]
        for endpoint in endpoints {
            do {
                let answer = try get(endpoint.path)
                #expect(
                    answer.status == 200 && answer.type.hasPrefix(endpoint.type)
                        && (endpoint.body.isEmpty || answer.body.contains(endpoint.body)),
                    "GET \(endpoint.path): HTTP \(answer.status) \(answer.type): \(answer.body.prefix(200))")
                if endpoint.path == "/" && answer.status != 200 { notes.pageFailed = true }
            } catch {
                if endpoint.path == "/" { notes.pageFailed = true }
                Issue.record(error)
            }
        }

        // /events never ends: read it until the first event, from the container's network.
        let connected = Date()
        let events = try BackgroundProcess(
            container.enterNetwork + ["curl", "-sSN", "--max-time", "30", "\(url)/events"])
        // curl inherits the test thread's blocked signals and would sit out SIGTERM: no grace.
        defer { events.stop(grace: 0) }
        var lines: [String] = []
        // Until an event with its data arrived, or curl gave up.
        _ = waitUntil(timeout: 20, interval: 0.02) {
            lines = events.outputLines
            if let event = lines.firstIndex(where: { $0.hasPrefix("event:") }),
                lines[event...].contains(where: { $0.hasPrefix("data:") })
            {
                return true
            }
            return !events.isRunning
        }
        let firstEvent = Date().timeIntervalSince(connected)
        let event = lines.first { $0.hasPrefix("event:") }
        #expect(event == "event: status", "the first lines of /events: \(lines.prefix(3)) \(events.errorOutput)")
        let data = lines.first { $0.hasPrefix("data:") }
        let document = data.flatMap { try? parseJSONObject(String($0.dropFirst(5))) }
        #expect(document?["schema"] as? Int == 1, "the first event's data: \(data?.prefix(200) ?? "none")")
        return document == nil ? nil : firstEvent
    }

    /// The status page in headless Chromium, in the container's network and as an unprivileged
    /// user: its banner says what /status says about the path.
    func showsThePathBannerInABrowser() throws {
        guard Browser.isAvailable else {
            Issue.record(Comment(rawValue: Browser.unavailableReason))
            return
        }
        guard !notes.pageFailed else {
            Issue.record("the status page did not load (GET / failed above), so no browser was started")
            return
        }
        let document: Document
        do {
            document = try waitForDocument("a status document") { _ in true }
        } catch {
            Issue.record(error)
            return
        }
        let browser = try Browser(
            wrapper: container.enterNetwork + Unprivileged.command([]),
            // The system's python3 and chromium, not a root-only PATH entry of the test runner's.
            environment: ["HOME": "/tmp", "TMPDIR": "/tmp", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        defer { browser.close() }
        try browser.open("\(url)/")
        let expected = [document.pathStatus, document.pathDescription]
        let banner =
            #"(() => { const b = document.getElementById("banner"); return b && b.dataset.status && b.textContent ? [b.dataset.status, b.textContent] : null; })()"#
        // The page shows a placeholder until its first status event: wait for the path's status,
        // then compare the whole banner (what it shows after 30 s if that never comes).
        let status = try JSONSerialization.data(withJSONObject: [document.pathStatus])
        let arrived =
            "(() => { const b = document.getElementById(\"banner\"); return b && \(String(decoding: status, as: UTF8.self))[0] === b.dataset.status; })()"
        _ = try? browser.wait(for: arrived, timeout: 30)
        let shown = try browser.evaluate(banner)
        #expect(
            shown as? [String] == expected, "the page's banner: \(String(describing: shown)); /status path: \(expected)"
        )
    }

    // MARK: 3. pathwatch status from an operator's shell

    /// `pathwatch status` as root and as an ordinary user, from shells that lack the service's
    /// environment, while a conf.d webhook needs a secret only that environment carries.
    func answersStatusWithoutTheServiceEnvironment() throws {
        let pid = try mainPID()
        let environ = try container.must("tr '\\0' '\\n' < /proc/\(pid)/environ")
        #expect(
            environ.contains("PW_HOOK_TOKEN=\(SystemTierTests.hookToken)"),
            "the service's environment lacks the drop-in's token")
        let live = try? document()
        // From / and, as NRPE or cron would, from a folder holding another program's config.json,
        // which an installed pathwatch never takes for its own.
        let foreignFolder = "cd \"$(mktemp -d)\" && printf '{\"listen\": 1}' > config.json && "
        for (user, folder) in [(nil, ""), ("nobody", ""), (nil, foreignFolder), ("nobody", foreignFolder)]
            as [(String?, String)]
        {
            let who = (user ?? "root") + (folder.isEmpty ? "" : " beside a foreign config.json")
            let status = try container.shell(folder + "pathwatch status --format json", as: user)
            #expect(
                (0...2).contains(status.status), "pathwatch status as \(who) exited \(status.status): \(status.stderr)")
            let document = try? parseJSONObject(status.stdout)
            let started = (document?["agent"] as? [String: Any])?["started_at"] as? String
            #expect(
                started != nil && started == (live?["agent"] as? [String: Any])?["started_at"] as? String,
                "pathwatch status as \(who) printed: \(status.stdout.prefix(300))")
        }
    }

    // MARK: 4. a plug-in in process isolation under the system-call filter

    func runsAProcessIsolatedProbe() throws {
        do {
            let document = try waitForDocument("the process-isolated probe `iso` running with its check ok") {
                $0.probes["iso"]?["state"] as? String == "running" && $0.checks["iso/load"]?["state"] as? String == "ok"
            }
            #expect(document.probes["iso"]?["isolation"] as? String == "process", "\(document.probes["iso"] ?? [:])")
        } catch {
            Issue.record(error)
        }
        // Its child runs under the unit's filter (Seccomp 2: filtering) as the agent's user.
        let pid = try mainPID()
        let children = try container.must("ps --ppid \(pid) -o pid=,user:32=,args=")
        let child = children.split(separator: "\n").map { $0.split(separator: " ") }.first {
            $0.contains("--plugin") && $0.contains { $0.hasSuffix("libpathwatch_loadavg.so") }
        }
        #expect(child?.count ?? 0 > 1 && child?[1] == "pathwatch", "the agent's children: \(children)")
        if let childPID = child?.first {
            let seccomp = try container.must("awk '/^Seccomp:/ { print $2 }' /proc/\(childPID)/status")
            #expect(seccomp == "2\n", "the plug-in child's Seccomp: \(seccomp)")
        }
    }

    // MARK: 9. the disk probe sees what df sees

    /// Under ProtectSystem=strict, ProtectHome=read-only, PrivateTmp and PrivateDevices the disk
    /// probe reports the filesystems `df` lists inside the container, with their sizes.
    func measuresTheMountsDfShows() throws {
        let df = try container.must("df -B1 --output=target,size,used | tail -n +2")
        // Filesystems read-only in themselves (their superblock's options), as the operator's
        // shell sees them: what the probe's `readonly` means (Plugins/Disk/README.md). A read-only
        // mount of a writable filesystem (nspawn's /sys, every mount under ProtectSystem=strict)
        // is not one.
        let readOnly = Set(
            try container.must("findmnt -rn -o TARGET,FS-OPTIONS").split(separator: "\n").compactMap {
                line -> String? in
                let fields = line.split(separator: " ")
                return fields.count == 2 && fields[1].split(separator: ",").contains("ro") ? String(fields[0]) : nil
            })
        let rows = df.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count == 3 }
        let mounts = Dictionary(
            rows.map { (String($0[0]), (size: Double($0[1]) ?? -1, used: Double($0[2]) ?? -1)) },
            uniquingKeysWith: { $1 })
        do {
            let document = try waitForDocument("disk checks for the mounts df lists") { document in
                mounts.keys.allSatisfy { document.checks["disk/\($0)"] != nil }
            }
            let reported = Set(document.checks.keys.filter { $0.hasPrefix("disk/") }.map { String($0.dropFirst(5)) })
            #expect(reported == Set(mounts.keys), "disk probe: \(reported.sorted()); df: \(mounts.keys.sorted())")
            for (mount, figures) in mounts {
                let metrics = document.checks["disk/\(mount)"]?["metrics"] as? [String: Double] ?? [:]
                // Sizes are equal; used space moves between the two readings (the host's own disk
                // is the container's root), within a fiftieth of the size.
                #expect(metrics["size_bytes"] == figures.size, "\(mount): probe \(metrics), df size \(figures.size)")
                let used = metrics["used_bytes"] ?? -1
                #expect(
                    abs(used - figures.used) <= max(16 * 1_048_576, figures.size / 50),
                    "\(mount): probe used \(used), df used \(figures.used)")
                // The unit's ProtectSystem=strict makes every mount read-only in the agent's own
                // namespace; the filesystems are not, and the probe must not say they are.
                let message = document.checks["disk/\(mount)"]?["message"] as? String ?? ""
                #expect(
                    (metrics["readonly"] == 1) == readOnly.contains(mount),
                    "\(mount): the probe says readonly \(metrics["readonly"] ?? -1) (\(message)); the filesystem's options in the container: \(readOnly.contains(mount) ? "ro" : "rw")"
                )
            }
        } catch {
            Issue.record(error)
        }
    }

    // MARK: 8. one journal line per change, with its priority

    /// A veth pair inside the container's private network: one end up without its peer is "up,
    /// no carrier" (critical); the peer up brings the carrier (ok). Each change is one journal
    /// line, critical at err or worse, ok at notice or info.
    func writesOneJournalLinePerChange() throws {
        try container.must("ip link add pwa type veth peer name pwb")
        defer { _ = try? container.shell("ip link del pwa") }
        do {
            _ = try waitForDocument("checks for the new veth pair") {
                $0.checks["link/pwa"] != nil && $0.checks["link/pwb"] != nil
            }
        } catch {
            Issue.record(error)
            return
        }
        let before = try cursor()
        func lines() throws -> [[String: Any]] {
            try journal(after: before).filter { Self.message($0).contains("link/pwa") }
        }
        func transitions(to state: String) throws -> [[String: Any]] {
            try lines().filter { Self.message($0).contains("→ \(state)") }
        }

        try container.must("ip link set pwa up")
        _ = try waitFor("a journal line for link/pwa turning critical", timeout: 30, interval: 0.1) {
            try transitions(to: "critical").first
        }
        try container.must("ip link set pwb up")
        _ = try waitFor("a journal line for link/pwa turning ok", timeout: 30, interval: 0.1) {
            try transitions(to: "ok").first
        }
        // A third change whose line comes after every line of the two before it.
        try container.must("ip link set pwb down")
        _ = try waitFor("a journal line for link/pwa turning critical again", timeout: 30, interval: 0.1) {
            () -> Bool? in
            let all = try lines().map(Self.message)
            guard let firstOK = all.firstIndex(where: { $0.contains("→ ok") }) else { return nil }
            return all[firstOK...].contains { $0.contains("→ critical") } ? true : nil
        }
        let all = try lines()
        let firstOK = all.firstIndex { Self.message($0).contains("→ ok") } ?? all.count
        let again = all[firstOK...].firstIndex { Self.message($0).contains("→ critical") } ?? all.count
        let critical = all[..<firstOK].filter { Self.message($0).contains("→ critical") }
        let ok = all[..<again].filter { Self.message($0).contains("→ ok") }
        let shown = all.map { "<\($0["PRIORITY"] as? String ?? "?")> \(Self.message($0))" }.joined(separator: "\n")
        #expect(critical.count == 1 && ok.count == 1, "one line per change expected; the journal has:\n\(shown)")
        let criticalPriority = critical.first.flatMap { Int($0["PRIORITY"] as? String ?? "") } ?? 7
        #expect(criticalPriority <= 3, "a change to critical is logged at priority \(criticalPriority):\n\(shown)")
        let okPriority = ok.first.flatMap { Int($0["PRIORITY"] as? String ?? "") } ?? 0
        #expect((5...6).contains(okPriority), "a change to ok is logged at priority \(okPriority):\n\(shown)")
    }

    // MARK: 5. reload with a new fragment

    /// `systemctl reload` with a new conf.d fragment: returns, the agent keeps its PID, and the
    /// new probe's checks appear in /status. Returns how long the reload took.
    func reloadsANewFragment() throws -> Double? {
        let pid = try mainPID()
        try SystemTierTests.write(
            root, "etc/pathwatch/conf.d/50-reloaded.json",
            """
            {"probes": [{"id": "later", "plugin": "disk", "isolation": "process", "interval": "1s",
                         "config": {"mounts": ["/"], "warn_used_percent": 99, "crit_used_percent": 100}}]}

            """)
        let before = try cursor()
        let reload = try timed("systemctl reload pathwatch")
        #expect(reload.result.status == 0, "systemctl reload: \(reload.result.stderr)")
        // The agent's own verdict, its journal line, says the reload happened: `systemctl reload`
        // waits for it through `pathwatch reload`, and the line must be there when it returns.
        do {
            let verdict = try waitFor("the agent's verdict on the reload", timeout: 5, interval: 0.1) { () -> String? in
                try journal(after: before).map(Self.message).first {
                    $0.contains("configuration reloaded") || $0.contains("reload refused")
                        || $0.contains("configuration error")
                }
            }
            #expect(verdict.contains("configuration reloaded"), "the agent's verdict: \(verdict)")
        } catch {
            Issue.record(error)
        }
        let state = try show("ActiveState", "MainPID")
        #expect(
            state["ActiveState"] == "active" && state["MainPID"] == "\(pid)",
            "after reload: \(state); before: MainPID \(pid)")
        do {
            _ = try waitForDocument("the reloaded fragment's check later//", timeout: 30) {
                $0.checks["later//"] != nil
            }
        } catch {
            Issue.record(error)
        }
        try refusesABadFragmentVisibly(pid: pid)
        return reload.result.status == 0 ? reload.seconds : nil
    }

    /// A fragment the agent refuses: `systemctl reload` fails, says why, and the unit's STATUS=
    /// says "reload refused: …" until a good reload; the agent keeps running as it was.
    func refusesABadFragmentVisibly(pid: Int) throws {
        try SystemTierTests.write(
            root, "etc/pathwatch/conf.d/55-refused.json",
            """
            {"probes": [{"id": "later", "plugin": "disk", "interval": "1s"}]}

            """)
        let refused = try container.shell("systemctl reload pathwatch", timeout: 120)
        #expect(refused.status != 0, "a refused reload must fail: \(refused.stdout)\(refused.stderr)")
        let status = try show("StatusText", "MainPID", "ActiveState")
        #expect(status["StatusText"]?.hasPrefix("reload refused: ") == true, "\(status)")
        #expect(status["StatusText"]?.contains("later") == true, "the refusal names what was wrong: \(status)")
        #expect(status["MainPID"] == "\(pid)" && status["ActiveState"] == "active", "\(status)")
        try container.must("rm /etc/pathwatch/conf.d/55-refused.json")
        let good = try container.shell("systemctl reload pathwatch", timeout: 120)
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        let after = try show("StatusText")
        #expect(after["StatusText"]?.hasPrefix("reload refused") == false, "\(after)")
    }

    // MARK: 10. ping, with the drop-in the documentation gives

    /// The drop-in docs/privileges.md gives for ping over raw sockets (its ```ini block), verbatim.
    static func documentedPingDropIn() throws -> String {
        let text = try String(
            contentsOf: Distribution.root.appendingPathComponent("docs/privileges.md"), encoding: .utf8)
        for block in text.components(separatedBy: "```ini\n").dropFirst() {
            guard let end = block.range(of: "```") else { continue }
            let body = String(block[..<end.lowerBound])
            if body.contains("CAP_NET_RAW") { return body }
        }
        throw TestFailure("docs/privileges.md has no ```ini block granting CAP_NET_RAW")
    }

    /// The ping probe under the unit as shipped, then with the documented drop-in. Without it,
    /// where the host's net.ipv4.ping_group_range does not admit the agent's group (the kernel's
    /// default "1 0", which Debian 12 keeps), the check is unknown with the documented message;
    /// with it the probe pings 127.0.0.1 (over a raw socket when the range still refuses).
    func pingsWithTheDocumentedDropIn() throws {
        let gid = try container.must("id -g pathwatch").trimmingCharacters(in: .whitespacesAndNewlines)
        let range = try container.must("cat /proc/sys/net/ipv4/ping_group_range").split(whereSeparator: \.isWhitespace)
            .compactMap { Int($0) }
        let admitted = range.count == 2 && Int(gid).map { range[0] <= $0 && $0 <= range[1] } == true
        let documented =
            "cannot open an ICMP socket: unprivileged (dgram): permission denied (net.ipv4.ping_group_range is \"\(range.map(String.init).joined(separator: " "))\", "
            + "the agent's group is \(gid)); raw: operation not permitted (needs root or CAP_NET_RAW)"
        do {
            // A document whose ping check was sampled under the path it shows: the check can be
            // sampled before the container's path is known to be unsatisfied, and its message
            // gains " (host offline)" only at its next sample (interval 2s).
            let shipped = try waitForDocument(
                "the ping check under the unit as shipped, sampled with the path the document shows"
            ) {
                guard let check = $0.checks["ping/lo"], let state = check["state"] as? String else { return false }
                if admitted { return state == "ok" }
                let offline = (check["message"] as? String ?? "").hasSuffix(" (host offline)")
                return state == "unknown" && offline == ($0.pathStatus == "unsatisfied")
            }
            let check = shipped.checks["ping/lo"] ?? [:]
            if admitted {
                #expect(
                    check["state"] as? String == "ok", "ping_group_range \(range) admits group \(gid), yet: \(check)")
            } else {
                // The container has no route out: its path is unsatisfied, and the README's offline
                // guard adds "(host offline)" to a network probe's message.
                let offline = shipped.pathStatus == "unsatisfied" ? " (host offline)" : ""
                #expect(
                    check["state"] as? String == "unknown" && check["message"] as? String == documented + offline,
                    "ping_group_range \(range), group \(gid), path \(shipped.pathStatus), without the drop-in: \(check)"
                )
            }
        } catch {
            Issue.record(error)
        }
        try SystemTierTests.write(
            root, "etc/systemd/system/pathwatch.service.d/60-ping.conf", try Self.documentedPingDropIn())
        try container.must("systemctl daemon-reload && systemctl restart pathwatch")
        do {
            let pinged = try waitForDocument("the ping check with the drop-in ok") {
                $0.checks["ping/lo"]?["state"] as? String == "ok"
            }
            let check = pinged.checks["ping/lo"] ?? [:]
            #expect((check["labels"] as? [String: String])?["socket"] == (admitted ? "dgram" : "raw"), "\(check)")
            #expect((check["metrics"] as? [String: Double])?["received"] == 3, "\(check)")
        } catch {
            Issue.record(error)
        }
    }

    // MARK: 6. the watchdog

    /// With WatchdogSec=3s (a drop-in, to keep the test short), a frozen agent (SIGSTOP) stops
    /// pinging and systemd restarts it. Returns the time from the freeze to the new agent's READY.
    func restartsAFrozenAgent() throws -> (seconds: Double, restartSec: String)? {
        try SystemTierTests.write(
            root, "etc/systemd/system/pathwatch.service.d/70-watchdog.conf",
            """
            [Service]
            WatchdogSec=3s

            """)
        try container.must("systemctl daemon-reload && systemctl restart pathwatch")
        let before = try show("MainPID", "NRestarts", "WatchdogUSec", "RestartUSec")
        #expect(before["WatchdogUSec"] == "3s", "\(before)")
        let pid = Int(before["MainPID"] ?? "") ?? 0
        let restarts = Int(before["NRestarts"] ?? "") ?? -1
        try #require(pid > 0, "\(before)")
        let from = try cursor()
        let frozen = Date()
        try container.must("kill -STOP \(pid)")
        let after: [String: String]
        do {
            after = try waitFor("systemd to restart the frozen agent", timeout: 120, interval: 0.05) {
                () -> [String: String]? in
                let state = try show("MainPID", "NRestarts", "ActiveState")
                let now = Int(state["MainPID"] ?? "") ?? 0
                return now != 0 && now != pid && state["ActiveState"] == "active" ? state : nil
            }
        } catch {
            Issue.record(error, "journal: \((try? journalText(after: from)) ?? "")")
            return nil
        }
        let seconds = Date().timeIntervalSince(frozen)
        #expect(Int(after["NRestarts"] ?? "") == restarts + 1, "NRestarts \(restarts) → \(after["NRestarts"] ?? "?")")
        let log = try journalText(after: from)
        #expect(log.contains("Watchdog timeout"), "the journal after the freeze:\n\(log)")
        return (seconds, before["RestartUSec"] ?? "?")
    }

    // MARK: 12. remove and purge

    func removesAndPurges() throws {
        #expect(try show("ActiveState")["ActiveState"] == "active")
        // The textfiles the agent wrote for node_exporter go with it (stale series otherwise stay
        // exported): the documented one (step 16's), and one at a path only a fragment names.
        // A file of another exporter in the same folder stays.
        let collector = "/var/lib/prometheus/node-exporter"
        #expect(try container.shell("test -f \(collector)/pathwatch.prom").status == 0, "step 16 left no textfile")
        try SystemTierTests.write(
            root, "etc/pathwatch/conf.d/46-textfile-elsewhere.json",
            """
            {"sinks": [{"type": "file", "path": "/srv/metrics/host.prom", "format": "prometheus"}]}

            """)
        try container.must(
            """
            install -d /srv/metrics && cp \(collector)/pathwatch.prom /srv/metrics/host.prom \
              && echo 'node_other_thing 1' > \(collector)/other.prom
            """)
        let remove = try container.shell("DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq pathwatch", timeout: 300)
        #expect(remove.status == 0, "apt-get remove: \(remove.stdout)\(remove.stderr)")
        let active = try container.shell("systemctl is-active pathwatch").stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(active == "inactive", "after remove the unit is \(active)")
        let processes = try container.shell("pgrep -u pathwatch -a").stdout
        #expect(processes.isEmpty, "still running as pathwatch: \(processes)")
        let left = try container.shell(
            "for f in /usr/bin/pathwatch /usr/lib/pathwatch /lib/systemd/system/pathwatch.service; do [ ! -e $f ] || echo $f; done"
        ).stdout
        #expect(left.isEmpty, "left after remove: \(left)")
        let textfiles = try container.shell(
            "for f in \(collector)/pathwatch.prom /srv/metrics/host.prom; do [ ! -e $f ] || echo $f; done"
        ).stdout
        #expect(textfiles.isEmpty, "textfiles left after remove: \(textfiles)")
        #expect(try container.shell("test -f \(collector)/other.prom").status == 0, "remove took another's textfile")
        #expect(try container.shell("test -f /etc/pathwatch/config.json").status == 0, "remove took the configuration")

        let purge = try container.shell("DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq pathwatch", timeout: 300)
        #expect(purge.status == 0, "apt-get purge: \(purge.stdout)\(purge.stderr)")
        // Nothing the package made stays: not the folder postinst made for the operator's own
        // plug-ins, which held none.
        let kept = try container.shell(
            "for f in /etc/pathwatch/config.json /var/lib/pathwatch /usr/local/lib/pathwatch \(collector)/pathwatch.prom; do [ ! -e $f ] || echo $f; done"
        ).stdout
        #expect(kept.isEmpty, "left after purge: \(kept)")
    }
}

/// A status document, by check id and probe id.
struct Document {
    let raw: [String: Any]
    let checks: [String: [String: Any]]
    let probes: [String: [String: Any]]

    init(_ raw: [String: Any]) {
        self.raw = raw
        checks = Dictionary(
            (raw["checks"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "", $0) }, uniquingKeysWith: { $1 })
        probes = Dictionary(
            (raw["probes"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "", $0) }, uniquingKeysWith: { $1 })
    }

    var pathStatus: String { (raw["path"] as? [String: Any])?["status"] as? String ?? "" }
    var pathDescription: String { (raw["path"] as? [String: Any])?["description"] as? String ?? "" }

    /// One line per check, for failure messages.
    var summary: String {
        checks.keys.sorted().map {
            "\($0) \(checks[$0]?["state"] as? String ?? "?"): \(checks[$0]?["message"] as? String ?? "")"
        }.joined(separator: "; ")
    }
}
