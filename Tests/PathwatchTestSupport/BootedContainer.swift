import Foundation

/// A Debian root booted under its own systemd with `systemd-nspawn --boot --private-network
/// --register=no --keep-unit`: a host of its own, with nothing but a loopback interface, which
/// commands reach through `nsenter` into the namespaces of its PID 1 (the leader), the way an
/// operator's shell on that host would run them. `shutDown()` powers it off (and kills it when
/// it does not go); the caller calls it in a `defer`.
public final class BootedContainer: @unchecked Sendable {
    public let root: URL
    private let nspawn: BackgroundProcess
    /// The container's PID 1 (systemd), as the host numbers it.
    public let leader: pid_t
    /// What `systemctl is-system-running` said when start-up finished: `running` or `degraded`.
    public private(set) var bootState = ""

    /// What an operator's login shell has, and nothing of the test runner's environment.
    public static let shellEnvironment = [
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
    ]

    /// Why no container can be booted here, or nil.
    public static var missingTools: String? {
        guard TestEnvironment.isRoot else { return "needs root (systemd-nspawn, nsenter)" }
        guard (try? run(["sh", "-c", "command -v systemd-nspawn && command -v nsenter"]).status) == 0 else {
            return "needs systemd-nspawn: run `make test-deps` (Debian's systemd-container)"
        }
        return nil
    }

    /// Boots `root` and waits until its systemd has finished starting up (`systemctl
    /// is-system-running --wait` says `running` or `degraded`), at most `timeout` seconds.
    public init(root: URL, timeout: Double = 120) throws {
        self.root = root
        // --console=read-only: the boot's output comes to stdout (for failure messages), and
        // nothing is read from the test runner's stdin.
        nspawn = try BackgroundProcess([
            "systemd-nspawn", "--boot", "--private-network", "--register=no", "--keep-unit", "--console=read-only",
            "--directory", root.path,
        ])
        do {
            leader = try Self.findLeader(of: nspawn, timeout: timeout)
        } catch {
            Self.end(nspawn, leader: nil)
            throw error
        }
        do {
            let deadline = Date().addingTimeInterval(timeout)
            // The system bus and systemd's private socket appear a moment after PID 1 starts.
            bootState = try waitFor("the container's systemd to finish starting up", timeout: timeout) {
                () -> String? in
                let result = try shell(
                    "systemctl is-system-running --wait", timeout: max(1, deadline.timeIntervalSinceNow))
                let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                return ["running", "degraded"].contains(text) ? text : nil
            }
        } catch {
            shutDown()
            throw error
        }
    }

    /// The container's PID 1: the child of systemd-nspawn that is PID 1 in its own namespace.
    private static func findLeader(of nspawn: BackgroundProcess, timeout: Double) throws -> pid_t {
        let parent = nspawn.processIdentifier
        let leader = try waitUntilValue(timeout: timeout, interval: 0.02) { () throws -> pid_t? in
            guard nspawn.isRunning else {
                throw TestFailure(
                    "systemd-nspawn exited before booting: \(nspawn.outputLines.joined(separator: "\n"))\n\(nspawn.errorOutput)"
                )
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for pid in entries.compactMap({ pid_t($0) }) {
                let status = String(decoding: DebianRoot.readWhole("/proc/\(pid)/status"), as: UTF8.self)
                let fields = Dictionary(
                    status.split(separator: "\n").compactMap { line -> (String, String)? in
                        guard let colon = line.firstIndex(of: ":") else { return nil }
                        return (
                            String(line[..<colon]),
                            line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                        )
                    }, uniquingKeysWith: { $1 })
                guard fields["PPid"] == "\(parent)",
                    let nspid = fields["NSpid"]?.split(whereSeparator: { $0 == " " || $0 == "\t" }),
                    nspid.count >= 2, nspid.last == "1"
                else { continue }
                return pid
            }
            return nil
        }
        guard let leader else {
            throw TestFailure(
                "no container PID 1 under systemd-nspawn after \(timeout) s: \(nspawn.outputLines.joined(separator: "\n"))"
            )
        }
        return leader
    }

    /// The boot's console output so far (for failure messages).
    public var console: String { nspawn.outputLines.joined(separator: "\n") + "\n" + nspawn.errorOutput }

    /// `nsenter` into every namespace of the container's PID 1 (and its root and working folder).
    public var enter: [String] { ["nsenter", "--target", "\(leader)", "--all"] }

    /// `nsenter` into the container's network namespace only: a host program (Chromium) that
    /// sees the container's network and nothing else of it.
    public var enterNetwork: [String] { ["nsenter", "--target", "\(leader)", "--net"] }

    /// Runs `script` with bash inside the container, from `/`, with a login shell's PATH and
    /// nothing else of the caller's environment: as root, or as `user` (its uid, its primary
    /// group, no other groups).
    public func shell(_ script: String, as user: String? = nil, timeout: Double = 60) throws -> ProcessResult {
        var argv = enter
        if let user {
            argv += [
                "setpriv", "--reuid=\(user)", "--regid=\(user == "nobody" ? "nogroup" : user)", "--clear-groups", "--",
            ]
        }
        argv +=
            ["/usr/bin/env", "-i"] + Self.shellEnvironment + [
                "HOME=\(user == nil ? "/root" : "/")", "/bin/bash", "-c", "cd / && \(script)",
            ]
        return try run(argv, timeout: timeout)
    }

    /// `shell`, failing the caller with the command's output unless it exits 0.
    @discardableResult
    public func must(_ script: String, timeout: Double = 60) throws -> String {
        let result = try shell(script, timeout: timeout)
        guard result.status == 0, !result.timedOut else {
            throw TestFailure(
                "in the container, `\(script)` \(result.timedOut ? "timed out" : "exited \(result.status)"):\n\(result.stdout)\(result.stderr)"
            )
        }
        return result.stdout
    }

    /// Powers the container off (systemd-nspawn turns SIGTERM into an orderly shutdown), kills
    /// it when it is not gone in 30 s, and waits for systemd-nspawn to exit. Safe to call twice.
    public func shutDown() { Self.end(nspawn, leader: leader) }

    private static func end(_ nspawn: BackgroundProcess, leader: pid_t?) {
        guard nspawn.isRunning else { return }
        nspawn.signal(SIGTERM)
        if !waitUntil(timeout: 30, interval: 0.02, { !nspawn.isRunning }) {
            print(
                "the container did not power off within 30 s; killing it. Its console's last lines:\n"
                    + nspawn.outputLines.suffix(15).joined(separator: "\n"))
            // PID 1 of a namespace takes every process of it along.
            if let leader { kill(leader, SIGKILL) }
            nspawn.signal(SIGKILL)
        }
        nspawn.process.waitUntilExit()
    }

    deinit { shutDown() }
}
