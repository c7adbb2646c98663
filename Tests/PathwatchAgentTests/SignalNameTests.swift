import Glibc
import Testing

@testable import PathwatchPluginHost

/// Every report of a plug-in's end names its signal from one table (CFaultReport's), the one the
/// fault handler's own line uses: the agent's cause, `plugins --try` and the handler agree.
@Suite struct SignalNameTests {
    @Test func theWaitStatusAndTheNameAgree() {
        let named: [(Int32, String)] = [
            (SIGSEGV, "SIGSEGV"), (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP"), (SIGABRT, "SIGABRT"), (SIGBUS, "SIGBUS"),
            (SIGFPE, "SIGFPE"), (SIGKILL, "SIGKILL"), (SIGTERM, "SIGTERM"), (SIGSYS, "SIGSYS"),
        ]
        for (signal, name) in named {
            #expect(ChildEnd.signalName(signal) == name)
            // A wait status of a process killed by `signal` is the signal number itself.
            #expect(ChildEnd.describe(signal) == "plug-in crashed: \(name) (signal \(signal))")
        }
        #expect(ChildEnd.signalName(SIGUSR1) == "signal")
    }
}
