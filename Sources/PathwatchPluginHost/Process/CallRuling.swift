import CChildProcess
import Dispatch
import Glibc
import PathwatchBase
import PathwatchSinkKit
import Synchronization

/// The agent's side of a plug-in child's call guard (AgentSignalGuard): a thread that takes the
/// child's seccomp listener from the supervision socket and rules on every call the filter sends
/// it, until the listener ends (the child and everything it started, which inherit the filter,
/// are gone). A call goes on only when every process it names is in the child's tree; the rule is
/// the C side's (call_ruling.c). A plug-in's call waits for its ruling, so the thread does nothing
/// else; it costs no wake-up while the plug-in makes no such call.
package enum CallRuling {
    /// Starts ruling for `child`, started by this process. `refused` hears each refused call,
    /// worded for the log, after the call was answered. The ruling ends once the child and all
    /// it started are gone: waiting for `Ended` then says every refusal has been heard.
    @discardableResult
    package static func start(supervision: Int32, child: pid_t, refused: @escaping @Sendable (String) -> Void)
        -> Ended
    {
        let ended = Ended()
        let thread = SerialThread(name: "pw-guard-\(child)")
        thread.async {
            defer { ended.semaphore.signal() }
            let listener = pw_guard_receive_listener(supervision)
            close(supervision)
            guard listener >= 0 else { return }
            var tree = pw_guard_tree_make(child, getpid())
            rule(listener: listener, tree: &tree, refused: refused)
            pw_guard_tree_free(&tree)
            close(listener)
        }
        thread.finish()
        return ended
    }

    /// The end of one child's ruling.
    package final class Ended: Sendable {
        fileprivate let semaphore = DispatchSemaphore(value: 0)

        /// Waits at most `seconds` (blocking: a thread of the caller's own) for the ruling to
        /// end; true when it did.
        package func wait(seconds: Double) -> Bool {
            semaphore.wait(timeout: .now() + .nanoseconds(Int(seconds * 1e9))) == .success
        }
    }

    private static func rule(listener: Int32, tree: inout pw_guard_tree, refused: @Sendable (String) -> Void) {
        while true {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready.revents & Int16(POLLIN) != 0 {
                var refusal = pw_guard_refusal()
                switch pw_guard_rule_one(listener, &tree, &refusal) {
                case 1: refused(describe(refusal))
                case 0: continue
                default: return
                }
            } else if ready.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                return
            }
        }
    }

    /// "process 4242 called tkill(1017, 9): refused, it names a process outside the plug-in's own".
    package static func describe(_ refusal: pw_guard_refusal) -> String {
        let name = String(cString: pw_guard_call_name(refusal.call))
        let arguments = [refusal.arguments.0, refusal.arguments.1, refusal.arguments.2]
        let shown = name == "fcntl(F_SETOWN)" ? [arguments[0], arguments[2]] : Array(arguments.prefix(2))
        return "process \(refusal.caller) called \(name)(\(shown.map(String.init).joined(separator: ", "))): "
            + "refused, it names a process outside the plug-in's own"
    }
}

/// Refused calls as the log says them: the first few at warning, then one in a hundred, with a
/// count, so a plug-in that tries in a loop cannot flood the journal.
package final class RefusedCallLog: Sendable {
    private let count = Atomic<Int>(0)
    private let say: @Sendable (String) -> Void

    package init(say: @escaping @Sendable (String) -> Void) { self.say = say }

    package func record(_ text: String) {
        let n = count.add(1, ordering: .relaxed).newValue
        if n <= 3 {
            say(text)
        } else if n % 100 == 0 {
            say("\(text) (\(n) refused calls so far)")
        }
    }
}
