import Foundation

/// A real headless Chromium with one tab, driven through `Tests/Fixtures/browser/cdp.py` (the
/// DevTools protocol over a pipe). Commands go to the driver as JSON lines and each is answered
/// by one JSON line. Started inside a network namespace (`netns`), the browser sees only that
/// namespace's network, as a person on that host would.
public final class Browser: @unchecked Sendable {
    /// Debian's `chromium`, when installed (`make test-deps` installs it).
    public static let chromium: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") + ["/usr/bin"] {
            let candidate = "\(folder)/chromium"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    public static var isAvailable: Bool { chromium != nil }
    public static let unavailableReason = "needs Debian's chromium (make test-deps installs it)"

    public static var driverScript: URL {
        TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/browser/cdp.py")
    }

    private let process = Process()
    private let input = Pipe()
    private let lock = NSCondition()
    private var lines: [String] = []
    private var splitter = LineSplitter()
    private var ended = false
    /// Kept as bytes: a read may end inside a character, so the text is decoded when asked for.
    private var stderrBytes = Data()

    public convenience init(netns: String? = nil, width: Int = 1100, height: Int = 900) throws {
        try self.init(wrapper: netns.map { ["ip", "netns", "exec", $0] } ?? [], width: width, height: height)
    }

    /// A browser started through `wrapper`: a command that runs the rest of its command line
    /// elsewhere (`nsenter --target PID --net`, then `setpriv` to run as another user).
    /// `environment` replaces what the driver and Chromium would inherit (HOME for a user).
    public init(wrapper: [String], environment: [String: String]? = nil, width: Int = 1100, height: Int = 900) throws {
        guard let chromium = Self.chromium else { throw TestFailure(Self.unavailableReason) }
        let driver = [
            "python3", Self.driverScript.path, "serve", "--chromium", chromium, "--width", "\(width)", "--height",
            "\(height)",
        ]
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = wrapper + driver
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        PipeReader.read(output, name: "browser-stdout") { [weak self] data in self?.append(data) }
        PipeReader.read(errors, name: "browser-stderr") { [weak self] data in
            guard let self else { return }
            self.lock.lock()
            self.stderrBytes.append(data)
            self.lock.unlock()
        }
        let ready = try reply(timeout: 120, for: "start")
        guard ready as? String == "ready" else { throw TestFailure("the browser driver did not start: \(errorOutput)") }
    }

    private func append(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        if data.isEmpty { ended = true }
        lines += splitter.lines(completedBy: data)
        lock.broadcast()
    }

    /// What the driver and Chromium wrote to stderr, for failure messages.
    public var errorOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: stderrBytes, as: UTF8.self)
    }

    private func reply(timeout: Double, for what: String) throws -> Any? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        while lines.isEmpty, !ended, Date() < deadline {
            _ = lock.wait(until: min(deadline, Date().addingTimeInterval(0.2)))
        }
        let line = lines.isEmpty ? nil : lines.removeFirst()
        lock.unlock()
        guard let line else { throw TestFailure("no answer from the browser driver to \(what): \(errorOutput)") }
        guard
            let answer = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
                as? [String: Any]
        else {
            throw TestFailure("the browser driver answered \(what) with: \(line)")
        }
        guard answer["ok"] as? Bool == true else {
            throw TestFailure("browser: \(what): \(answer["error"] as? String ?? line)")
        }
        return answer["value"] is NSNull ? nil : answer["value"]
    }

    /// True once the driver's output has ended: it exited (or is exiting), and a write to it
    /// would raise SIGPIPE, which ends the whole test process.
    private var driverEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    @discardableResult
    private func send(_ command: [String: Any], timeout: Double) throws -> Any? {
        guard !driverEnded else { throw TestFailure("the browser driver has exited: \(errorOutput)") }
        var data = try JSONSerialization.data(withJSONObject: command)
        data.append(0x0A)
        try input.fileHandleForWriting.write(contentsOf: data)
        return try reply(timeout: timeout + 30, for: command["cmd"] as? String ?? "?")
    }

    /// Navigates the tab to `url` and waits for its load event.
    public func open(_ url: String, timeout: Double = 60) throws {
        try send(["cmd": "open", "url": url, "timeout": timeout], timeout: timeout)
    }

    /// The value of a JavaScript expression in the page (JSON values: String, NSNumber, arrays, dictionaries).
    public func evaluate(_ expression: String) throws -> Any? {
        try send(["cmd": "eval", "expr": expression], timeout: 30)
    }

    /// Polls `expression` in the page until it is truthy, and returns its value; throws with the
    /// last value when `timeout` seconds pass first.
    @discardableResult
    public func wait(for expression: String, timeout: Double = 60) throws -> Any? {
        try send(["cmd": "wait", "expr": expression, "timeout": timeout], timeout: timeout)
    }

    /// A PNG of the whole page (`dark`: as with prefers-color-scheme: dark).
    public func screenshot(to path: String, dark: Bool = false) throws {
        try send(["cmd": "screenshot", "path": path, "dark": dark], timeout: 60)
    }

    /// What the page did since it was opened, as the browser saw it.
    public struct Report: Sendable {
        /// Errors in the browser's log and `console.error` calls.
        public var consoleErrors: [String]
        /// Uncaught exceptions.
        public var exceptions: [String]
        /// `securitypolicyviolation` events: "directive blocked-uri".
        public var cspViolations: [String]
        /// The URL of every request the page made.
        public var requests: [String]
        /// Main-frame navigations (1 for a page opened once and never reloaded).
        public var navigations: Int
    }

    public func report() throws -> Report {
        let value = try send(["cmd": "report"], timeout: 30) as? [String: Any] ?? [:]
        let violations = (value["csp_violations"] as? [[String: Any]] ?? []).map {
            "\($0["directive"] as? String ?? "?") \($0["blocked"] as? String ?? "?")"
        }
        return Report(
            consoleErrors: value["console_errors"] as? [String] ?? [],
            exceptions: value["exceptions"] as? [String] ?? [],
            cspViolations: violations, requests: value["requests"] as? [String] ?? [],
            navigations: value["navigations"] as? Int ?? -1)
    }

    /// Closes Chromium and ends the driver; safe to call twice.
    public func close() {
        guard process.isRunning else { return }
        if !driverEnded { _ = try? send(["cmd": "quit"], timeout: 10) }
        try? input.fileHandleForWriting.close()
        _ = waitUntil(timeout: 15) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }

    deinit { close() }
}
