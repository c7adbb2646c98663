import Glibc
import Synchronization

/// systemd's notify protocol (sd_notify(3)) through libsystemd, opened with dlopen only when the
/// service manager asked for notifications (`NOTIFY_SOCKET` is set). Linking libsystemd would
/// map it and its compression and crypto libraries into every `pathwatch` process, `once` and
/// `check-config` included; opened on demand it costs nothing outside a `Type=notify` unit.
package final class SystemdNotifier: @unchecked Sendable {
    // @unchecked: the two C function pointers are immutable after init and the library stays
    // loaded for the life of the process; libsystemd documents both calls as thread-safe.
    private typealias NotifyFunction = @convention(c) (Int32, UnsafePointer<CChar>?) -> Int32
    private typealias WatchdogEnabledFunction = @convention(c) (Int32, UnsafeMutablePointer<UInt64>?) -> Int32
    private let notifyFunction: NotifyFunction
    private let watchdogEnabledFunction: WatchdogEnabledFunction

    package enum Unavailable: Error, CustomStringConvertible {
        case notRequested
        case library(String)
        package var description: String {
            switch self {
            case .notRequested: "NOTIFY_SOCKET is not set"
            case .library(let reason): "NOTIFY_SOCKET is set but libsystemd cannot be used: \(reason)"
            }
        }
    }

    /// The notifier, when the service manager asked for notifications; `.notRequested` when it
    /// did not (a shell, a test, `once`).
    package static func fromEnvironment() -> Result<SystemdNotifier, Unavailable> {
        guard let socket = getenv("NOTIFY_SOCKET"), socket.pointee != 0 else { return .failure(.notRequested) }
        guard let library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.library(dlerror().map { String(cString: $0) } ?? "dlopen failed"))
        }
        guard let notify = dlsym(library, "sd_notify"), let watchdog = dlsym(library, "sd_watchdog_enabled") else {
            return .failure(.library("sd_notify or sd_watchdog_enabled missing"))
        }
        return .success(
            SystemdNotifier(
                notify: unsafeBitCast(notify, to: NotifyFunction.self),
                watchdogEnabled: unsafeBitCast(watchdog, to: WatchdogEnabledFunction.self)))
    }

    private init(notify: NotifyFunction, watchdogEnabled: WatchdogEnabledFunction) {
        notifyFunction = notify
        watchdogEnabledFunction = watchdogEnabled
    }

    /// Sends one notification ("READY=1", "STATUS=…", several joined by newlines). Returns
    /// false when it could not be delivered; the agent runs on either way.
    @discardableResult
    package func send(_ assignments: String) -> Bool {
        notifyFunction(0, assignments) > 0
    }

    /// How often to send `WATCHDOG=1`: half of `WATCHDOG_USEC`, as sd_watchdog_enabled(3)
    /// recommends; nil when the unit has no `WatchdogSec` (or it is meant for another process).
    package var watchdogPeriod: Duration? {
        var usec: UInt64 = 0
        guard watchdogEnabledFunction(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(clamping: usec / 2))
    }

    /// `RELOADING=1` needs the monotonic time of the request (systemd.service(5),
    /// `Type=notify-reload`); older managers ignore the extra field.
    package static func reloadingMessage() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let usec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        return "RELOADING=1\nMONOTONIC_USEC=\(usec)"
    }
}

/// Tells the service manager what the agent is doing: `READY=1` once every probe has reported or
/// `agent.ready_timeout` passed, then `STATUS=` whenever the summary line changes (naming the
/// probes whose first sample is still awaited), and `STOPPING=1` as it stops — after which it
/// says nothing more: the probes stopping would otherwise read as "not monitored".
package final class SystemdStatusReporter: AgentObserver {
    private struct State {
        var lastSequence: UInt64 = 0
        var lastLine: String? = nil
        var ready = false
        var stopping = false
        /// Why the last reload was refused, until a reload succeeds: STATUS= says it first.
        var refusal: String? = nil
    }

    private let notifier: SystemdNotifier
    private let state = Mutex(State())

    package init(notifier: SystemdNotifier) { self.notifier = notifier }

    package func agentReported(_ summary: AgentSummary, ready: Bool) {
        // Sent under this reporter's own lock (never the agent's): notifications leave in the
        // order the summaries were taken, and an older one never overwrites a newer one.
        state.withLock { s in
            guard !s.stopping else { return }
            var message: [String] = []
            // READY=1 even from a summary overtaken by a newer one: it is said once, whichever
            // arrives first.
            if ready && !s.ready {
                s.ready = true
                message.append("READY=1")
            }
            if summary.sequence >= s.lastSequence {
                s.lastSequence = summary.sequence
                let line = summary.statusLine
                if line != s.lastLine {
                    s.lastLine = line
                    if s.refusal == nil { message.append("STATUS=\(line)") }
                }
            }
            if !message.isEmpty { notifier.send(message.joined(separator: "\n")) }
        }
    }

    /// A refused reload: `systemctl status` shows why ("reload refused: …") until a reload
    /// succeeds, instead of the checks' line, which still describes the old configuration.
    package func reloadRefused(_ reason: String) {
        state.withLock { s in
            guard !s.stopping else { return }
            let line =
                "reload refused: "
                + reason.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
            s.refusal = line
            notifier.send("STATUS=\(line)")
        }
    }

    /// A reload succeeded: STATUS= is the checks' line again.
    package func reloadAccepted() {
        state.withLock { s in
            guard !s.stopping, s.refusal != nil else { return }
            s.refusal = nil
            if let line = s.lastLine { notifier.send("STATUS=\(line)") }
        }
    }

    /// `STOPPING=1`, sent under the same lock as every `STATUS=`, so none follows it.
    package func stopping() {
        state.withLock { s in
            s.stopping = true
            notifier.send("STOPPING=1")
        }
    }
}
