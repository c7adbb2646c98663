import Glibc
import PathwatchBase
import Synchronization

/// The write end of the pipe the handler writes to: set once, before any handler is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Signals `run` handles (SIGTERM and SIGINT stop, SIGHUP reloads) as asynchronous streams.
///
/// The handler only writes the signal's number to a pipe (all a handler may safely do); a thread
/// of its own reads the pipe and feeds the streams. Hand-written instead of swift-service-
/// lifecycle's UnixSignals, whose Dispatch signal sources run their handlers on libdispatch's
/// global pool: the first such job arms the pool's once-a-second monitor for the life of the
/// process (see TaskThreadPool).
///
/// Each stream keeps only the newest signal not yet read: a burst of SIGHUPs during a reload
/// asks for one more reload, not one per signal.
package final class SignalTrap: Sendable {
    private let listeners = Mutex<[(signals: [Int32], continuation: AsyncStream<Int32>.Continuation)]>([])

    /// Installs the handlers for `signals`; from here on they no longer have their default
    /// effect. One trap per process. Without a pipe (no descriptor left) nothing is installed
    /// and the signals keep their default effect: stopping the agent beats ignoring the request.
    package init(_ signals: [Int32]) {
        Self.unblock(signals)
        guard let ends = makePipe() else { return }
        // A full pipe drops the byte rather than block the handler: a signal already waits. The
        // read end blocks: its thread has nothing else to do.
        _ = fcntl(ends.write, F_SETFL, fcntl(ends.write, F_GETFL) | O_NONBLOCK)
        signalPipeWriteEnd = ends.write
        let reader = SerialThread(name: "pw-signals")
        reader.async { [self, readEnd = ends.read] in read(from: readEnd) }
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
    }

    /// Lets `signals` through on the calling thread, and on threads it starts from now on. A
    /// parent may start the agent with them blocked (a test harness does); a blocked signal
    /// would never reach the handler.
    package static func unblock(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The trapped `signals` that arrive from now on.
    package func stream(_ signals: Int32...) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(1))
        listeners.withLock { $0.append((signals, continuation)) }
        return stream
    }

    private func read(from fd: Int32) {
        var byte: UInt8 = 0
        while true {
            let got = Glibc.read(fd, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got == 1 else { return }
            let signal = Int32(byte)
            listeners.withLock { listeners in
                for listener in listeners where listener.signals.contains(signal) {
                    listener.continuation.yield(signal)
                }
            }
        }
    }
}
